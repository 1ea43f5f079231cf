"""Scoring an evaluation document: every deterministic evaluator of every item and turn, and the judged ones with a judge.

For each single-turn item and each turn of a thread, the evaluators are the document's
``default_evaluators`` extended by the item's own ``evaluators`` (an item's options win), or
the item's alone with ``evaluators_mode: "replace"``. Each deterministic evaluator's result
goes into ``scores`` under its key (:func:`~.checks.evaluators.score_key`); an evaluator that fails
(invalid options, no response to judge) gets the errored record and the rest are still
scored. With a judge (``judge=``, a :class:`~retrieval_eval.judging.settings.JudgeSettings`),
the judged evaluators (:data:`~.checks.evaluators.JUDGED`) of every item are scored too, all
requests of the document sent as one batch (:mod:`.checks.judged.document`); an item whose judgment
failed gets the errored record with the reason, never a score. Evaluators that cannot run
(judged ones without a judge, custom ones) are listed, with the
reason, under ``extensions.retrieval_eval.skipped_evaluators``; a score such an evaluator
already has in the input is kept and counts towards the status. Then ``status`` (and
``error``) of each item and turn, and ``summary`` of each thread, follow the rollup rules
of :mod:`.rules`; the run's verdict (``pass``, ``fail`` or ``nothing_checked``) is that of
:mod:`.outcomes`.

A name close to a built-in evaluator's but not one (``RetreivalQuery``, ``retrievalquery``;
the rule is :func:`~.checks.evaluators.near_miss`) is refused before anything is scored, naming
where it is and the name it is close to: taken for a custom evaluator, it would be skipped
and its item would pass unchecked. A custom evaluator that really has such a name is
declared in ``custom_evaluators``.

An item or turn whose input ``error`` says the agent gave no response (``agentRequestFailed``,
``turnSkipped``) is left as it is, with status ``error``: there is nothing to score.

Retrieval executions come from the item's ``diagnostics.retrieval_executions``, and the tools
or topics the agent invoked (for ToolUse) from its ``diagnostics.invoked_tools``; or either from
an execution log (JSON Lines or Parquet) whose records are matched to items by ``extensions.id``
(a record's ``retrieval_executions`` and ``invoked_tools``, see :mod:`.batch.log`; its ``response``
is not read: an item's response is the document's). What came from the log is then written to
the item's diagnostics, so the output document holds what was checked.

RetrievalResult's expected items are matched by casefolded substring (the v1 contract) unless
the document's ``schemaVersion`` is 1.6.0 or later and a judge is configured: then each is a
claim that the judge must find supported by the candidate hits (:mod:`.checks.judged.entailment`),
and each such score object says ``"matcher": "entailment"``. A ``matcher=`` given by the
caller is used whatever the version. :attr:`DocumentCheck.extract_matcher` says which it was.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from .. import views
from ..constraints import did_you_mean
from ..errors import ConfigError, InputError, OutputError
from ..io import write_json
from .batch.log import iter_execution_records
from .checks.evaluators import BUILT_IN, JUDGED, Settings, Turn, near_miss, run_evaluator, score_key, skip_reason
from .checks.matching import SUBSTRING, ExtractMatcher
from .checks.text_match import PARTIAL_MATCH_MODES
from .checks.tool_use import INVOKED_TOOLS
from .model.document import DocumentLike, Unit, read_document, units
from .model.normalize import ExecutionsLike, load_executions
from .model.validation import path_argument
from .outcomes import OUTCOME_COLUMNS, CheckSummary, verdict
from .rules import evaluators_of, thread_summary, turn_status

if TYPE_CHECKING:
    from ..judging.outcomes import Totals
    from ..judging.settings import JudgeSettings

NO_RESPONSE_CODES = frozenset({"agentRequestFailed", "turnSkipped"})
#: The first schema version whose RetrievalResult expected items are claims for an entailment judge.
ENTAILMENT_VERSION = (1, 6, 0)
EXTENSION_KEY = "retrieval_eval"
ExecutionSource = Mapping[str, ExecutionsLike] | str | os.PathLike[str]


@dataclass(frozen=True)
class DocumentCheck:
    """A scored evaluation document.

    ``document`` is the output document (the input with results); ``outcomes`` has one row
    per (item or turn, evaluator): ``unit`` (its path, ``items[2].turns[0]``), ``id``,
    ``evaluator``, ``result`` (``pass``/``fail``/``error``, or ``skipped``), ``diagnostic_code``,
    ``score`` and ``ran`` (False for a skipped evaluator, and for a score kept from the input).
    ``statuses`` maps each unit's path to its status. ``sources`` are the files the check read
    (the document and the execution log, when given as paths): :meth:`write` refuses them.
    ``extract_matcher`` is how RetrievalResult's expected items were matched (``substring``,
    ``entailment``, or ``custom`` for a caller's matcher); ``judge_totals`` are the counts,
    tokens and cost of the judge's requests (None when nothing was sent to a judge).
    """

    document: dict[str, Any]
    outcomes: pd.DataFrame
    statuses: dict[str, str] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    extract_matcher: str = "substring"
    judge_totals: Totals | None = None

    @property
    def verdict(self) -> str:
        """``fail`` if an item or turn did not pass, else ``nothing_checked`` if no evaluator ran, else ``pass``."""
        return verdict(self.statuses.values(), int(self.outcomes["ran"].sum()))

    @property
    def passed(self) -> bool:
        """Whether some evaluator ran and every item and turn has status ``pass`` (the verdict is ``pass``)."""
        return self.verdict == "pass"

    @property
    def summary(self) -> CheckSummary:
        """Pass rates per evaluator, counts per diagnostic code, item statuses (a thread's overall), unchecked items."""
        items = [
            item["summary"]["overall_status"] if "turns" in item else item["status"] for item in self.document["items"]
        ]
        ran = set(self.outcomes.loc[self.outcomes["ran"].astype(bool), "unit"])
        # An item is a single turn or a thread; a thread is checked when any of its turns is.
        checked = {id(unit.thread or unit.record) for unit in units(self.document) if unit.path in ran}
        return CheckSummary.from_outcomes(self.outcomes, statuses=items, unchecked=len(items) - len(checked))

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the output document as indented UTF-8 JSON (a ``.json`` path), atomically; never over a source."""
        if Path(path_argument(path, "path")).suffix.lower() != ".json":
            raise OutputError(f"{os.fspath(path)}: the output document is written as .json")
        write_json(self.document, path, inputs=self.sources)

    def __repr__(self) -> str:
        return views.checks_repr(self)

    def _repr_html_(self) -> str:
        pairs = self.statuses.items()
        return views.checks_html(self, views.statuses_table("unit", pairs, len(self.statuses), ".statuses"))


def check_document(
    document: DocumentLike,
    *,
    executions: ExecutionSource | None = None,
    matcher: ExtractMatcher | None = None,
    partial_match_mode: str = "token_f1",
    custom_evaluators: Collection[str] = (),
    judge: JudgeSettings | None = None,
) -> DocumentCheck:
    """Score every evaluator of ``document`` (a path or the parsed JSON; never modified) that can run.

    ``executions``: an execution log (a JSON Lines or Parquet path) or a mapping from item id to
    executions, for items whose executions (or, from a log, invoked tools) are not in the
    document. An id of the log that no item has, or an item with executions (or invoked tools)
    both in the document and in the log, is an error.
    ``matcher`` judges RetrievalResult's expected snippets (default: casefolded substring, or
    the judge's entailment for a document of schema 1.6.0 or later when ``judge`` is given);
    ``partial_match_mode`` is PartialMatch's mode where its options name none;
    ``custom_evaluators`` names custom evaluators whose names are close to a built-in one's
    (others need no declaring); ``judge`` scores the judged evaluators (without it they are
    skipped, with the reason).

    Raises
    ------
    ConfigError
        An argument of the wrong type or value (named), or a custom name that is a built-in one.
    InputError
        The document, or the log, is not what is expected (see :func:`.model.document.read_document`), or an
        evaluator's name is close to a built-in one's (``items[0].evaluators.RetreivalQuery``).
    """
    custom = _arguments(document, executions, matcher, partial_match_mode, custom_evaluators, judge)
    output = read_document(document)
    label = None if isinstance(document, Mapping) else os.fspath(document)
    logged = _Logged.of(executions)
    all_units = list(units(output))
    _check_names(output, all_units, custom, label)
    _check_ids(all_units, logged, executions)
    entailment = matcher is None and judge is not None and _version(output["schemaVersion"]) >= ENTAILMENT_VERSION
    matcher_name = "entailment" if entailment else "substring" if matcher is None or matcher is SUBSTRING else "custom"
    settings = Settings(matcher=matcher or SUBSTRING, partial_match_mode=partial_match_mode, judge=judge)
    defaults = output.get("default_evaluators") or {}
    judged, totals = _judge(all_units, defaults, logged, judge, entailment)
    rows: list[dict[str, Any]] = []
    statuses: dict[str, str] = {}
    for unit in all_units:
        statuses[unit.path] = _score_unit(unit, defaults, logged, settings, rows, judged)
    for item in output["items"]:
        if "turns" in item:
            item["summary"] = thread_summary([turn["status"] for turn in item["turns"]])
    sources = tuple(os.fspath(source) for source in (document, executions) if isinstance(source, (str, os.PathLike)))
    outcomes = pd.DataFrame(rows, columns=list(OUTCOME_COLUMNS))
    return DocumentCheck(output, outcomes, statuses, sources, matcher_name, totals)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _configured(record: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    return evaluators_of(defaults, record.get("evaluators") or {}, record.get("evaluators_mode"))


def _no_response(record: Mapping[str, Any]) -> bool:
    return (record.get("error") or {}).get("code") in NO_RESPONSE_CODES


def _turn(unit: Unit, logged: _Logged) -> Turn:
    record = unit.record
    return Turn(record.get("response"), record.get("expected_response"), _telemetry(unit, logged),
                _invoked_tools(unit, logged), record.get("prompt"), record.get("context"))


def _judge(
    all_units: list[Unit], defaults: Mapping[str, Any], logged: _Logged, judge: JudgeSettings | None, entailment: bool
) -> tuple[dict[tuple[str, str], dict[str, Any]], Totals | None]:
    """The score objects of the judged evaluators (and of RetrievalResult by entailment), by (unit, name), judged in one batch."""
    if judge is None:
        return {}, None
    from .checks.judged.base import Texts
    from .checks.judged.document import UnitToJudge, judge_document

    wanted = set(JUDGED) | ({"RetrievalResult"} if entailment else set())
    to_judge = []
    for unit in all_units:
        configured = {name: options for name, options in _configured(unit.record, defaults).items() if name in wanted}
        if not configured or _no_response(unit.record):
            continue
        turn = _turn(unit, logged)
        texts = Texts(turn.prompt, turn.response, turn.expected_response, turn.context, turn.telemetry)
        to_judge.append(UnitToJudge(unit.path, configured, texts))
    judged = judge_document(judge, to_judge, entailment=entailment)
    return judged.scores, judged.totals


def _arguments(
    document: Any, executions: Any, matcher: Any, partial_match_mode: Any, custom_evaluators: Any, judge: Any
) -> frozenset[str]:
    """Check the arguments of :func:`check_document` (each error names its argument); the custom names."""
    sources = (Mapping, str, os.PathLike)
    if not isinstance(document, sources):
        raise ConfigError(f"document must be a mapping or a path, got {type(document).__name__}")
    if executions is not None and not isinstance(executions, sources):
        raise ConfigError(
            f"executions must be a path or a mapping from item id to executions, got {type(executions).__name__}"
        )
    if isinstance(executions, Mapping) and not all(isinstance(key, str) for key in executions):
        key = next(key for key in executions if not isinstance(key, str))
        raise ConfigError(f"executions: the item ids are strings (extensions.id), got {key!r}")
    if judge is not None:
        from ..judging.settings import JudgeSettings

        if not isinstance(judge, JudgeSettings):
            raise ConfigError(f"judge must be JudgeSettings (or None: no judge), got {type(judge).__name__}")
    if matcher is not None and not callable(matcher):
        raise ConfigError(f"matcher must be callable (snippet, candidates) -> Verdict, got {type(matcher).__name__}")
    if not isinstance(partial_match_mode, str) or partial_match_mode not in PARTIAL_MATCH_MODES:
        modes = ", ".join(PARTIAL_MATCH_MODES)
        raise ConfigError(f"partial_match_mode must be one of {modes}, got {partial_match_mode!r}")
    if isinstance(custom_evaluators, str) or not isinstance(custom_evaluators, Collection):
        raise ConfigError(f"custom_evaluators must be a collection of names, got {type(custom_evaluators).__name__}")
    for name in custom_evaluators:
        if not isinstance(name, str):
            raise ConfigError(f"custom_evaluators: a name is a string, got {name!r}")
        if name in BUILT_IN:
            raise ConfigError(f"custom_evaluators: {name!r} is a built-in evaluator, not a custom one")
    return frozenset(custom_evaluators)


def _check_names(output: dict[str, Any], all_units: list[Unit], custom: frozenset[str], label: str | None) -> None:
    """Refuse a name close to a built-in evaluator's (:func:`~.checks.evaluators.near_miss`), unless declared custom."""
    maps = [("default_evaluators", output.get("default_evaluators"))]
    maps += [(f"{unit.path}.evaluators", unit.record.get("evaluators")) for unit in all_units]
    for where, evaluators in maps:
        for name in evaluators or {}:
            close = None if name in custom else near_miss(name)
            if close is not None:
                raise InputError(
                    f"unknown evaluator {name!r}{did_you_mean([close], after=' ')}(a custom evaluator of a name this "
                    "close to a built-in one is declared: custom_evaluators=, or --custom-evaluator)",
                    source=label,
                    field=f"{where}.{name}",
                )


@dataclass(frozen=True)
class _Logged:
    """What a log gives the items, by id: their executions, the tools they invoked, and every id it names."""

    executions: dict[str, Any] = field(default_factory=dict)
    tools: dict[str, list[str]] = field(default_factory=dict)
    ids: tuple[str, ...] = ()

    @classmethod
    def of(cls, executions: ExecutionSource | None) -> _Logged:
        if executions is None:
            return cls()
        if isinstance(executions, Mapping):
            return cls({key: load_executions(value) for key, value in executions.items()}, {}, tuple(executions))
        logged, ids = cls(), []
        for record in iter_execution_records(executions):
            if record.id is None:
                raise InputError(
                    "a record without an 'id'; records are matched to items by extensions.id",
                    source=os.fspath(executions),
                    row=record.line,
                )
            ids.append(record.id)
            if record.has_executions:
                logged.executions[record.id] = record.telemetry
            if record.invoked_tools is not None:
                logged.tools[record.id] = list(record.invoked_tools)
        return cls(logged.executions, logged.tools, tuple(ids))


def _score_unit(
    unit: Unit,
    defaults: Mapping[str, Any],
    logged: _Logged,
    settings: Settings,
    rows: list[dict[str, Any]],
    judged: Mapping[tuple[str, str], dict[str, Any]],
) -> str:
    record = unit.record
    configured = _configured(record, defaults)
    scores = dict(record.get("scores") or {})
    no_response = _no_response(record)
    turn = _turn(unit, logged)
    results: dict[str, str] = {}
    skipped = []
    for name, options in configured.items():
        key = score_key(name)
        if no_response:
            reason = f"the agent gave no response ({record['error']['code']})"
        else:
            reason = None if (unit.path, name) in judged else skip_reason(name)
        ran = reason is None
        if ran and (unit.path, name) in judged:
            scores[key] = judged[(unit.path, name)]
        elif ran:
            scores[key] = run_evaluator(name, options, turn, settings)
        else:
            skipped.append({"evaluator": name, "reason": reason})
        entry = scores.get(key) if isinstance(scores.get(key), Mapping) else None
        result = entry.get("result", "skipped") if entry is not None else "skipped"
        if result != "skipped" and not no_response:
            results[name] = result
        rows.append(
            {
                "unit": unit.path,
                "id": unit.id,
                "evaluator": name,
                "result": result,
                "diagnostic_code": entry.get("diagnostic_code") if entry is not None else None,
                "score": entry.get("score") if entry is not None else None,
                "ran": ran,
            }
        )
    if scores:
        record["scores"] = scores
    _note_skipped(record, skipped)
    if no_response:
        record["status"] = "error"
        return "error"
    status, error = turn_status(results)
    record["status"] = status
    if error is not None:
        record["error"] = error
    elif (record.get("error") or {}).get("code") == "evaluatorsFailed":
        del record["error"]  # an earlier run's verdict, now out of date
    return status


def _telemetry(unit: Unit, logged: _Logged) -> ExecutionsLike | None:
    diagnostics = unit.record.get("diagnostics") or {}
    if unit.id is not None and unit.id in logged.executions:
        telemetry = logged.executions[unit.id]
        unit.record["diagnostics"] = {**diagnostics, "retrieval_executions": _as_json(telemetry)}
        return telemetry
    return diagnostics if "retrieval_executions" in diagnostics else None


def _invoked_tools(unit: Unit, logged: _Logged) -> Any:
    diagnostics = unit.record.get("diagnostics") or {}
    if unit.id is not None and unit.id in logged.tools:
        unit.record["diagnostics"] = {**diagnostics, INVOKED_TOOLS: logged.tools[unit.id]}
        return logged.tools[unit.id]
    return diagnostics.get(INVOKED_TOOLS)


def _as_json(telemetry: Any) -> list[dict[str, Any]]:
    return [execution.model_dump(mode="json") for execution in load_executions(telemetry).retrieval_executions]


def _note_skipped(record: dict[str, Any], skipped: list[dict[str, str]]) -> None:
    extensions = record.get("extensions")
    if skipped:
        record["extensions"] = {**(extensions or {}), EXTENSION_KEY: {"skipped_evaluators": skipped}}
    elif isinstance(extensions, dict) and EXTENSION_KEY in extensions:
        # An earlier run's note, now out of date.
        record["extensions"] = {key: value for key, value in extensions.items() if key != EXTENSION_KEY}


def _check_ids(all_units: list[Unit], logged: _Logged, source: ExecutionSource | None) -> None:
    label = None if source is None or isinstance(source, Mapping) else os.fspath(source)
    ids = [unit.id for unit in all_units]
    repeated = sorted({key for key in ids if key is not None and ids.count(key) > 1})
    if logged.ids and repeated:
        raise InputError(f"items share the extensions.id {repeated[0]!r}, so log records cannot be matched to them")
    unknown = [key for key in logged.ids if key not in ids]
    if unknown:
        raise InputError(
            f"{len(unknown)} execution record(s) match no item's extensions.id, e.g. {unknown[:3]}", source=label
        )
    for unit in all_units:
        diagnostics = unit.record.get("diagnostics") or {}
        for key, by_id, what in (
            ("retrieval_executions", logged.executions, "retrieval executions"),
            (INVOKED_TOOLS, logged.tools, "invoked tools"),
        ):
            if unit.id in by_id and key in diagnostics:
                raise InputError(
                    f"item {unit.id!r} ({unit.path}) has {what} both in the document and in the log", source=label
                )
