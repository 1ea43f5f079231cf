"""pytrec_eval's interface on retrieval_eval's core: change one import line and keep the rest of the code.

::

    from retrieval_eval.compat.pytrec_eval import RelevanceEvaluator   # was: from pytrec_eval import ...

    evaluator = RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P"})  # qrels indexed once
    per_query = evaluator.evaluate(run)   # {"q1": {"map": 0.25, "P_5": 0.2, ..., "ndcg_cut_10": 0.61}, ...}

The module holds pytrec_eval's public names (pytrec_eval-terrier 0.5.11, which is trec_eval 9.0
in C): :class:`RelevanceEvaluator`, :data:`supported_measures`, :data:`supported_nicknames`,
:func:`compute_aggregated_measure`, :func:`parse_qrel` and :func:`parse_run`. It needs neither
pytrec_eval nor a C compiler.

The same as pytrec_eval:

- Input: ``{query_id: {doc_id: relevance}}`` and ``{query_id: {doc_id: score}}`` with str ids, int
  labels and int or float scores (a bool is an int); a value of another type (bytes ids, float or
  str labels, str or None scores) is a :class:`TypeError`, as in pytrec_eval's C code.
- Measures: :data:`supported_measures` (trec_eval 9's ``all_trec``) and :data:`supported_nicknames`,
  with parameters written ``P.5,10`` or ``P_5``. The parameters given for one measure are merged
  as pytrec_eval merges them: the union of their texts, sorted as text (``{"P", "P_5"}`` is P at 5
  only, ``{"P_5", "P.10"}`` at 5 and 10; ``utility.4,3,2,1`` has the coefficients 1, 2, 3, 4);
  cut-offs are read as C's ``atol`` reads them (``P_1.5`` is ``P_1``); parameters of a measure
  that takes none are ignored (``map_5`` is ``map``). A name that is none of these is a
  :class:`ValueError` ("unsupported measure ...").
- Output: ``{query_id: {name: float}}`` for the run's queries that have judgments, in the run's
  order; per query the measures in trec_eval's table order, cut-offs and recall levels as trec_eval
  prints them (``P_5``, ``iprec_at_recall_0.50``, ``Rprec_mult_0.20``), other measures by their bare
  name even with parameters (``ndcg``, ``11pt_avg``, ``set_F``, ``utility``); counts as floats;
  ``gm_map`` and ``gm_bpref`` as pytrec_eval reports them per query, ``log(max(value, 1e-5))`` (the
  terms of the geometric mean); ``num_q`` 1.0, ``runid`` and ``relstring`` 0.0 (pytrec_eval's
  constant values for measures that are not per-query numbers).
- Queries: a qrels query with an empty dict has no judgments (it is dropped); a run query without
  judgments is skipped; a judged query the run lacks is absent from the output; a judged query
  whose dict is empty is scored as retrieving nothing.
- Ranking: by score descending, ties by document id descending (bytes), each score first rounded
  to the nearest float32, as pytrec_eval holds it (``score_precision``, below).
- ``relevance_level`` and ``judged_docs_only_flag`` are trec_eval's ``-l`` and ``-J``; the values are
  trec_eval's arithmetic, to the bit (retrieval_eval's core reproduces trec_eval 10).

Scores in 32 bits. trec_eval 9 keeps a score in a C ``float`` (its own text reader does too), so
two scores that differ only beyond float32's 24 bits tie there and the tie goes to the larger
document id; trec_eval 10 and retrieval_eval's own API rank the float64 scores. The drop-in
rounds to float32 by default (``score_precision="float32"``), because its job is to leave the
numbers of the code it replaces unchanged: the rounding is the ranking of the trec_eval version
pytrec_eval embeds, not an accident of the binding; a tie it creates reorders the documents and
so changes every measure of that query, not one; and it costs one cast.
``score_precision="float64"`` ranks the scores as given, which gives trec_eval 10's numbers.

Where this differs from pytrec_eval (each difference is tested):

- ``iprec_at_recall`` and ``11pt_avg`` follow trec_eval 10: recall level x is reached at the
  ``lround(x R)``-th relevant document, where trec_eval 9 (pytrec_eval) truncated ``x R + 0.9``;
  they differ where the fraction of ``x R`` lies in [0.1, 0.5) (R = 2, x = 0.6: the 1st relevant
  document here, the 2nd there). trec_eval 10 made the change ("int truncation to round").
- Errors where pytrec_eval has undefined behaviour: a NaN score is an
  :class:`~retrieval_eval.errors.InputError` naming the query and document (pytrec_eval ranks it
  arbitrarily); parameters trec_eval cannot read are a
  :class:`~retrieval_eval.errors.ConfigError` naming the measure as written (``ndcg_10``,
  ``P.0``, cut-offs that repeat once read, ``utility`` without four distinct coefficients:
  pytrec_eval aborts the process or prints an error and returns 0.0); a relevance level below 1 is
  a :class:`TypeError` (pytrec_eval raises it for 0 and reads a negative level as 2^32 + level).
  A recall level above 1 (``iprec_at_recall.1.5``, always 0.0 in trec_eval) is a ConfigError too.
- Defined answers where pytrec_eval has none: a judged query whose labels are all negative and a
  judged query with an empty dict are scored (pytrec_eval reads uninitialised memory for the
  first and may crash on the first such query of a process); ``runid`` with parameters is 0.0.
- ``evaluate()`` of anything but a dict is a :class:`TypeError` (pytrec_eval returns ``{}`` for
  any falsy argument: ``None``, ``[]``); ids are compared whole (C strings end at a NUL); numpy's
  numbers (``np.int64`` labels, ``np.float32`` scores) are taken as the Python numbers they equal
  (pytrec_eval refuses them with a :class:`TypeError`).
- Errors name the query and the document (pytrec_eval's ``evaluate`` says "Unable to extract
  query/object scores."); each :class:`TypeError` raised here is also a
  :class:`~retrieval_eval.errors.RetrievalEvalError`.
- No global state: evaluators with different parameters, and threads, do not interfere.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import math
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from ..constraints import check_choice
from ..data.ids import QueryGroups
from ..errors import ConfigError, DuplicateError, InputError, UnknownMetricError

# arrow_array, not pa.array, for numpy arrays: pa.array of one imports pandas (0.2-0.5 s) to check for a Series.
from ..io.arrays import arrow_array, numpy_view, read_only, text_array
from ..metrics.evaluator import EvaluationPlan, Evaluator
from ..metrics.options import EvaluationOptions
from ..metrics.result import GEOMETRIC_FLOOR
from ..metrics.spellings.trec_eval import CUTOFFS, GEOMETRIC, LEVELS, MEASURES, NICKNAMES, select

if TYPE_CHECKING:
    from ..metrics.names import Metric

__all__ = [
    "ArgumentTypeError",
    "DataTypeError",
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
    "supported_measures",
    "supported_nicknames",
]

#: The measures trec_eval 10 added to its nicknames (its CHANGELOG): pytrec_eval, trec_eval 9, lacks them.
_ADDED_IN_TREC_EVAL_10 = frozenset({"rbp", "rbp_resid", "unj"})
#: pytrec_eval's nicknames (trec_eval 9's): trec_eval 10's without the measures it added.
supported_nicknames: Mapping[str, frozenset[str]] = MappingProxyType(
    {nickname: frozenset(names) - _ADDED_IN_TREC_EVAL_10 for nickname, names in NICKNAMES.items()}
)
#: The measures pytrec_eval computes: trec_eval 9's ``all_trec``.
supported_measures: frozenset[str] = supported_nicknames["all_trec"]

#: pytrec_eval's grammar of parameters after a measure's name (``P.5,10``, ``P_5``, ``iprec_at_recall.0.5``):
#: matched at the start of the name only, so text after the parameters is ignored, as there.
_PARAMETERS = re.compile(
    "(?P<measure>" + "|".join(map(re.escape, sorted(supported_measures, key=len, reverse=True))) + ")"
    r"[._](?P<parameters>[0-9]+(?:\.[0-9]+)?(?:,[0-9]+(?:\.[0-9]+)?)*)"
)
#: What pytrec_eval reports for its measures that are not per-query numbers: runid and relstring
#: read a buffer zeroed before each measure, num_q counts the query.
_CONSTANTS = {"runid": 0.0, "relstring": 0.0, "num_q": 1.0}
#: Where each measure stands in trec_eval's table, the order of the output's keys.
_TABLE_ORDER = {measure.name: index for index, measure in enumerate(MEASURES)}
SCORE_PRECISIONS = ("float32", "float64")


class DataTypeError(InputError, TypeError):
    """A qrels or run dict holds a value of a type pytrec_eval refuses (a :class:`TypeError` there too)."""


class ArgumentTypeError(ConfigError, TypeError):
    """An argument of a type (or, for ``relevance_level``, a value) pytrec_eval refuses with a :class:`TypeError`."""


@dataclass(frozen=True)
class _Column:
    """One key of each query's output: the metric behind it, or pytrec_eval's constant."""

    key: str
    metric: Metric | None
    constant: float = 0.0
    geometric: bool = False


@dataclass(frozen=True, eq=False)
class _Nested:
    """A ``{query_id: {doc_id: value}}`` dict as a canonical table: the query ids as given and as Arrow,
    each query's number of rows, and the grouping of the rows by query (the queries with rows)."""

    query_ids: list[str]
    names: pa.Array
    sizes: np.ndarray
    table: pa.Table
    groups: QueryGroups


