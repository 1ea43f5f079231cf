"""Checking an execution log in bulk: RetrievalQuery, RetrievalResult, KeywordMatch and ToolUse over every record, column-wise.

The checks come from a JSON configuration, in one of two forms:

- an evaluator map applied to every record, ``{"RetrievalQuery": {...}, "RetrievalResult": {...}}``;
- per record, as in an evaluation document: ``{"default_evaluators": {...}, "items": {"<id>":
  {"evaluators": {...}, "evaluators_mode": "extend" | "replace"}}}``; records are matched by
  ``id``, and a record that ``items`` does not name gets the defaults.

The retrieval checks read a record's executions; KeywordMatch its ``response`` and ToolUse its
``invoked_tools`` (see :mod:`.log`): a record without the field it needs gets that check's
errored record, as an item without them does in a document. The other evaluators need what a
log does not hold (an expected response, citations, a language model); any of them in the
configuration is an error, and so is any other name (with the built-in name it is close to,
by the rule of :func:`~..checks.evaluators.near_miss`). Invalid options of a check become its
errored record, per record. The run's verdict is that of :mod:`..outcomes`: a log without
records, or a configuration that gives no record a check, is ``nothing_checked``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ... import views
from ...constraints import did_you_mean
from ...errors import ConfigError, InputError, OutputError
from ...io import read_json_file, write_json, write_table
from ...io.atomic import atomic_write
from ...io.formats import TABLE_FORMATS, extension, table_format
from ..checks.evaluator import OptionError
from ..checks.evaluators import BUILT_IN, LOG_CHECKS, near_miss, score_key
from ..model.validation import path_argument
from ..outcomes import CheckSummary, verdict
from ..rules import evaluators_of, item_statuses
from . import columns as col
from .engine import EVALUATORS, plan_checks, plan_per_record, run_checks, score_objects
from .log import read_execution_log
from .tables import ExecutionTables

ConfigLike = Mapping[str, Any] | str | os.PathLike[str]
_PER_RECORD = ("default_evaluators", "items")
_ITEM = ("evaluators", "evaluators_mode")
# The results are written under each format's first extension only (``.pq`` or ``.ndjson`` is refused).
_RESULT_EXTENSIONS = tuple(TABLE_FORMATS[name][0] for name in ("jsonl", "json", "parquet"))


@dataclass(frozen=True)
class LogCheck:
    """The checks of every record of a log.

    ``results`` has one row per (record, evaluator), as :func:`~.engine.run_checks` gives it,
    with the record's ``id``; ``statuses`` is each record's status (the rollup of
    :mod:`..rules`: ``partial`` if a check errored, ``pass`` if all passed, else ``fail``).
    ``sources`` are the files the check read (the log and the configuration, when given as
    paths): :meth:`write` refuses them.
    """

    tables: ExecutionTables
    results: pa.Table
    statuses: pd.Series
    sources: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        """``fail`` if a record did not pass, else ``nothing_checked`` if no check ran, else ``pass``."""
        return verdict(self.statuses, self.results.num_rows)

    @property
    def passed(self) -> bool:
        """Whether some check ran and every record passed every check (the verdict is ``pass``)."""
        return self.verdict == "pass"

    @property
    def summary(self) -> CheckSummary:
        """Pass rate per check, counts per diagnostic code, record statuses, unchecked records, and the verdict."""
        outcomes = self.results.select(["evaluator", "result", "diagnostic_code"]).to_pandas()
        outcomes["ran"] = True  # every row of the results is a check that ran
        unchecked = self.tables.records.num_rows - len(pc.unique(self.results.column("record")))
        return CheckSummary.from_outcomes(outcomes, statuses=list(self.statuses), unchecked=unchecked)

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the results: ``.jsonl``/``.json`` one object per record (``id``, ``scores``, ``status``),
        with each check's score object under its key as in an evaluation document; ``.parquet`` the
        ``results`` table. Never over a source."""
        written = path_argument(path, "path")
        if extension(written) not in _RESULT_EXTENSIONS:
            shown = ", ".join(_RESULT_EXTENSIONS[:-1]) + " or " + _RESULT_EXTENSIONS[-1]
            raise OutputError(f"{os.fspath(path)}: write the results as {shown}")
        if table_format(written) == "parquet":
            write_table(self.results, path, inputs=self.sources)
            return
        records = self._records()
        if table_format(written) == "json":
            write_json(records, path, inputs=self.sources)
        else:
            lines = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
            atomic_write(path, lambda temp: Path(temp).write_text(lines, encoding="utf-8"), inputs=self.sources)

    def __repr__(self) -> str:
        return views.checks_repr(self)

    def _repr_html_(self) -> str:
        shown = views.ROWS
        ids = self.tables.records.column("id").slice(0, shown).to_pylist()
        pairs = zip(ids, self.statuses.head(shown).tolist())
        return views.checks_html(self, views.statuses_table("id", pairs, len(self.statuses), ".statuses"))

    def _records(self) -> list[dict[str, Any]]:
        ids = self.tables.records.column("id").to_pylist()
        records = [{"id": record_id, "scores": {}, "status": status} for record_id, status in zip(ids, self.statuses)]
        columns = self.results.select(["record", "evaluator"]).to_pydict()
        for record, evaluator, score in zip(columns["record"], columns["evaluator"], score_objects(self.results)):
            records[record]["scores"][score_key(evaluator)] = score
        return records


