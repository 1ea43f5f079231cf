"""The single relevance join, and the alignment of the queries of a qrels and a run."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..constraints import check_choice
from ..errors import ConfigError, InputError
from ..io.arrays import arrow_array, numpy_view, read_only
from ..kernels.core.bundles import JoinRule, JudgmentArrays, QueryPairs, RunArrays
from ..kernels.core.judged_ranks import rank_judged_documents
from ..kernels.core.ranking import rank_and_label
from ..kernels.core.ranx_ties import ranx_tie_keys
from ..kernels.core.tie_groups import rank_with_tie_groups
from ..kernels.core.tiebreak import TIES_ASCENDING_KEY, TIES_DOCID_DESCENDING, TIES_INPUT_ORDER
from ..kernels.fusion.fused_ranking import gather_joins
from ..kernels.trec.trec_judged import judged_only
from ..policies import QUERY_SETS, TIE_ORDERS
from ._table import duplicate_policy_code, raise_on_duplicates
from .ids import IdColumn
from .qrels import Qrels
from .run import Run

_REPEATED = "is retrieved more than once (run_duplicates='raise'; 'last', 'first' or 'max' keeps one score)"
#: The kernel code of each tie order of :data:`~retrieval_eval.policies.TIE_ORDERS`.
TIE_CODES = {"input": TIES_INPUT_ORDER, "docid": TIES_DOCID_DESCENDING, "ranx": TIES_ASCENDING_KEY}
# The join kernels' tie keys under the tie orders that need none (read-only, as the keys they get under "ranx").
_NO_TIE_KEYS = read_only(np.empty(0, dtype=np.int64))


@dataclass(frozen=True, eq=False)
class RankedRun:
    """A run ranked and labelled against qrels, as padded CSR arrays over the run's query groups.

    For run query q, ranks ``0..n_ranked[q]-1`` live at ``offsets[q] + rank`` in ``labels`` (the
    document's judged label, 0 when unjudged) and ``judged``.
    ``retrieved_rows[q]`` counts q's rows including repeated documents. ``ties``: the tie order used.
    """

    run: Run
    ties: str
    offsets: np.ndarray
    n_ranked: np.ndarray
    labels: np.ndarray
    judged: np.ndarray
    retrieved_rows: np.ndarray


@dataclass(frozen=True, eq=False)
class JudgedRanks:
    """Where a run's judged documents rank, as padded CSR arrays over the run's query groups.

    Run query q retrieved ``n_ranked[q]`` distinct documents; its judged ones are at the 0-based
    ranks ``ranks[offsets[q] + t]`` (ascending) with ``labels[offsets[q] + t]``, t < ``n_found[q]``.
    """

    run: Run
    ties: str
    offsets: np.ndarray
    n_found: np.ndarray
    ranks: np.ndarray
    labels: np.ndarray
    n_ranked: np.ndarray

    def judged_only(self, max_docs: int | None) -> "JudgedRanks":
        """trec_eval's ``-J``: the top ``max_docs`` documents (all when None) with only the judged ones ranked.

        Documents the qrels do not list or list with a negative label are dropped; the judged ones
        keep their order and move up (see :mod:`retrieval_eval.kernels.trec.trec_judged`).
        """
        depth = np.iinfo(np.int64).max if max_docs is None else max_docs
        ranks, labels, n_found, n_ranked = judged_only(self.offsets, self.n_found, self.ranks, self.labels, self.n_ranked, depth)
        return JudgedRanks(self.run, self.ties, self.offsets, n_found, ranks, labels, n_ranked)


@dataclass(frozen=True, eq=False)
class RowLabels:
    """Each row of a run with distinct documents per query, looked up in qrels once: ``labels[row]`` (0 when
    unjudged) and ``judged[row]``.

    Any ranking of some of those rows per query then has its joins (:class:`RankedRun`,
    :class:`JudgedRanks`) by gathering, with no lookup or sort of ids: a fusion sweep ranks the
    same aligned rows in each configuration's order. The joins it gives name ``run`` as theirs.
    """

    run: Run
    labels: np.ndarray
    judged: np.ndarray

    @classmethod
    def of(cls, qrels: Qrels, run: Run) -> "RowLabels":
        """Look ``run``'s rows up in ``qrels`` (by the one join, :func:`rank_run`); a repeated document is an error."""
        n = len(run)
        # Strictly decreasing scores in row order: the join ranks each query's rows in their order
        # (QueryGroups keeps it), so its labels in rank order are the rows' labels.
        in_row_order = Run(
            run.table.set_column(2, "score", arrow_array(-np.arange(n, dtype=np.float64))),
            source=run.source, name=run.name, queries=run.queries,
        )  # fmt: skip
        ranked = rank_run(qrels, in_row_order, duplicates="raise", ties="input")
        labels = np.empty_like(ranked.labels)
        judged = np.empty_like(ranked.judged)
        labels[run.queries.order], judged[run.queries.order] = ranked.labels, ranked.judged
        return cls(run, read_only(labels), read_only(judged))

    def joins(self, rows: np.ndarray, offsets: np.ndarray, ties: str) -> tuple[RankedRun, JudgedRanks]:
        """The joins of the ranking in which query q ranks ``rows[offsets[q]:offsets[q + 1]]`` (distinct rows of
        ``run``'s query q, in rank order) under the tie order ``ties`` that gave it."""
        labels, judged, ranks, found_labels, n_found = gather_joins(offsets, rows, self.labels, self.judged)
        n_ranked = np.diff(offsets)
        ranked = RankedRun(self.run, ties, offsets, n_ranked, labels, judged, n_ranked)
        return ranked, JudgedRanks(self.run, ties, offsets, n_found, ranks, found_labels, n_ranked)


def docid_tie_keys(run: Run) -> np.ndarray:
    """int64 per row of ``run``: ascending in descending doc id within each query (trec_eval's order of ties).

    Ids compare as :mod:`retrieval_eval.kernels.core.tiebreak` compares them: strings by their UTF-8
    bytes (a prefix first), integers as their decimal text (among equal scores 9 before 10).
    """
    groups = run.queries
    query = np.empty(len(run), dtype=np.int64)
    query[groups.order] = np.repeat(np.arange(groups.n_queries, dtype=np.int64), groups.rows_per_query)
    ids = run.table["doc_id"]
    text = ids.cast(pa.string()) if pa.types.is_integer(ids.type) else ids
    # Arrow orders strings by their bytes (unsigned, a prefix first): C's strcmp, as trec_eval.
    order = pc.sort_indices(pa.table({"query": query, "doc": text}), sort_keys=[("query", "ascending"), ("doc", "descending")])
    keys = np.empty(len(run), dtype=np.int64)
    keys[numpy_view(order).astype(np.int64)] = np.arange(len(run), dtype=np.int64)
    return read_only(keys)


@dataclass(frozen=True, eq=False)
class QueryAlignment:
    """The evaluated queries: for each, its index in the run and in the qrels (-1 when absent)."""

    query_ids: pa.Array
    run_query: np.ndarray
    qrels_query: np.ndarray
    n_judged_only: int
    n_retrieved_only: int
    n_both: int

    @property
    def pairs(self) -> QueryPairs:
        """The queries as the kernels take them."""
        return QueryPairs(self.run_query, self.qrels_query)

    @classmethod
    def one_query(cls, query_id: int, retrieved: bool) -> "QueryAlignment":
        """A single judged query, which the run retrieved for or not."""
        return cls(
            arrow_array(np.array([query_id], dtype=np.int64)),
            np.array([0 if retrieved else -1], dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            n_judged_only=int(not retrieved),
            n_retrieved_only=0,
            n_both=int(retrieved),
        )


def rank_run(qrels: Qrels, run: Run, *, duplicates: str = "last", ties: str = "input") -> RankedRun:
    """Rank each run query's distinct documents by score, descending, and label them.

    ``duplicates`` chooses the score of a document retrieved more than once: ``"last"`` (Azure's
    rule, the default), ``"first"``, ``"max"``, or ``"raise"``. ``ties`` orders equal scores:
    ``"input"`` (input order, a repeated document at its first position; Azure), ``"docid"``
    (descending document id in byte order; trec_eval) or ``"ranx"`` (the order of a ``ranx.Run``
    of the documents with the scores ``duplicates`` keeps; see :mod:`retrieval_eval.kernels.core.ranx_ties`).
    """
    labels, judged, n_ranked, duplicate_rows = rank_and_label(*_join_arguments(qrels, run, duplicates, ties))
    raise_on_duplicates(duplicate_rows, run.table, run.source, _REPEATED)
    return RankedRun(run, ties, run.queries.offsets, n_ranked, labels, judged, run.queries.rows_per_query)


@dataclass(frozen=True, eq=False)
class TiedRun:
    """A run ranked and labelled against qrels with its tie groups: what tie-averaged values read.

    ``ranked`` is the :class:`RankedRun` with ties in input order (any order gives the same
    tie-averaged values); the document at ``ranked.offsets[q] + j`` belongs to the group of equal
    scores that starts at rank ``group_start[...]`` of query q and holds ``group_size[...]`` documents.
    ``duplicates``: the policy that chose each repeated document's score.
    """

    ranked: RankedRun
    group_start: np.ndarray
    group_size: np.ndarray
    duplicates: str


def rank_tied(qrels: Qrels, run: Run, *, duplicates: str = "raise") -> TiedRun:
    """Rank each run query's distinct documents by score, label them, and mark their tie groups (see :class:`TiedRun`)."""
    labels, judged, n_ranked, duplicate_rows, group_start, group_size = rank_with_tie_groups(
        *_join_arguments(qrels, run, duplicates, "input")
    )
    raise_on_duplicates(duplicate_rows, run.table, run.source, _REPEATED)
    ranked = RankedRun(run, "input", run.queries.offsets, n_ranked, labels, judged, run.queries.rows_per_query)
    return TiedRun(ranked, read_only(group_start), read_only(group_size), duplicates)


def rank_judged(qrels: Qrels, run: Run, *, duplicates: str = "raise", ties: str = "docid") -> JudgedRanks:
    """Where each run query's judged documents rank, without sorting the rest (see :func:`rank_run`)."""
    ranks, labels, n_found, n_ranked, duplicate_rows = rank_judged_documents(
        *_join_arguments(qrels, run, duplicates, ties)
    )
    raise_on_duplicates(duplicate_rows, run.table, run.source, _REPEATED)
    return JudgedRanks(run, ties, run.queries.offsets, n_found, ranks, labels, n_ranked)


def _join_arguments(qrels: Qrels, run: Run, duplicates: str, ties: str) -> tuple[RunArrays, JudgmentArrays, np.ndarray, JoinRule]:
    """The arguments of the join kernels, after checking the policies and the id kinds."""
    policy = duplicate_policy_code(duplicates, what="run duplicates")
    check_tie_order(ties)
    _check_same_kind(qrels.doc_ids, run.doc_ids, "doc_id", qrels, run)
    groups = run.queries
    tie_order, tie_keys = _tie_order(run, policy, ties)
    return (
        run.arrays,
        qrels.judgment_arrays,
        _positions_in_qrels(qrels, groups.query_ids, run),
        JoinRule(policy, tie_order, tie_keys, run.doc_ids.is_string),
    )


def check_tie_order(ties: object, *, family_ranx_lacks: str | None = None) -> None:
    """Raise :class:`ConfigError` unless ``ties`` is one of :data:`~retrieval_eval.policies.TIE_ORDERS`,
    or when it is ``"ranx"`` for a family of measures ranx does not have (``family_ranx_lacks`` names it)."""
    check_choice("ties", ties, TIE_ORDERS, bracketed=True)
    if ties == "ranx" and family_ranx_lacks is not None:
        raise ConfigError(
            f"ties='ranx' orders ties as ranx does, and ranx has no {family_ranx_lacks} measures: "
            "use ties='docid' (trec_eval's order) or 'input'"
        )


def _tie_order(run: Run, duplicate_policy: int, ties: str) -> tuple[int, np.ndarray]:
    """The kernels' tie order code and tie keys (empty unless they order by key)."""
    if ties != "ranx":
        return TIE_CODES[ties], _NO_TIE_KEYS
    if run.in_ranx_order:
        # A ranx Run is in its order already: sorting it again would move its ties once more.
        return TIES_INPUT_ORDER, _NO_TIE_KEYS
    return TIE_CODES[ties], _tie_keys(run, duplicate_policy)


def _tie_keys(run: Run, duplicate_policy: int) -> np.ndarray:
    """Each run row's position in ranx's order of its query's documents (read-only, as the kernels take it)."""
    groups, ids = run.queries, run.doc_ids
    keys = ranx_tie_keys(groups.offsets, groups.order, ids.keys, ids.offsets, ids.data, run.scores, duplicate_policy, ids.is_string)
    return read_only(keys)


def align_queries(qrels: Qrels, run: Run, query_set: str = "qrels") -> QueryAlignment:
    """Choose the evaluated queries.

    ``"qrels"`` (default): every judged query, in qrels order; one the run lacks retrieved
    nothing. ``"both"``: judged queries the run retrieved for. ``"union"``: judged queries,
    then the run's unjudged queries (all their documents are holes).
    """
    check_choice("query_set", query_set, QUERY_SETS, bracketed=True)
    run_of_qrels = _positions_in(run.query_ids, qrels.query_ids, qrels, run)
    qrels_of_run = _positions_in_qrels(qrels, run.query_ids, run)
    in_run = run_of_qrels >= 0
    run_only = np.flatnonzero(qrels_of_run < 0)
    counts = {"n_judged_only": int((~in_run).sum()), "n_retrieved_only": len(run_only), "n_both": int(in_run.sum())}
    qrels_index = np.arange(qrels.n_queries, dtype=np.int64)
    if query_set == "qrels":
        return QueryAlignment(qrels.query_ids, run_of_qrels, qrels_index, **counts)
    if query_set == "both":
        keep = np.flatnonzero(in_run)
        return QueryAlignment(qrels.query_ids.take(arrow_array(keep)), run_of_qrels[keep], keep, **counts)
    query_ids = pa.concat_arrays([qrels.query_ids, run.query_ids.take(arrow_array(run_only))])
    return QueryAlignment(
        query_ids,
        np.concatenate([run_of_qrels, run_only.astype(np.int64)]),
        np.concatenate([qrels_index, np.full(len(run_only), -1, dtype=np.int64)]),
        **counts,
    )


def align_run_queries(qrels: Qrels, run: Run, query_set: str) -> QueryAlignment:
    """The evaluated queries among those of ``run``, a piece of a larger run holding whole queries.

    The judged ones (in run order), and under ``"union"`` the unjudged ones too. Judged queries
    the piece lacks are not its business: whether the whole run lacks them is known only once
    every piece is scored (``n_judged_only`` is 0).
    """
    check_choice("query_set", query_set, QUERY_SETS, bracketed=True)
    qrels_query = _positions_in_qrels(qrels, run.query_ids, run)
    judged = qrels_query >= 0
    n_both = int(judged.sum())
    keep = np.arange(run.n_queries) if query_set == "union" else np.flatnonzero(judged)
    return QueryAlignment(
        run.query_ids.take(arrow_array(keep)),
        keep.astype(np.int64),
        qrels_query[keep],
        n_judged_only=0,
        n_retrieved_only=run.n_queries - n_both,
        n_both=n_both,
    )


def align_to(query_ids: pa.Array, qrels: Qrels, run: Run) -> QueryAlignment:
    """Evaluate exactly ``query_ids`` (distinct), in that order; each may be absent from either side."""
    run_query = _positions_in(run.query_ids, query_ids, qrels, run)
    qrels_query = _positions_in_qrels(qrels, query_ids, run)
    in_run, in_qrels = run_query >= 0, qrels_query >= 0
    return QueryAlignment(
        query_ids,
        run_query,
        qrels_query,
        n_judged_only=int((in_qrels & ~in_run).sum()),
        n_retrieved_only=int((in_run & ~in_qrels).sum()),
        n_both=int((in_run & in_qrels).sum()),
    )


def _positions_in(haystack: pa.Array, needles: pa.Array, qrels: Qrels, run: Run) -> np.ndarray:
    """Index of each needle in ``haystack`` (-1 when absent); query ids must be of one kind."""
    if haystack.equals(needles):
        # The common case of a run over exactly the judged queries, in the same order.
        return np.arange(len(needles), dtype=np.int64)
    _check_query_kinds(haystack, needles, qrels, run)
    positions = pc.index_in(needles, value_set=haystack)
    return numpy_view(positions, fill=-1).astype(np.int64)


def _positions_in_qrels(qrels: Qrels, needles: pa.Array, run: Run) -> np.ndarray:
    """Index of each needle among the judged queries (-1 when absent), by the qrels' lookup built once."""
    if qrels.query_ids.equals(needles):
        return np.arange(len(needles), dtype=np.int64)
    _check_query_kinds(qrels.query_ids, needles, qrels, run)
    return qrels.query_lookup.positions(needles)


def _check_query_kinds(haystack: pa.Array, needles: pa.Array, qrels: Qrels, run: Run) -> None:
    if pa.types.is_integer(haystack.type) != pa.types.is_integer(needles.type):
        raise InputError(
            f"query ids are {_kind(qrels.query_ids)} in the qrels ({qrels.source}) but {_kind(run.query_ids)} "
            f"in the run ({run.source}); convert one side so that both are strings or both integers",
            field="query_id",
        )


def _check_same_kind(a: IdColumn, b: IdColumn, field: str, qrels: Qrels, run: Run) -> None:
    if a.is_string != b.is_string:
        raise InputError(
            f"{field}s are {a.kind}s in the qrels ({qrels.source}) but {b.kind}s in the run ({run.source}); "
            "convert one side so that both are strings or both integers",
            field=field,
        )


def _kind(ids: pa.Array) -> str:
    return "integers" if pa.types.is_integer(ids.type) else "strings"