class RelevanceEvaluator:
    """pytrec_eval's ``RelevanceEvaluator``: qrels indexed and measures resolved once, any number of runs scored.

    Parameters
    ----------
    query_relevance
        ``{query_id: {doc_id: relevance}}``: str ids, int relevance labels.
    measures
        A set or list of names from :data:`supported_measures`, nicknames from
        :data:`supported_nicknames` (``official``, ``all_trec``, ...), with parameters as
        ``P.5,10``, ``P_5`` or ``ndcg_cut.10`` (merged per measure as pytrec_eval merges them).
    relevance_level
        A label at or above it is relevant (trec_eval's ``-l``); an int >= 1.
    judged_docs_only_flag
        Rank only the documents the qrels judge (trec_eval's ``-J``); any int, as in pytrec_eval.
    score_precision
        ``"float32"`` (default): each score is rounded to float32 before ranking, as pytrec_eval
        holds it; ``"float64"``: ranked as given, as trec_eval 10 (see the module docstring).

    Examples
    --------
    >>> evaluator = RelevanceEvaluator({"q1": {"d1": 1, "d2": 0}}, {"map", "P.1,2", "num_ret"})
    >>> evaluator.evaluate({"q1": {"d1": 0.5, "d2": 0.9}, "q9": {"d1": 1.0}})
    {'q1': {'num_ret': 2.0, 'map': 0.5, 'P_1': 0.0, 'P_2': 0.5}}

    Scores 1.0 and 1.0 + 1e-9 are one float32: a tie, which goes to the larger document id.

    >>> tied = {"q1": {"d1": 1.0 + 1e-9, "d2": 1.0}}
    >>> RelevanceEvaluator({"q1": {"d1": 1}}, ["recip_rank"]).evaluate(tied)
    {'q1': {'recip_rank': 0.5}}
    >>> RelevanceEvaluator({"q1": {"d1": 1}}, ["recip_rank"], score_precision="float64").evaluate(tied)
    {'q1': {'recip_rank': 1.0}}
    """

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
        *,
        score_precision: str = "float32",
    ) -> None:
        from ..data import Qrels

        level = _relevance_level(relevance_level)
        judged_only = _flag(judged_docs_only_flag)
        check_choice("score_precision", score_precision, SCORE_PRECISIONS, bracketed=True)
        self._float32 = score_precision == "float32"
        self._columns = _columns(_requests(measures), level)
        nested = _nested(query_relevance, "qrels", _LABELS)
        self._judged = frozenset(query for query, size in zip(nested.query_ids, nested.sizes.tolist()) if size)
        metrics = list(dict.fromkeys(column.metric for column in self._columns if column.metric is not None))
        self._evaluator: Evaluator | None = None
        self._empty_rankings: Evaluator | None = None
        if metrics and self._judged:
            options = EvaluationOptions(
                rel_level=level, judged_only=judged_only, query_set="both", run_duplicates="raise", qrels_duplicates="raise"
            )
            qrels = Qrels(nested.table, source="qrels", duplicates="raise", queries=nested.groups)
            self._evaluator = Evaluator(qrels, metrics, options=options)

    def __repr__(self) -> str:
        keys = [column.key for column in self._columns]
        shown = ", ".join(keys[:6]) + (f", ... ({len(keys)} values)" if len(keys) > 6 else "")
        return f"RelevanceEvaluator(judged_queries={len(self._judged)}, measures=[{shown}])"

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """Score a run: ``{query_id: {measure: value}}`` for its queries that have judgments, in its order.

        ``scores``: ``{query_id: {doc_id: score}}``, str ids, int or float scores (not NaN).
        """
        nested = _nested(scores, "run", _SCORES)
        chosen = np.array([position for position, query in enumerate(nested.query_ids) if query in self._judged], dtype=np.int64)
        query_ids = [nested.query_ids[position] for position in chosen.tolist()]
        values = np.empty((len(query_ids), len(self._columns)))
        if self._evaluator is not None and query_ids:
            self._fill(values, self._scored(self._evaluator, nested, chosen))
        for index, column in enumerate(self._columns):
            if column.metric is None:
                values[:, index] = column.constant
        keys = [column.key for column in self._columns]
        return {query: dict(zip(keys, row)) for query, row in zip(query_ids, values.tolist())}

    def _scored(self, evaluator: Evaluator, nested: _Nested, chosen: np.ndarray) -> dict[Metric, np.ndarray]:
        """Each metric's values for the run's queries at positions ``chosen``; an empty dict's are of an empty ranking."""
        from ..data import Run
        from ..data.join import align_to

        table = nested.table
        if self._float32:
            table = table.set_column(2, "score", arrow_array(_float32(numpy_view(table["score"]))))
        run = Run(table, source="run", name="run", queries=nested.groups)
        columns = evaluator.score(run, align_to(nested.names.take(arrow_array(chosen)), evaluator.qrels, run))
        empty = nested.sizes[chosen] == 0
        if empty.any():
            # trec_eval 10 scores a judged query the run lacks against a stand-in document; with no
            # document ranked at all (max_docs=0) that is exactly the empty ranking pytrec_eval scores.
            blank = self._blank_rankings(evaluator)
            lacking = nested.names.take(arrow_array(chosen[empty]))
            nothing = Run(table.slice(0, 0), source="run", name="run")
            for metric, values in blank.score(nothing, align_to(lacking, blank.qrels, nothing)).items():
                merged = columns[metric].copy()
                merged[empty] = values
                columns[metric] = merged
        return columns

    def _blank_rankings(self, evaluator: Evaluator) -> Evaluator:
        """``evaluator``'s plan with every ranking empty, over its qrels (built on first use)."""
        if self._empty_rankings is None:
            options = dataclasses.replace(evaluator.plan.options, max_docs=0)
            plan = EvaluationPlan.resolve(evaluator.plan.metrics, None, options)
            self._empty_rankings = Evaluator.from_plan(plan, evaluator.qrels)
        return self._empty_rankings

    def _fill(self, values: np.ndarray, columns: Mapping[Metric, np.ndarray]) -> None:
        """``values[:, j]``: column j's metric for each query (the log of its floored value for gm_map, gm_bpref)."""
        for index, column in enumerate(self._columns):
            if column.metric is None:
                continue
            column_values = columns[column.metric]
            if column.geometric:
                # The C library's log, which trec_eval's gm_map and gm_bpref call.
                column_values = list(map(math.log, np.maximum(column_values, GEOMETRIC_FLOOR).tolist()))
            values[:, index] = column_values