def check_log(log: str | os.PathLike[str] | ExecutionTables, config: ConfigLike) -> LogCheck:
    """Run the configured checks over every record of ``log`` (a JSON Lines or Parquet path, or its tables).

    ``config`` is the checks (see the module docstring): a mapping, or the path of a JSON file.

    Raises
    ------
    ConfigError
        ``log`` or ``config`` is of the wrong type (named), the configuration names an
        evaluator that cannot check a log, or gives one options that do not parse (naming
        where in the file), before any record is checked.
    InputError
        The log or the configuration file is not what is expected (naming the file, row or field).
    """
    if not isinstance(log, (str, os.PathLike, ExecutionTables)):
        raise ConfigError(f"log must be a path or ExecutionTables, got {type(log).__name__}")
    if not isinstance(config, (Mapping, str, os.PathLike)):
        raise ConfigError(f"config must be a mapping of checks or the path of a JSON file, got {type(config).__name__}")
    tables = log if isinstance(log, ExecutionTables) else read_execution_log(log)
    evaluators = _read_config(config)
    label = None if isinstance(config, Mapping) else os.fspath(config)
    if "items" in evaluators or "default_evaluators" in evaluators:
        plan = plan_per_record(_per_record(tables, evaluators, label))
    else:
        _check_log_evaluators(evaluators, label, "")
        plan = plan_checks(tables.records.num_rows, evaluators)
    results = run_checks(tables, plan)
    results = results.append_column("id", pc.take(tables.records.column("id"), results.column("record")))
    sources = tuple(os.fspath(source) for source in (log, config) if isinstance(source, (str, os.PathLike)))
    return LogCheck(tables, results, _statuses(results, tables.records.num_rows), sources)


def _read_config(config: ConfigLike) -> Mapping[str, Any]:
    if isinstance(config, Mapping):
        return config
    value = read_json_file(config)
    if not isinstance(value, dict):
        raise InputError(f"the checks are a JSON object, got {type(value).__name__}", source=os.fspath(config))
    return value


def _check_log_evaluators(evaluators: Any, label: str | None, where: str) -> None:
    if not isinstance(evaluators, Mapping):
        raise InputError(
            f"expected an object of evaluators, got {type(evaluators).__name__}", source=label, field=where or None
        )
    prefix = f"{label + ': ' if label else ''}{where + ': ' if where else ''}"
    for name in evaluators:
        if not isinstance(name, str):
            raise ConfigError(f"{prefix}an evaluator's name is a string, got {name!r}")
    others = [name for name in evaluators if name not in LOG_CHECKS]
    if not others:
        _refuse_bad_options(evaluators, prefix)
        return
    name, close = others[0], near_miss(others[0])
    if name in BUILT_IN:
        raise ConfigError(
            f"{prefix}{name!r} cannot check an execution log (it holds executions, responses and invoked tools only); "
            f"use {', '.join(LOG_CHECKS)}"
        )
    hint = did_you_mean([close], before="") if close is not None else f"a log is checked with {', '.join(LOG_CHECKS)}"
    raise ConfigError(f"{prefix}unknown evaluator {name!r}; {hint}")


def _refuse_bad_options(evaluators: Mapping[str, Any], prefix: str) -> None:
    """Options that do not parse are the file's error: every record would error on them."""
    for name, options in evaluators.items():
        try:
            EVALUATORS[name].from_options(options)
        except OptionError as exc:
            raise ConfigError(f"{prefix}{exc}") from None
        except ConfigError:
            continue  # options that assert nothing: each record's result is invalid, as the reference scores it


def _object(config: Mapping[str, Any], key: str, label: str | None, where: str, known: tuple[str, ...]) -> Any:
    """``config[key]``, {} when absent or null; after checking that ``config`` has no keys but ``known``."""
    unknown = [name for name in config if name not in known]
    if unknown:
        keys = " and ".join(repr(name) for name in known)
        raise InputError(f"unknown key {unknown[0]!r}; this object has only {keys}", source=label, field=where or None)
    value = config.get(key)
    return {} if value is None else value


def _per_record(tables: ExecutionTables, config: Mapping[str, Any], label: str | None) -> list[dict[str, Any]]:
    defaults = _object(config, "default_evaluators", label, "", _PER_RECORD)
    _check_log_evaluators(defaults, label, "default_evaluators")
    items = _object(config, "items", label, "", _PER_RECORD)
    if not isinstance(items, Mapping):
        kind = type(items).__name__
        raise InputError(f"must be an object keyed by record id, got {kind}", source=label, field="items")
    resolved = {}
    for record_id, item in items.items():
        where = f"items.{record_id}"
        if not isinstance(item, Mapping):
            raise InputError(
                f"expected an object with 'evaluators', got {type(item).__name__}", source=label, field=where
            )
        own = _object(item, "evaluators", label, where, _ITEM)
        _check_log_evaluators(own, label, f"{where}.evaluators")
        mode = item.get("evaluators_mode", "extend")
        if mode not in ("extend", "replace"):
            raise InputError(
                f"must be 'extend' or 'replace', got {mode!r}", source=label, field=f"{where}.evaluators_mode"
            )
        resolved[record_id] = evaluators_of(defaults, own, mode)
    ids = tables.records.column("id").to_pylist()
    unknown = sorted(set(resolved) - set(ids))
    if unknown:
        raise InputError(
            f"{len(unknown)} configured id(s) are not in the log, e.g. {unknown[:3]}", source=label, field="items"
        )
    return [resolved.get(record_id, defaults) for record_id in ids]


def _statuses(results: pa.Table, records: int) -> pd.Series:
    """Each record's status by the rollup of :mod:`..rules`, from the results of its checks."""
    record = results.column("record").to_numpy()
    result = results.column("result")
    errored = np.bincount(record, weights=col.booleans(pc.equal(result, "error")), minlength=records) > 0
    failed = np.bincount(record, weights=col.booleans(pc.not_equal(result, "pass")), minlength=records) > 0
    return pd.Series(item_statuses(errored, ~failed), index=pd.RangeIndex(records), name="status")
