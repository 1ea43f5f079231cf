"""Where a sweep's configurations come from: run files with parameters, or one long table.

- Run files: each file is a configuration named by its file name. Its parameters come from a
  regular expression over the file name whose named groups are the parameters
  (``k(?P<top_k>\\d+)_c(?P<chunk>\\d+)``; a name it does not match is an error naming the file),
  and/or from a sidecar JSON object beside it (``run.trec`` -> ``run.trec.json`` or
  ``run.json``: ``{"top_k": 10, "reranker": "on", "latency_ms": 412}``), which may also hold
  cost columns. Both may be given; a parameter named by both must agree.
- A long table: one run per combination of the parameter columns, each row a retrieved
  document (``query_id``, ``doc_id``, ``score`` and the parameter columns).

Parameter values from file names are text; text that reads as an integer or a decimal number
becomes that number, so that values sort as numbers (``k5`` before ``k10``).
"""

from __future__ import annotations

import math
import numbers
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..constraints import shown
from ..errors import ConfigError, InputError
from ..io import read_json_file

_INTEGER = re.compile(r"^[+-]?\d+$")
_DECIMAL = re.compile(r"^[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?$")


def runs_from_files(
    paths: Sequence[str | os.PathLike[str]], *, param_pattern: str | None = None, costs: Sequence[str] = ()
) -> tuple[dict[str, str], pd.DataFrame]:
    """The runs of ``paths`` by configuration name, and their parameters (one row per configuration).

    The name is the file name; two files with the same name are an error. The parameter table
    is indexed by configuration name; a parameter a configuration lacks is missing (NaN).
    Each of ``costs`` must be a finite number for every configuration (:func:`cost_value`); an
    error names the sidecar (or the run file, for a cost taken from its name, or lacking).
    """
    pattern = _compile(param_pattern)
    runs: dict[str, str] = {}
    rows: dict[str, dict[str, Any]] = {}
    for path in map(Path, map(os.fspath, paths)):
        name = path.name
        if name in runs:
            raise ConfigError(f"two runs are named {name!r}; configurations are named by their file names")
        runs[name] = str(path)
        parameters = _from_name(path, pattern) if pattern is not None else {}
        sources = dict.fromkeys(parameters, str(path))
        sidecar, values = _sidecar(path)
        for key, value in values.items():
            if key in parameters and parameters[key] != value:
                raise InputError(
                    f"parameter {key!r} is {parameters[key]!r} in the file name but {value!r} in the sidecar",
                    source=str(path),
                )
            parameters[key], sources[key] = value, str(sidecar)
        for cost in costs:
            if cost not in parameters:
                raise InputError(
                    f"no cost {cost!r} for this configuration: give it in its sidecar ({name}.json) or its file name",
                    source=str(path),
                    field=cost,
                )
            cost_value(parameters[cost], configuration=name, cost=cost, source=sources[cost])
        rows[name] = parameters
    return runs, pd.DataFrame.from_dict(rows, orient="index").rename_axis("configuration")


def runs_from_table(table: pd.DataFrame, parameters: Sequence[str]) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """The runs of a long table, one per combination of the ``parameters`` columns, and their parameters.

    A configuration is named ``name=value,name=value`` in the order of ``parameters``.
    """
    if not isinstance(table, pd.DataFrame):
        raise ConfigError(f"table must be a pandas DataFrame, got {type(table).__name__}")
    if isinstance(parameters, str):  # a bare name would be taken letter by letter
        raise ConfigError(f"parameters must be a list of column names, got {parameters!r}")
    missing = [column for column in parameters if column not in table.columns]
    if missing:
        raise InputError(f"no parameter column {missing[0]!r}; the columns are {', '.join(map(str, table.columns))}")
    if not parameters:
        raise ConfigError("give the parameter columns that tell the configurations apart")
    runs, rows = {}, {}
    for values, rows_of_run in table.groupby(list(parameters), sort=True, dropna=False):
        values = values if isinstance(values, tuple) else (values,)
        name = ",".join(f"{column}={value}" for column, value in zip(parameters, values))
        runs[name] = rows_of_run.drop(columns=list(parameters))
        rows[name] = dict(zip(parameters, values))
    return runs, pd.DataFrame.from_dict(rows, orient="index").rename_axis("configuration")


def _compile(pattern: str | None) -> re.Pattern[str] | None:
    if pattern is None:
        return None
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ConfigError(f"invalid --param-pattern {pattern!r}: {exc}") from None
    if not compiled.groupindex:
        raise ConfigError(f"--param-pattern {pattern!r} has no named group (?P<name>...) to take a parameter from")
    return compiled


def _from_name(path: Path, pattern: re.Pattern[str]) -> dict[str, Any]:
    match = pattern.search(path.name)
    if match is None:
        raise InputError(f"the file name does not match the parameter pattern {pattern.pattern!r}", source=str(path))
    return {key: _number_or_text(value) for key, value in match.groupdict().items() if value is not None}


def cost_value(value: Any, *, configuration: str, cost: str, source: str) -> float:
    """A configuration's cost: a finite number (not a boolean, text, null or missing), else an InputError naming where."""
    if value is None:
        raise InputError(f"configuration {configuration!r} has no cost {cost!r}", source=source, field=cost)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise InputError(
            f"the cost of configuration {configuration!r} must be a finite number, got {shown(value)!r}",
            source=source,
            field=cost,
        )
    return float(value)


def sidecar_candidates(path: str | os.PathLike[str]) -> list[Path]:
    """Where a run file's sidecar may be, in the order looked at: ``RUN.EXT.json``, then ``RUN.json``."""
    path = Path(os.fspath(path))
    return [candidate for candidate in (path.with_name(path.name + ".json"), path.with_suffix(".json")) if candidate != path]


def _sidecar(path: Path) -> tuple[Path | None, dict[str, Any]]:
    """The sidecar of a run file and its values (None and nothing when it has none)."""
    for candidate in sidecar_candidates(path):
        if candidate.is_file():
            value = read_json_file(candidate)
            if not isinstance(value, dict):
                raise InputError(
                    "a sidecar holds one JSON object of parameter names and plain values", source=str(candidate)
                )
            for key, item in value.items():
                if isinstance(item, (dict, list)):
                    raise InputError(
                        f"a parameter is a plain value (text, number, true/false or null), got a JSON "
                        f"{'object' if isinstance(item, dict) else 'array'}",
                        source=str(candidate),
                        field=key,
                    )
            return candidate, value
    return None, {}


def _number_or_text(value: str) -> int | float | str:
    if _INTEGER.match(value):
        return int(value)
    if _DECIMAL.match(value):
        return float(value)
    return value