def compute_aggregated_measure(measure: str, values: Iterable[float]) -> float:
    """The mean over queries as pytrec_eval computes it from the per-query values of ``evaluate``.

    A measure named ``num_*`` is summed, ``gm_*`` (whose per-query values are logs) is the
    geometric mean ``exp(sum / n)``, any other is the arithmetic mean; with numpy's reductions,
    as pytrec_eval's, so that the means are the same floats.
    """
    values = list(values)
    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """TREC qrels lines ``query_id iteration doc_id relevance`` as ``{query_id: {doc_id: relevance}}``.

    As pytrec_eval's (a ``defaultdict``); a line without 4 fields, a relevance that is not an int
    and a document judged twice in a query are an :class:`~retrieval_eval.errors.InputError`
    naming the line (pytrec_eval asserts the last, which ``python -O`` skips).
    """
    return _parse_lines(f_qrel, "qrels", ("query_id", "iteration", "doc_id", "relevance"), int)


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """TREC run lines ``query_id Q0 doc_id rank score tag`` as ``{query_id: {doc_id: score}}``.

    As pytrec_eval's (the rank and the tag are ignored); errors as :func:`parse_qrel`'s.
    """
    return _parse_lines(f_run, "run", ("query_id", "Q0", "doc_id", "rank", "score", "tag"), float)


