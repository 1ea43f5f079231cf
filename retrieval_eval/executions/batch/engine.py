"""RetrievalQuery, RetrievalResult, KeywordMatch and ToolUse over many records at once, column-wise.

A *check plan* (:class:`CheckPlan`) lists the checks: one row per (record, evaluator), with the
evaluator's validated options as columns. :func:`run_checks` evaluates every row of a plan
against :class:`~.tables.ExecutionTables` together: Arrow compute and numpy for the joins,
filters and group-bys, numba kernels (:mod:`retrieval_eval.kernels.text.contains`) for containment
with a needle per row, and no Python loop over executions, queries, hits or extracts;
KeywordMatch and ToolUse read the records' responses and invoked tools (:mod:`.answer_checks`).
:func:`score_objects` turns its rows into the score objects of the per-item checks, equal key
for key to ``RetrievalQuery.run(options, telemetry)``, ``RetrievalResult.run(options,
telemetry)``, ``KeywordMatch.run(options, response)`` and ``ToolUse.run(options,
invoked_tools)``, reasons included (both paths build them with the same functions, and decide codes,
scopes and scores by the same rules, :mod:`..rules`).

Only the default matcher (casefolded containment) runs here. A custom
:class:`~..checks.matching.ExtractMatcher`, such as an entailment judge, is per-item only:
``RetrievalResult(..., matcher=...)``. ``max_rank`` and ``min_expected_count`` must fit in 64
bits here (a larger value gives the errored record; the per-item checks take any integer).
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...constraints import did_you_mean
from ...data.ids import read_only
from ...errors import ConfigError, InputError, RetrievalEvalError
from ...kernels.text.bundles import BestHits, HitCandidates, Needles
from ...kernels.text.contains import best_hits_in, contains_pairs
from ..checks.evaluator import errored
from ..checks.evaluators import near_miss
from ..checks.keyword_match import KeywordMatch, keyword_score
from ..checks.retrieval import RetrievalQuery, RetrievalResult, query_score, result_score
from ..checks.tool_use import ToolUse, tool_score
from ..rules import CODES, QUERY_CODES, RESULT_CODES, is_ok_status, is_retrieval_failure, result_score_value
from . import columns as col
from .answer_checks import KeywordChecks, ToolChecks
from .casefold import Haystacks
from .tables import ExecutionTables

EVALUATORS = {"RetrievalQuery": RetrievalQuery, "RetrievalResult": RetrievalResult, "KeywordMatch": KeywordMatch,
              "ToolUse": ToolUse}  # fmt: skip
_INT64_MAX = 2**63 - 1
_TERMS = pa.list_(pa.string())
_OPTIONS_SCHEMA = pa.schema(
    [
        ("evaluator", pa.string()),
        ("capability", pa.string()),
        ("selector", pa.string()),
        ("includes", _TERMS),
        ("excludes", _TERMS),
        ("max_rank", pa.int64()),
        ("min_expected_count", pa.int64()),
        ("expected_items", _TERMS),
        ("keywords", _TERMS),
        ("tools", _TERMS),
        ("mode", pa.string()),
        ("case_sensitive", pa.bool_()),
        ("word_boundaries", pa.bool_()),
        ("error", pa.string()),
    ]
)
PLAN_SCHEMA = pa.schema([("record", pa.int64()), *_OPTIONS_SCHEMA])
_MATCHED_ITEM = pa.struct(
    [("extractMatch", pa.string()), ("matchedHitUrl", pa.string()), ("matchedHitRank", pa.int64())]
)
RESULT_SCHEMA = pa.schema(
    [
        ("record", pa.int64()),
        ("evaluator", pa.string()),
        ("score", pa.float64()),
        ("result", pa.string()),
        ("diagnostic_code", pa.string()),
        ("error", pa.string()),
        ("capability", pa.string()),
        ("selector", pa.string()),
        ("max_rank", pa.int64()),
        ("min_expected_count", pa.int64()),
        ("failed_executions", pa.int64()),
        ("passing_query", pa.string()),
        ("matched_queries", _TERMS),
        ("includes_missing", _TERMS),
        ("excludes_found", _TERMS),
        ("results_evaluated", pa.int64()),
        ("matched_items", pa.list_(_MATCHED_ITEM)),
        ("missing_items", _TERMS),
        ("extract_failures", _TERMS),
        ("mode", pa.string()),
        ("matched_keywords", _TERMS),
        ("missing_keywords", _TERMS),
        ("matched_tools", _TERMS),
        ("missing_tools", _TERMS),
        ("invoked_tools", _TERMS),
    ]
)
_PASS = CODES.index("pass")


@dataclass(frozen=True)
class CheckPlan:
    """The checks to run: ``table`` has one row per (record, evaluator), with the schema :data:`PLAN_SCHEMA`.

    Columns: ``record`` (index into the records), ``evaluator`` (a name of :data:`EVALUATORS`),
    the options as validated (``capability``; RetrievalQuery's ``selector``, ``includes``,
    ``excludes``; RetrievalResult's ``max_rank``, ``min_expected_count`` (null: unset),
    ``expected_items`` (null: unset); KeywordMatch's ``keywords`` and ToolUse's ``tools``, with
    their ``mode`` and ``case_sensitive``, and KeywordMatch's ``word_boundaries``), and
    ``error``: null for valid options, else the message of their ConfigError (the option
    columns are then null).
    """

    table: pa.Table

    def __len__(self) -> int:
        return self.table.num_rows


def plan_checks(n_records: int, evaluators: Mapping[str, Any]) -> CheckPlan:
    """The plan running the evaluator map ``evaluators`` (name -> options) on each of ``n_records`` records.

    Raises
    ------
    ConfigError
        An evaluator is not one of :data:`EVALUATORS` (invalid options are not raised: they
        give the errored record, as ``run`` does).
    """
    rows = [_plan_row(name, options) for name, options in _evaluators(evaluators)]
    one = pa.Table.from_pylist(rows, schema=_OPTIONS_SCHEMA)
    table = one.take(np.tile(np.arange(len(rows), dtype=np.int64), n_records))
    records = np.repeat(np.arange(n_records, dtype=np.int64), len(rows))
    return CheckPlan(table.add_column(0, PLAN_SCHEMA.field("record"), pa.array(records)))


def plan_per_record(configs: Sequence[Mapping[str, Any]]) -> CheckPlan:
    """The plan running ``configs[i]`` (an evaluator map) on record ``i``; each distinct options object is validated once.

    Raises
    ------
    ConfigError
        As :func:`plan_checks`.
    """
    rows: list[dict[str, Any]] = []
    by_object: dict[tuple[str, int], int] = {}
    by_text: dict[tuple[str, str], int] = {}
    picks: list[int] = []
    records: list[int] = []
    for record, config in enumerate(configs):
        for name, options in _evaluators(config):
            # The same options object is usually shared by many records; equal copies are found by their JSON.
            position = by_object.get((name, id(options)))
            if position is None:
                text = _canonical(options)
                position = by_text.get((name, text)) if text is not None else None
                if position is None:
                    position = len(rows)
                    rows.append(_plan_row(name, options))
                    if text is not None:
                        by_text[name, text] = position
                by_object[name, id(options)] = position
            picks.append(position)
            records.append(record)
    table = pa.Table.from_pylist(rows, schema=_OPTIONS_SCHEMA).take(pa.array(picks, pa.int64()))
    return CheckPlan(table.add_column(0, PLAN_SCHEMA.field("record"), pa.array(records, pa.int64())))


def _evaluators(evaluators: Any) -> Any:
    if not isinstance(evaluators, Mapping):
        raise ConfigError(f"the evaluators must be an object (name -> options), got {type(evaluators).__name__}")
    return evaluators.items()


def _canonical(options: Any) -> str | None:
    # Key order is kept: it can decide which of several errors is reported.
    try:
        return json.dumps(options, allow_nan=True)
    except (TypeError, ValueError):
        return None


def _plan_row(name: str, options: Any) -> dict[str, Any]:
    check = EVALUATORS.get(name)
    if check is None:
        close = near_miss(name) if isinstance(name, str) else None
        hint = did_you_mean([] if close is None else [close], before="", after=" ")
        raise ConfigError(f"{name!r} cannot run on an execution log; {hint}the batch path runs {', '.join(EVALUATORS)}")
    try:
        parsed = check.from_options(options).options
    except RetrievalEvalError as exc:
        return {"evaluator": name, "error": str(exc)}
    if check in (KeywordMatch, ToolUse):
        return {"evaluator": name, **parsed.model_dump()}
    if check is RetrievalQuery:
        terms = {"includes": list(parsed.includes), "excludes": list(parsed.excludes)}
        return {"evaluator": name, "capability": parsed.capability, "selector": parsed.selector, **terms}
    for field in ("max_rank", "min_expected_count"):
        if (getattr(parsed, field) or 0) > _INT64_MAX:
            return {"evaluator": name, "error": f"{name}: option '{field}': the batch path takes values up to {_INT64_MAX}"}
    items = None if parsed.expected_items is None else list(parsed.expected_items)
    return {
        "evaluator": name,
        "capability": parsed.capability,
        "max_rank": parsed.max_rank,
        "min_expected_count": parsed.min_expected_count,
        "expected_items": items,
    }


def run_checks(tables: ExecutionTables, plan: CheckPlan) -> pa.Table:
    """Every check of ``plan`` on ``tables``: one row per plan row, in plan order (schema :data:`RESULT_SCHEMA`).

    Columns: ``record``, ``evaluator``; ``score`` (null when errored, and for KeywordMatch and
    ToolUse, which have none), ``result`` (``pass``, ``fail``, ``error``), ``diagnostic_code``
    (the retrieval checks'), ``error`` (the errored record's text); the inputs
    of the reason text (``capability``, ``selector``, ``max_rank``, ``min_expected_count``,
    ``failed_executions`` on a retrieval failure (0: no executions at all), ``passing_query``);
    RetrievalQuery's ``matched_queries``, ``includes_missing``, ``excludes_found`` and
    RetrievalResult's ``results_evaluated``, ``matched_items`` (``extractMatch``,
    ``matchedHitUrl``, ``matchedHitRank``), ``missing_items`` and ``extract_failures`` (the
    snippets); ``mode`` and KeywordMatch's ``matched_keywords``, ``missing_keywords``, ToolUse's
    ``matched_tools``, ``missing_tools``, ``invoked_tools``. A check's columns are null on the
    other checks' rows and on errored rows.
    """
    options = plan.table
    n = options.num_rows
    record = col.integers(options.column("record"))
    if n and (record.min() < 0 or record.max() >= tables.n_records):
        raise ConfigError(f"the plan names records outside the {tables.n_records} records of the tables")
    valid = col.booleans(options.column("error").is_null())
    evaluator = options.column("evaluator")
    is_query, is_result, is_keyword, is_tool = (
        valid & col.booleans(pc.equal(evaluator, name))
        for name in ("RetrievalQuery", "RetrievalResult", "KeywordMatch", "ToolUse")
    )
    if not np.all(is_query | is_result | is_keyword | is_tool | ~valid):
        raise ConfigError(f"the plan runs an evaluator other than {', '.join(EVALUATORS)}")
    layout = _Layout.of(tables)
    retrieval = is_query | is_result
    scope = _Scope.of(tables, layout, options, record, retrieval)
    query = _QueryChecks(tables, layout, options, scope, is_query)
    result = _ResultChecks(tables, layout, options, scope, is_result)
    keyword = KeywordChecks(tables.records.column("response"), options, record, is_keyword)
    tool = ToolChecks(tables.records.column("invoked_tools"), options, record, is_tool)
    code = np.where(is_query, query.code, result.code)
    # The answer checks' errors come from the records (no response, no invoked tools recorded).
    errors = pc.coalesce(options.column("error"), pa.array(np.where(is_keyword, keyword.error, tool.error), pa.string()))
    judged = col.booleans(errors.is_null())
    answer_passed = np.where(is_keyword, keyword.passed, tool.passed)
    passed = np.where(retrieval, code == _PASS, answer_passed)
    messages = pc.unique(errors).drop_null()
    texts = pa.array([errored(message)["error"] for message in messages.to_pylist()], pa.string())
    columns = {
        "record": pa.array(record),
        "evaluator": evaluator,
        "score": pa.array(np.where(is_query, query.score, result.score), mask=~retrieval),
        "result": pc.take(pa.array(["fail", "pass", "error"]), np.where(~judged, 2, passed)),
        "diagnostic_code": pc.take(pa.array(CODES), pa.array(code, mask=~retrieval)),
        "error": pc.take(texts, pc.index_in(errors, messages)),
        "capability": options.column("capability"),
        "selector": options.column("selector"),
        "max_rank": options.column("max_rank"),
        "min_expected_count": options.column("min_expected_count"),
        "failed_executions": pa.array(scope.own, mask=~scope.failure),
        "passing_query": query.passing,
        "matched_queries": query.matched,
        "includes_missing": query.includes_missing,
        "excludes_found": query.excludes_found,
        "results_evaluated": pa.array(result.count, mask=~is_result),
        "matched_items": result.matched,
        "missing_items": result.missing,
        "extract_failures": result.failures,
        "mode": pc.if_else(pa.array(judged & (is_keyword | is_tool)), options.column("mode"), None),
        "matched_keywords": keyword.matched,
        "missing_keywords": keyword.missing,
        "matched_tools": tool.matched,
        "missing_tools": tool.missing,
        "invoked_tools": tool.invoked,
    }
    return pa.table(columns, schema=RESULT_SCHEMA)


def score_objects(result: pa.Table) -> list[dict[str, Any]]:
    """The score object of each row of a :func:`run_checks` result, as the per-item check's ``run`` gives it."""
    with _collection_paused():
        columns = [result.column(name).to_pylist() for name in _ScoreRow._fields]
        return [_score_object(row) for row in map(_ScoreRow._make, zip(*columns))]


