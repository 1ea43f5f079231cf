"""trec_eval's measures with numpy over all queries at once: the python build of :func:`.trec.trec_measures`.

The interpreted walk costs microseconds per judged document; this build computes the same
values, to the bit, with whole-array operations. Each evaluated query's judged documents (those
ranked within its first n) become a row of a matrix, padded at the end; its positive judged
labels, best first, a row of another. A measure summed over ranks is then ``np.cumsum`` along the
rows: numpy accumulates along an axis one element after the other, which is trec_eval's order of
additions, and the padding adds +0.0, which leaves every sum (never -0.0: its terms are >= 0)
unchanged. The value of a measure at cutoff k is the running sum after the judged documents
ranked above k, gathered from those matrices; interpolated precision takes a running maximum
from the end. Counts are integers, exact in any order.

``yaap`` takes the logarithm with ``math.log``, the C library's, which numpy's loop calls on each
query's value (a C function: no Python code runs per query): ``np.log`` has SIMD implementations
of its own on some CPUs, which differ from the C library's ``log`` in the last bit on about one
value in a thousand (AVX-512, measured on four million values).
"""

from __future__ import annotations

import math

import numpy as np

from ..core.bundles import FoundArrays, IdealArrays, QueryPairs
from ..core.segments import count, count_so_far, divide_where, gather, padded_cells, running, segments, two_to
from . import trec_columns as t
from .trec_arith import LONG_MIN, NEGATIVE_NAN

_C_LOG = np.frompyfunc(math.log, 1, 1)
_TWO_63 = 9223372036854775808.0