def _parse_lines(lines: Iterable[str], kind: str, fields: tuple[str, ...], convert: type) -> dict[str, dict[str, Any]]:
    source = str(getattr(lines, "name", kind))
    nested: dict[str, dict[str, Any]] = collections.defaultdict(dict)
    for number, line in enumerate(lines, 1):
        parts = line.split()
        if len(parts) != len(fields):
            raise InputError(f"expected {len(fields)} fields ({' '.join(fields)}), got {len(parts)}", source=source, row=number)
        query_id, doc_id, value = parts[0], parts[2], parts[-2 if kind == "run" else -1]
        docs = nested[query_id]
        if doc_id in docs:
            raise DuplicateError(f"query {query_id!r}: document {doc_id!r} is given twice", source=source, row=number)
        try:
            docs[doc_id] = convert(value)
        except ValueError:
            name = fields[-2 if kind == "run" else -1]
            raise InputError(f"{value!r} is not {'an int' if convert is int else 'a number'}", source=source,
                             row=number, field=name) from None
    return nested


def _requests(measures: Iterable[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The measures as pytrec_eval hands them to trec_eval, in trec_eval's table order, each with the spellings behind it.

    ``name`` or ``name.p1,p2``: nicknames expand to their measures; the parameter texts given for
    one measure are merged (union, sorted as text); a measure given with and without parameters
    takes the parameters.
    """
    if isinstance(measures, (str, bytes)):
        raise ConfigError(f"measures is the string {measures!r}: give a set or list of names, such as {{{measures!r}}}")
    if not isinstance(measures, Iterable):
        raise ArgumentTypeError(f"measures must be a set or list of measure names, got {type(measures).__name__}")
    parameters: dict[str, set[str]] = {}
    spellings: dict[str, list[str]] = {}
    for given in measures:
        if not isinstance(given, str):
            raise ArgumentTypeError(f"measure names are str, got {given!r} ({type(given).__name__})")
        for name in sorted(supported_nicknames.get(given, (given,))):
            if name in supported_measures:
                base, texts = name, set()
            else:
                match = _PARAMETERS.match(name)
                if match is None:
                    raise UnknownMetricError(
                        f"unsupported measure {name}: not in pytrec_eval's supported_measures or supported_nicknames "
                        "(parameters follow the name: P.5,10 or P_5)"
                    )
                base, texts = match["measure"], set(match["parameters"].split(","))
            parameters.setdefault(base, set()).update(texts)
            spellings.setdefault(base, []).append(given)
    return tuple(
        (f"{base}.{','.join(sorted(parameters[base]))}" if parameters[base] else base, tuple(dict.fromkeys(spellings[base])))
        for base in sorted(parameters, key=_TABLE_ORDER.__getitem__)
    )


@functools.lru_cache(maxsize=64)
def _columns(requests: tuple[tuple[str, tuple[str, ...]], ...], level: int) -> tuple[_Column, ...]:
    """Each output key, from the merged requests (in trec_eval's table order); cached, as evaluators are
    often made again and again with the same measures (resolving names costs milliseconds)."""
    columns = []
    for text, spelled in requests:
        try:
            values = select([text], rel_level=level).values
        except ConfigError as error:
            shown = ", ".join(map(repr, spelled))
            raise ConfigError(f"measure {shown} (given to trec_eval as {text!r}): {error}") from None
        for value in values:
            measure = value.measure
            key = value.name if measure.params in (CUTOFFS, LEVELS) else measure.name
            if value.metric is None:
                columns.append(_Column(key, None, _CONSTANTS[measure.name]))
            else:
                columns.append(_Column(key, value.metric, geometric=measure.summary == GEOMETRIC))
    return tuple(columns)


def _relevance_level(value: Any) -> int:
    """pytrec_eval's ``relevance_level``: an int (bool, numpy integers) of at least 1."""
    try:
        level = operator.index(value)
    except TypeError:
        raise ArgumentTypeError(f"relevance_level must be an int, got {value!r}") from None
    if level < 1:
        raise ArgumentTypeError(f"relevance_level must be at least 1 (pytrec_eval: 'should be positive'), got {level}")
    return level


def _flag(value: Any) -> bool:
    """pytrec_eval's ``judged_docs_only_flag``: any int, true when not 0."""
    try:
        return operator.index(value) != 0
    except TypeError:
        raise ArgumentTypeError(f"judged_docs_only_flag must be True/False or an int, got {value!r}") from None


@dataclass(frozen=True)
class _ValueKind:
    """One side's inner values: their column, the Python types taken, the numpy kinds they may arrive as, the dtype."""

    column: str
    accepted: tuple[type, ...]
    kinds: str
    dtype: type


# Python's and numpy's numbers, held exactly (a bool is an int); numpy's are refused by pytrec_eval.
_LABELS = _ValueKind("relevance", (int, np.integer, np.bool_), "iub", np.int64)
_SCORES = _ValueKind("score", (int, float, np.integer, np.floating, np.bool_), "iubf", np.float64)
_MAX_LABEL = np.iinfo(np.int64).max


def _nested(nested: Any, side: str, kind: _ValueKind) -> _Nested:
    """``{query_id: {doc_id: value}}`` as a table grouped by query; errors name the query and the document.

    No Python work per row but gathering the ids and values into two lists: Arrow checks that the
    document ids are str, numpy that the values are numbers, and only a failure is looked into.
    """
    if not isinstance(nested, Mapping):
        raise DataTypeError(f"expected a dict {{query_id: {{doc_id: {kind.column}}}}}, got {type(nested).__name__}", source=side)
    query_ids = list(nested)
    inner = list(nested.values())
    bad = _first_not(query_ids, (str,))
    if bad is not None:
        raise DataTypeError(f"query id {query_ids[bad]!r} is a {type(query_ids[bad]).__name__}, not a str", source=side)
    bad = _first_not(inner, (Mapping,))
    if bad is not None:
        raise DataTypeError(
            f"query {query_ids[bad]!r}: expected a dict {{doc_id: {kind.column}}}, got {type(inner[bad]).__name__}", source=side
        )
    sizes = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    doc_ids: list[Any] = []
    values: list[Any] = []
    for docs in inner:
        doc_ids.extend(docs)
        values.extend(docs.values())

    def where(row: int) -> str:
        query = int(np.searchsorted(np.cumsum(sizes), row, side="right"))
        return f"query {query_ids[query]!r}, document {doc_ids[row]!r}"

    documents = _strings(doc_ids, side, where)
    column = _numbers(values, kind, side, where)
    if kind is _SCORES and np.isnan(column).any():
        row = int(np.flatnonzero(np.isnan(column))[0])
        raise InputError(f"{where(row)}: the score is NaN, which has no place in a ranking", source=side, field="score")
    names = _strings(query_ids, side, lambda row: f"query {query_ids[row]!r}")
    # Rows come query by query, so the grouping is known: each query's rows, in order.
    held = sizes > 0
    groups = QueryGroups(
        names.filter(arrow_array(held)),
        read_only(np.arange(len(doc_ids), dtype=np.int64)),
        read_only(np.concatenate([[0], np.cumsum(sizes[held])]).astype(np.int64)),
    )
    codes = arrow_array(np.repeat(np.arange(len(query_ids), dtype=np.int32), sizes))
    table = pa.table({
        "query_id": pa.DictionaryArray.from_arrays(codes, names),
        "doc_id": documents,
        kind.column: arrow_array(column),
    })
    return _Nested(query_ids, names, sizes, table, groups)


def _strings(ids: list[Any], side: str, where: Callable[[int], str]) -> pa.Array:
    """``ids`` as an Arrow string array; an id that is not a str (or not UTF-8) is an error naming it."""
    try:
        return text_array(ids)
    except TypeError:  # an id that is not a str
        bad = _first_not(ids, (str,))
        raise DataTypeError(f"{where(bad)}: the id is a {type(ids[bad]).__name__}, not a str", source=side) from None
    except UnicodeEncodeError:
        row = next(row for row, text in enumerate(ids) if not _encodes(text))
        raise InputError(f"{where(row)}: the id {ids[row]!r} cannot be written in UTF-8 (a lone surrogate)", source=side) from None


def _numbers(values: list[Any], kind: _ValueKind, side: str, where: Callable[[int], str]) -> np.ndarray:
    """``values`` as ``kind.dtype``; a value that is not such a number, or does not fit, is an error naming it."""
    column = _array(values, kind)
    if column is None or column.dtype.kind not in kind.kinds:
        bad = _first_not(values, kind.accepted)
        if bad is not None:
            noun = "an int" if kind is _LABELS else "an int or a float"
            raise DataTypeError(
                f"{where(bad)}: the {kind.column} {values[bad]!r} is a {type(values[bad]).__name__}, not {noun}",
                source=side,
                field=kind.column,
            )
    if column is None or column.dtype.kind not in kind.kinds or kind is _LABELS and column.dtype.kind == "u":
        # Numbers all, that numpy held as objects or unsigned: ints beyond int64 (or beyond a double).
        row = next((row for row, value in enumerate(values) if not _fits(value, kind)), None)
        if row is not None:
            raise InputError(f"{where(row)}: the {kind.column} {values[row]} is out of range", source=side, field=kind.column)
        column = np.array(values, dtype=kind.dtype)
    return column.astype(kind.dtype)


def _array(values: list[Any], kind: _ValueKind) -> np.ndarray | None:
    """numpy's array of ``values`` (of the kind numpy finds), or None when numpy cannot lay them out."""
    if not values:
        return np.empty(0, kind.dtype)
    try:
        column = np.array(values)
    except (TypeError, ValueError):  # sequences of different lengths among the values, say
        return None
    return column if column.ndim == 1 else None


def _first_not(items: list[Any], accepted: tuple[type, ...]) -> int | None:
    """The index of the first item not an instance of ``accepted``, or None; one pass over the distinct types first."""
    if all(issubclass(kind, accepted) for kind in set(map(type, items))):
        return None
    return next(index for index, item in enumerate(items) if not isinstance(item, accepted))


def _fits(value: Any, kind: _ValueKind) -> bool:
    """Whether a number is held by ``kind.dtype``: an int64 label, a score within a double's range."""
    if kind is _LABELS:
        return -_MAX_LABEL - 1 <= int(value) <= _MAX_LABEL
    try:
        float(value)
    except OverflowError:
        return False
    return True


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _float32(scores: np.ndarray) -> np.ndarray:
    """Each score at the nearest float32, as a C ``float`` holds a double (beyond its range: an infinity)."""
    with np.errstate(over="ignore"):
        return scores.astype(np.float32).astype(np.float64)