class _ScoreRow(NamedTuple):
    """The columns of a result row that its score object is made of."""

    evaluator: str
    result: str
    error: str | None
    diagnostic_code: str | None
    capability: str | None
    selector: str | None
    failed_executions: int | None
    passing_query: str | None
    matched_queries: list[str] | None
    includes_missing: list[str] | None
    excludes_found: list[str] | None
    max_rank: int | None
    min_expected_count: int | None
    results_evaluated: int | None
    matched_items: list[dict[str, Any]] | None
    missing_items: list[str] | None
    mode: str | None
    matched_keywords: list[str] | None
    missing_keywords: list[str] | None
    matched_tools: list[str] | None
    missing_tools: list[str] | None
    invoked_tools: list[str] | None


def _score_object(row: _ScoreRow) -> dict[str, Any]:
    if row.result == "error":
        return {"result": "error", "error": row.error}
    if row.evaluator == "KeywordMatch":
        return keyword_score(row.mode, row.matched_keywords, row.missing_keywords)
    if row.evaluator == "ToolUse":
        return tool_score(row.mode, row.matched_tools, row.missing_tools, row.invoked_tools)
    if row.evaluator == "RetrievalQuery":
        return query_score(
            row.diagnostic_code,
            capability=row.capability,
            selector=row.selector,
            failed=row.failed_executions,
            matched=row.matched_queries,
            includes_missing=row.includes_missing,
            excludes_found=row.excludes_found,
            passing=row.passing_query,
        )
    return result_score(
        row.diagnostic_code,
        capability=row.capability,
        max_rank=row.max_rank,
        minimum=row.min_expected_count,
        failed=row.failed_executions,
        count=row.results_evaluated,
        matched=row.matched_items,
        missing=[{"extractMatch": snippet} for snippet in row.missing_items],
    )