def numpy_trec_measures(
    queries: QueryPairs,
    found_docs: FoundArrays,
    ideal_lists: IdealArrays,
    rel: int,
    max_docs: int,
    stand_in: int,
    cutoffs: np.ndarray,
    levels: np.ndarray,
    log2_table: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`.trec.trec_measures` (same arguments, same ``scalars``, ``at_k`` and ``iprec``, bit for bit)."""
    run_query, qrels_query = queries
    found_offsets, n_found, found_ranks, found_labels, n_ranked = found_docs
    ideal_offsets, n_ideal, ideal_labels = ideal_lists
    n_queries = run_query.shape[0]
    n_cut = cutoffs.shape[0]
    in_run = run_query >= 0
    n = np.where(in_run, np.minimum(gather(n_ranked, run_query, 0), max_docs), stand_in).astype(np.int64)

    # The judged documents each query's walk visits: those ranked above n, a prefix of its ranks.
    q_of, t_of, starts = segments(gather(found_offsets, run_query, 0), gather(n_found, run_query, 0))
    index = starts + t_of
    kept = found_ranks[index] < n[q_of]
    q_of, t_of, ranks, labels = q_of[kept], t_of[kept], found_ranks[index[kept]], found_labels[index[kept]]
    width = int(t_of.max(initial=-1)) + 1
    unjudged = labels < 0
    positive = labels > 0
    relevant = ~unjudged & (labels >= rel)
    nonrelevant = ~unjudged & ~relevant

    # The query's judgments: R relevant, N judged non-relevant, and the positive labels before the first other one.
    g_of, j_of, g_starts = segments(gather(ideal_offsets, qrels_query, 0), gather(n_ideal, qrels_query, 0))
    judgments = ideal_labels[g_starts + j_of]
    num_rel = count(g_of, judgments >= rel, n_queries)
    num_nonrel = count(g_of, (judgments >= 0) & (judgments < rel), n_queries)
    ideal_kept = count_so_far(judgments <= 0, j_of) == 0
    g_of, j_of, judgments = g_of[ideal_kept], j_of[ideal_kept], judgments[ideal_kept]
    n_positive = count(g_of, np.ones(g_of.shape[0], dtype=np.bool_), n_queries)

    # Counts before (column t) and after (column t + 1) the t-th visited document.
    rel_so_far = running(q_of, t_of, relevant.astype(np.int64), n_queries, width)
    nonrel_so_far = running(q_of, t_of, nonrelevant.astype(np.int64), n_queries, width)
    unjudged_so_far = running(q_of, t_of, unjudged.astype(np.int64), n_queries, width)
    rel_here = rel_so_far[q_of, t_of + 1]

    # Each visited document's terms, 0.0 where the walk adds nothing.
    r_q, r_rank, r_count = q_of[relevant], ranks[relevant], rel_here[relevant]
    nonrel_above, unjudged_above = nonrel_so_far[q_of, t_of][relevant], unjudged_so_far[q_of, t_of][relevant]
    precision = r_count / (r_rank + 1)
    dcg_terms = np.zeros(labels.shape[0])
    dcg_terms[positive] = labels[positive] / log2_table[ranks[positive]]
    burges_terms = np.zeros(labels.shape[0])
    burges_terms[positive] = (two_to(labels[positive]) - 1.0) / log2_table[ranks[positive]]
    ap_terms = np.zeros(labels.shape[0])
    ap_terms[relevant] = precision
    bing_terms = np.zeros(labels.shape[0])
    bing_terms[relevant] = 1.0 / log2_table[r_rank - r_count + 1]
    bpref_terms = np.zeros(labels.shape[0])
    bpref_terms[relevant] = _bpref_terms(nonrel_above, num_rel[r_q], num_nonrel[r_q])
    infap_terms = np.zeros(labels.shape[0])
    infap_terms[relevant] = _infap_terms(r_rank, r_count, nonrel_above, unjudged_above, t.INFAP_EPSILON)
    dcg, burges, ap, bing, bpref, infap = (
        running(q_of, t_of, terms, n_queries, width)
        for terms in (dcg_terms, burges_terms, ap_terms, bing_terms, bpref_terms, infap_terms)
    )
    ideal_width = int(j_of.max(initial=-1)) + 1
    ideal = running(g_of, j_of, judgments / log2_table[j_of], n_queries, ideal_width)
    ideal_burges = running(g_of, j_of, (two_to(judgments) - 1.0) / log2_table[j_of], n_queries, ideal_width)

    # The walk's state at each cutoff k: after the visited documents ranked above k.
    at = _visited_above(q_of, ranks, cutoffs, n_queries)
    rows = np.arange(n_queries)[:, None]
    at_ideal = np.minimum(cutoffs[None, :], n_positive[:, None])
    rel_at = rel_so_far[rows, at]
    num_rel_f = num_rel[:, None].astype(np.float64)
    has_rel = num_rel[:, None] > 0
    first_relevant = np.zeros(n_queries, dtype=np.int64)
    first_relevant[r_q[r_count == 1]] = r_rank[r_count == 1]
    shown = np.minimum(cutoffs[None, :], n[:, None])
    at_k = np.zeros((n_queries, t.N_AT_K, n_cut), dtype=np.float64)
    ideal_at = ideal[rows, at_ideal]
    dcg_at, burges_at = dcg[rows, at], burges[rows, at]
    # Divided only where the ideal DCG is positive: the DCG itself stays elsewhere, as in the walk.
    at_k[:, t.NDCG_AT] = divide_where(dcg_at, ideal_at, ideal_at > 0.0, dcg_at)
    at_k[:, t.NDCG_BURGES_AT] = divide_where(burges_at, ideal_burges[rows, at_ideal], ideal_at > 0.0, burges_at)
    at_k[:, t.MAP_AT] = divide_where(ap[rows, at], num_rel_f, has_rel)
    at_k[:, t.RECALL_AT] = divide_where(rel_at, num_rel_f, has_rel)
    at_k[:, t.PRECISION_AT] = rel_at / cutoffs[None, :]
    at_k[:, t.RELATIVE_PRECISION_AT] = divide_where(rel_at, np.minimum(cutoffs[None, :], num_rel[:, None]), has_rel)
    at_k[:, t.RECIP_RANK_AT] = np.where(rel_at > 0, 1.0 / (first_relevant[:, None] + 1), 0.0)
    at_k[:, t.SUCCESS_AT] = np.where(rel_at > 0, 1.0, 0.0)
    at_k[:, t.JUDGED_AT] = divide_where(at, shown, shown > 0)
    not_judged = shown - (at - unjudged_so_far[rows, at])
    at_k[:, t.UNJUDGED_AT] = np.where(in_run[:, None], not_judged / cutoffs[None, :], 0.0)
    p, r = at_k[:, t.PRECISION_AT], at_k[:, t.RECALL_AT]
    at_k[:, t.F1_AT] = divide_where(2.0 * p * r, p + r, p + r > 0.0)

    # The walk's totals: the last column (the padding after a query's documents adds nothing).
    ap_sum, dcg_sum, burges_sum = ap[:, -1], dcg[:, -1], burges[:, -1]
    rel_total = rel_so_far[:, -1]
    ideal_sum, ideal_burges_sum = ideal[:, -1], ideal_burges[:, -1]
    has_rel = num_rel > 0
    num_rel_f = num_rel.astype(np.float64)
    scalars = np.zeros((n_queries, t.N_SCALARS), dtype=np.float64)
    scalars[:, t.NUM_RET] = np.where(in_run, n, 0)
    scalars[:, t.LENGTH] = n
    scalars[:, t.NUM_REL] = num_rel
    scalars[:, t.NUM_REL_RET] = rel_total
    scalars[:, t.NUM_NONREL_JUDGED_RET] = nonrel_so_far[:, -1]
    scalars[:, t.NDCG] = divide_where(dcg_sum, ideal_sum, ideal_sum > 0.0)
    scalars[:, t.NDCG_BURGES] = divide_where(burges_sum, ideal_burges_sum, ideal_sum > 0.0)
    # 1 + R - ap >= 1: ap is at most the relevant documents retrieved, at most R.
    scalars[:, t.YAAP] = _C_LOG((1.0 + ap_sum) / (1.0 + num_rel_f - ap_sum)).astype(np.float64)
    scalars[:, t.MAP] = divide_where(ap_sum, num_rel_f, has_rel & (rel_total > 0))
    scalars[:, t.BING] = divide_where(bing[:, -1], num_rel_f, has_rel & (rel_total > 0))
    rprec_hits = count(r_q, r_rank < num_rel[r_q], n_queries)
    scalars[:, t.RPREC] = divide_where(rprec_hits, num_rel_f, has_rel & (np.minimum(n, num_rel) > 0))
    scalars[:, t.BPREF] = divide_where(bpref[:, -1], num_rel_f, has_rel)
    scalars[:, t.INFAP] = divide_where(infap[:, -1], num_rel_f, has_rel)
    scalars[:, t.RECIP_RANK] = np.where(rel_total > 0, 1.0 / (first_relevant + 1), 0.0)

    iprec = _interpolated_precision(r_q, r_count, precision, rel_total, num_rel, n, levels, n_queries)
    return scalars, at_k, iprec







def _visited_above(segment: np.ndarray, ranks: np.ndarray, cutoffs: np.ndarray, n_segments: int) -> np.ndarray:
    """``(n_segments, len(cutoffs))``: the visited documents of each query ranked above each cutoff.

    A document at rank i is above the cutoffs after the ``searchsorted(cutoffs, i, "right")`` first ones.
    """
    n_cut = cutoffs.shape[0]
    first_above = np.searchsorted(cutoffs, ranks, side="right")
    counts = np.bincount(segment * (n_cut + 1) + first_above, minlength=n_segments * (n_cut + 1))
    return np.cumsum(counts.reshape(n_segments, n_cut + 1), axis=1)[:, :n_cut].astype(np.int64)




def _bpref_terms(nonrel_above: np.ndarray, num_rel: np.ndarray, num_nonrel: np.ndarray) -> np.ndarray:
    """bpref's term of each relevant retrieved document: 1 - min(nonrelevant above, R) / min(N, R)."""
    penalty = divide_where(np.minimum(nonrel_above, num_rel), np.minimum(num_nonrel, num_rel), nonrel_above > 0)
    return np.where(nonrel_above > 0, 1.0 - penalty, 1.0)


def _infap_terms(
    rank: np.ndarray, rel_so_far: np.ndarray, nonrel_above: np.ndarray, unjudged_above: np.ndarray, epsilon: float
) -> np.ndarray:
    """infAP's term of each relevant retrieved document, with the walk's operations in its order."""
    fi = np.where(rank == 0, 1.0, rank.astype(np.float64))  # rank 0 adds 1.0, not this expression
    term = 1.0 / (fi + 1.0) + (fi / (fi + 1.0)) * ((rel_so_far - 1 + nonrel_above + unjudged_above) / fi) * (
        (rel_so_far - 1 + epsilon) / (rel_so_far - 1 + nonrel_above + 2 * epsilon)
    )
    return np.where(rank == 0, 1.0, term)


def _lround(x: np.ndarray) -> np.ndarray:
    """:func:`.trec_arith.lround` of each element: halves away from zero; LONG_MIN out of range or for NaN."""
    in_range = (-_TWO_63 < x) & (x < _TWO_63)
    magnitude = np.abs(np.where(in_range, x, 0.0))
    whole = np.floor(magnitude)
    rounded = whole.astype(np.int64) + (magnitude - whole >= 0.5)
    return np.where(in_range, np.where(x < 0.0, -rounded, rounded), LONG_MIN)


def _interpolated_precision(
    segment: np.ndarray,
    rel_so_far: np.ndarray,
    precision: np.ndarray,
    rel_total: np.ndarray,
    num_rel: np.ndarray,
    n: np.ndarray,
    levels: np.ndarray,
    n_queries: int,
) -> np.ndarray:
    """``iprec (n_queries, len(levels))`` from the precision at each relevant retrieved document (in rank order).

    The best precision at or after the c-th relevant document is a running maximum from the end;
    the padding (0.0) is below every precision.
    """
    best = np.zeros((n_queries, max(int(rel_total.max(initial=0)), 1)))
    best[segment, rel_so_far - 1] = precision
    best = np.maximum.accumulate(best[:, ::-1], axis=1)[:, ::-1]
    needed = _lround(levels[None, :] * num_rel[:, None].astype(np.float64))
    reached = (rel_total[:, None] > 0) & (needed <= rel_total[:, None])
    column = np.where(reached, np.maximum(needed, 1) - 1, 0)
    nothing_ranked = (n[:, None] == 0) & (needed <= 0)
    return np.where(reached, best[np.arange(n_queries)[:, None], column], np.where(nothing_ranked, NEGATIVE_NAN, 0.0))


def trec_work(queries: QueryPairs, found_docs: FoundArrays, ideal_lists: IdealArrays, *rest: object) -> int:
    """A call's work: its judged ranked rows, or the cells of its padded rows if more (:func:`.segments.padded_cells`)."""
    return max(
        found_docs.ranks.shape[0], found_docs.n_ranked.shape[0],
        padded_cells(queries.run_query.shape[0], found_docs.n_found, ideal_lists.n_judged),
    )