@contextmanager
def _collection_paused() -> Iterator[None]:
    # Millions of new dicts and lists, none in a cycle, would make the cyclic garbage collector scan
    # the growing heap again and again (more than half the time); it is switched back on after.
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


# -- evaluation -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layout:
    """Where each parent's children are: ``offsets[p]:offsets[p + 1]`` (children are in parent order)."""

    executions: np.ndarray  # per record
    queries: np.ndarray  # per execution
    hits: np.ndarray  # per execution
    extracts: np.ndarray  # per hit
    rank: np.ndarray

    @classmethod
    def of(cls, tables: ExecutionTables) -> _Layout:
        n_executions, n_hits = tables.executions.num_rows, tables.hits.num_rows
        rank = col.integers(tables.hits.column("rank"))
        if rank.size and rank.min() < 1:
            raise InputError("ranks are 1-based", field="hits.rank")
        return cls(
            col.parent_offsets(tables.executions.column("record"), tables.n_records, "executions.record"),
            col.parent_offsets(tables.queries.column("execution"), n_executions, "queries.execution"),
            col.parent_offsets(tables.hits.column("execution"), n_executions, "hits.execution"),
            col.parent_offsets(tables.extracts.column("hit"), n_hits, "extracts.hit"),
            rank,
        )


@dataclass(frozen=True)
class _Scope:
    """*E* of each check as (check, execution) pairs in check then execution order, and the retrieval failures.

    ``own`` counts each check's executions of its capability (OK or not).
    """

    rows: np.ndarray
    executions: np.ndarray
    failure: np.ndarray
    own: np.ndarray

    @classmethod
    def of(
        cls, tables: ExecutionTables, layout: _Layout, options: pa.Table, record: np.ndarray, valid: np.ndarray
    ) -> _Scope:
        n = len(record)
        checks = np.flatnonzero(valid)
        starts = layout.executions[record[checks]]
        owner, execution = col.expand(starts, layout.executions[record[checks] + 1] - starts)
        row = checks[owner]
        capabilities = pc.unique(options.column("capability").drop_null())
        wanted = col.codes(options.column("capability"), capabilities)
        own = col.codes(tables.executions.column("capability"), capabilities)[execution] == wanted[row]
        ok = own & _ok_statuses(tables.executions.column("status"))[execution]
        n_own = np.bincount(row[own], minlength=n)
        n_ok = np.bincount(row[ok], minlength=n)
        recorded = np.diff(layout.executions)[record]
        failure = valid & is_retrieval_failure(recorded, n_own, n_ok)
        return cls(row[ok], execution[ok], failure, n_own)

    def children(self, rows: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The (check, child) pairs of the checks marked in ``rows``: every child (query or hit, as
        ``offsets`` per execution says) of each of their executions in *E*, in check then execution
        then child order."""
        pick = rows[self.rows]
        executions = self.executions[pick]
        owner, child = col.expand(offsets[executions], offsets[executions + 1] - offsets[executions])
        return self.rows[pick][owner], child


class _QueryChecks:
    """The RetrievalQuery rows: ``code`` and ``score`` (arrays over all rows) and the output columns."""

    def __init__(
        self, tables: ExecutionTables, layout: _Layout, options: pa.Table, scope: _Scope, rows: np.ndarray
    ) -> None:
        n = len(rows)
        row, query = scope.children(rows, layout.queries)
        strings = tables.queries.column("queryString")
        nonempty = col.booleans(pc.greater(pc.binary_length(strings), 0))[query]
        row, query = row[nonempty], query[nonempty]
        queries = col.Folded.of(strings) if len(query) else col.Folded.empty()
        selectors = col.Folded.of(options.column("selector"))
        matched = contains_pairs(*queries.buffers, read_only(query), *selectors.buffers, read_only(row))
        # The matched queries, in check then execution then query order.
        row, query = row[matched], query[matched]
        n_matched = np.bincount(row, minlength=n)
        includes, excludes = col.TermLists(options.column("includes")), col.TermLists(options.column("excludes"))
        missing_owner, missing_term = includes.pairs(row, queries, query, contained=False)
        found_owner, found_term = excludes.pairs(row, queries, query, contained=True)
        good = np.ones(len(row), dtype=bool)
        good[missing_owner] = good[found_owner] = False
        passing = col.first_per_row(row, np.flatnonzero(good))
        has_pass = np.zeros(n, dtype=bool)
        has_pass[row[passing]] = True
        failing = ~has_pass & (n_matched > 0)
        missing_row, missing = col.sorted_unique(row[missing_owner], includes.values.take(missing_term), failing)
        found_row, found = col.sorted_unique(row[found_owner], excludes.values.take(found_term), failing)
        n_missing, n_found = np.bincount(missing_row, minlength=n), np.bincount(found_row, minlength=n)
        self.code = QUERY_CODES.select(
            CODES, failure=scope.failure, no_match=n_matched == 0, passed=has_pass, missing=n_missing > 0, found=n_found > 0
        )
        self.score = (self.code == _PASS).astype(np.float64)
        position = np.full(n, -1, dtype=np.int64)
        position[row[passing]] = np.arange(len(passing))
        self.passing = col.take(strings, query[passing]).take(pa.array(position, mask=position < 0))
        self.matched = col.lists(n, row, col.take(strings, query), rows, _TERMS)
        # With no matched query (or no telemetry), includes_missing is the includes as configured.
        configured_row, configured = includes.all_of(np.flatnonzero(rows & (n_matched == 0)))
        self.includes_missing = col.lists(
            n,
            np.concatenate([configured_row, missing_row]),
            pa.concat_arrays([configured, missing]),
            rows,
            _TERMS,
        )
        self.excludes_found = col.lists(n, found_row, found, rows, _TERMS)


class _ResultChecks:
    """The RetrievalResult rows: ``code``, ``score`` and ``count`` (arrays over all rows) and the output columns."""

    def __init__(
        self, tables: ExecutionTables, layout: _Layout, options: pa.Table, scope: _Scope, rows: np.ndarray
    ) -> None:
        n = len(rows)
        row, hit = scope.children(rows, layout.hits)
        candidate = layout.rank[hit] <= col.integers(options.column("max_rank"))[row]
        row, hit = row[candidate], hit[candidate]  # the candidates, in check then execution then hit order
        self.count = np.bincount(row, minlength=n)
        items = col.TermLists(options.column("expected_items"))
        item_row, snippets = items.all_of(np.flatnonzero(rows))
        best = np.full(len(item_row), -1, dtype=np.int64)
        if len(item_row) and len(hit):
            best = _best_hits(tables, layout, hit, self.count, item_row, snippets)
        found = best >= 0
        n_items, n_matched = np.bincount(item_row, minlength=n), np.bincount(item_row[found], minlength=n)
        urls = pc.fill_null(col.take(tables.hits.column("webUrl"), best[found]), "")
        matched = pa.StructArray.from_arrays(
            [snippets.filter(pa.array(found)), urls, pa.array(layout.rank[best[found]])],
            fields=list(_MATCHED_ITEM),
        )
        self.matched = col.lists(n, item_row[found], matched, rows, pa.list_(_MATCHED_ITEM))
        missing = ~found & ~scope.failure[item_row]
        self.missing = col.lists(n, item_row[missing], snippets.filter(pa.array(missing)), rows, _TERMS)
        # Every candidate was searched, so a missing item is an extract failure when there were candidates.
        failures = missing & (self.count[item_row] > 0)
        self.failures = col.lists(n, item_row[failures], snippets.filter(pa.array(failures)), rows, _TERMS)
        count_passed = self.count >= col.integers(options.column("min_expected_count"))
        self.code = RESULT_CODES.select(
            CODES,
            failure=scope.failure,
            no_items=n_items == 0,
            count_passed=count_passed,
            no_candidates=self.count == 0,
            all_found=n_matched == n_items,
        )
        passed, not_retrieved = self.code == _PASS, self.code == CODES.index("not_retrieved")
        self.score = result_score_value(passed, not_retrieved, n_matched, n_items)


def _best_hits(
    tables: ExecutionTables, layout: _Layout, hit: np.ndarray, count: np.ndarray, item_row: np.ndarray, snippets: pa.Array
) -> np.ndarray:
    """For each expected snippet, the best-ranked candidate hit with an extract containing it (-1: none).

    ``hit`` are the candidates, ``count[r]`` of them for plan row ``r``, in row order; snippet
    ``i`` belongs to row ``item_row[i]`` (ascending).
    """
    n = len(count)
    candidates = read_only(np.concatenate([[0], np.cumsum(count)]))
    needles = read_only(np.concatenate([[0], np.cumsum(np.bincount(item_row, minlength=n))]))
    folded = col.Folded.of(snippets).buffers
    best = np.full(len(item_row), -1, dtype=np.int64)
    best_rank, best_candidate = np.zeros_like(best), np.full_like(best, -1)
    hits = HitCandidates(candidates, read_only(hit), layout.rank, layout.extracts)
    found = BestHits(best, best_rank, best_candidate)
    for buffer in Haystacks.of(tables.extracts.column("text")).buffers:
        best_hits_in(hits, buffer, Needles(needles, *folded), found)
    return best


def _ok_statuses(statuses: pa.ChunkedArray) -> np.ndarray:
    # Decided once per distinct status, by the per-item rule itself.
    distinct = pc.unique(statuses)
    verdicts = np.array([is_ok_status(status) for status in distinct.to_pylist()], dtype=bool)
    return verdicts[col.codes(statuses, distinct)]
