"""trec_eval's measures over ranked labels, every measure and every cutoff in one pass per query.

Inputs are, per query, the number of documents retrieved and the ranks (in trec_eval's order:
score descending, ties by descending document id) and labels of the judged ones among them,
and the query's judged labels sorted descending; the walk visits only the judged documents. As in
trec_eval, a retrieved document is *not in the pool*
when the qrels do not list it, *in the pool but unjudged* when its label is negative, and
relevant when its label is >= ``rel``. With ``n`` ranked documents (at most ``max_docs``),
``R`` = judged documents with label >= rel (num_rel), ``N`` = judged documents with
0 <= label < rel, ``rel_i`` = 1 when rank i (1-based) is relevant:

- ``map`` = sum_{i: rel_i} (relevant in top i)/i / R; ``map@k`` only over i <= k
- ``precision@k`` = (relevant in top k)/k; ``recall@k`` = (relevant in top k)/R
- ``recip_rank`` = 1/(rank of the first relevant); ``@k``: 0 when that rank is > k
- ``rprec`` = (relevant in top min(n, R))/R; ``success@k`` = 1 when some relevant is in the top k
- ``ndcg`` = DCG/IDCG with gain g(l) = l for l > 0 (``ndcg_burges``: 2^l - 1), DCG = sum_i g(l_i)/log2(i+1)
  over the ranking, IDCG the same over the judged labels sorted descending; ``@k`` cuts both at k
- ``bpref`` = sum over relevant retrieved r of (1 - min(nonrelevant above r, R)/min(N, R)) / R
- ``infap`` = trec_eval's inferred AP (Yilmaz and Aslam), with its epsilon 1e-5
- ``judged@k`` = judged documents (any label) in the top min(k, n) / min(k, n)
- ``f1@k`` = 2 P R / (P + R) of precision@k and recall@k
- ``num_ret`` = n, ``num_rel`` = R, ``num_rel_ret`` = relevant among the n,
  ``num_nonrel_judged_ret`` = judged non-relevant (0 <= label < rel) among the n
- ``relative_precision@k`` = (relevant in top k) / min(k, R)
- ``iprec_at_recall(recall=l)`` = max over ranks i at or after the c-th relevant document of
  precision at i, c = lround(l R); 0 when fewer than c relevant documents were retrieved; when
  nothing was ranked (``-J``) and c <= 0, trec_eval's 0/0, a NaN
- ``yaap`` = log((1 + s) / (1 + R - s)) with s = the sum of map (Robertson's yet another AP)
- ``bing`` = sum over relevant retrieved r of 1/log2(2 + documents not relevant above r), / R
- ``unjudged@k`` = documents the qrels do not judge (not listed, or a negative label) in the top
  min(k, n), / k (trec_eval unj)

A judged query the run lacks is scored, as trec_eval's ``-c`` does, against a ranking of
``stand_in`` documents that the qrels do not judge (trec_eval ranks one bogus document there, none
under ``-J``); its num_ret and unjudged@k are then 0, as trec_eval resets them.

Every measure is 0 where its denominator is 0, as in trec_eval. The floating-point operations
follow trec_eval's order, so values agree to the last bit with ``log2`` from the C library.
Without numba the same values come from whole-array numpy over all queries (:mod:`.trec_numpy`).
"""

from __future__ import annotations

import math

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from ..core.bundles import FoundArrays, IdealArrays, QueryPairs
from .trec_arith import NEGATIVE_NAN, lround
from .trec_columns import (
    BING,
    BPREF,
    F1_AT,
    INFAP,
    INFAP_EPSILON,
    JUDGED_AT,
    LENGTH,
    MAP,
    MAP_AT,
    N_AT_K,
    N_SCALARS,
    NDCG,
    NDCG_AT,
    NDCG_BURGES,
    NDCG_BURGES_AT,
    NUM_NONREL_JUDGED_RET,
    NUM_REL,
    NUM_REL_RET,
    NUM_RET,
    PRECISION_AT,
    RECALL_AT,
    RECIP_RANK,
    RECIP_RANK_AT,
    RELATIVE_PRECISION_AT,
    RPREC,
    SUCCESS_AT,
    UNJUDGED_AT,
    YAAP,
)
from .trec_numpy import numpy_trec_measures, trec_work


def example_judged_ranks() -> tuple[QueryPairs, FoundArrays, IdealArrays]:
    """The leading bundles of the TREC pass kernels' examples: one query that retrieved 2 documents, the first
    judged 1, its only judgment (the types the library passes: the query pairs and counts writable)."""
    one = np.zeros(1, dtype=np.int64)
    return (
        QueryPairs(one, one.copy()),
        FoundArrays(read_only([0, 2], np.int64), np.ones(1, dtype=np.int64), np.zeros(2, dtype=np.int64),
                    np.array([1, 0], dtype=np.int64), np.full(1, 2, dtype=np.int64)),
        IdealArrays(read_only([0, 1], np.int64), read_only([1], np.int64), read_only([1], np.int64)),
    )


def _example() -> tuple:
    """The judged ranks of :func:`example_judged_ranks`; cutoff 10, recall level 0.5."""
    return (
        *example_judged_ranks(), 1, np.iinfo(np.int64).max, 1, np.array([10], dtype=np.int64), np.array([0.5]),
        log2_table(10),
    )


# One query's work is a function of its own: the parallel build's loop is then a single call, which numba's
# parallel passes handle in a fraction of the time a whole body takes (benchmarks/bench_compile.py).
@jit
def _query_measures(
    q: int,
    queries: QueryPairs,
    found_docs: FoundArrays,
    ideal_lists: IdealArrays,
    rel: int,
    max_docs: int,
    stand_in: int,
    cutoffs: np.ndarray,
    levels: np.ndarray,
    log2_table: np.ndarray,
    scalars: np.ndarray,
    at_k: np.ndarray,
    iprec: np.ndarray,
) -> None:
    """Row q of ``scalars``, ``at_k`` and ``iprec`` (see :func:`trec_measures`)."""
    run_query, qrels_query = queries
    found_offsets, n_found, found_ranks, found_labels, n_ranked = found_docs
    ideal_offsets, n_ideal, ideal_labels = ideal_lists
    n_cut = cutoffs.shape[0]
    n_levels = levels.shape[0]
    rq = run_query[q]
    gq = qrels_query[q]
    n = min(n_ranked[rq], max_docs) if rq >= 0 else stand_in
    found = n_found[rq] if rq >= 0 else 0
    base = found_offsets[rq] if rq >= 0 else 0
    m = n_ideal[gq] if gq >= 0 else 0
    ideal_base = ideal_offsets[gq] if gq >= 0 else 0

    num_rel = 0
    num_nonrel = 0
    for j in range(m):
        label = ideal_labels[ideal_base + j]
        if label >= rel:
            num_rel += 1
        elif label >= 0:
            num_nonrel += 1

    rel_so_far = 0
    judged_so_far = 0
    first_relevant = -1
    ap_sum = 0.0
    dcg = 0.0
    dcg_burges = 0.0
    rprec_hits = 0
    nonrel_so_far = 0
    unjudged_so_far = 0
    bpref = 0.0
    infap = 0.0
    bing = 0.0
    # Precision at each relevant retrieved document, for interpolated precision.
    precision_at_relevant = np.empty(found if n_levels > 0 else 0, dtype=np.float64)
    c = 0
    for t in range(found + 1):
        # Rank of the next judged document; past the last one, the end of the ranking.
        i = found_ranks[base + t] if t < found else n
        if i > n:
            i = n
        while c < n_cut and (cutoffs[c] <= i or i == n):
            shown = min(cutoffs[c], n)
            at_k[q, NDCG_AT, c] = dcg
            at_k[q, NDCG_BURGES_AT, c] = dcg_burges
            if num_rel > 0:
                at_k[q, MAP_AT, c] = ap_sum / num_rel
                at_k[q, RECALL_AT, c] = rel_so_far / num_rel
            at_k[q, PRECISION_AT, c] = rel_so_far / cutoffs[c]
            if num_rel > 0:
                at_k[q, RELATIVE_PRECISION_AT, c] = rel_so_far / min(cutoffs[c], num_rel)
            if first_relevant >= 0:
                at_k[q, RECIP_RANK_AT, c] = 1.0 / (first_relevant + 1)
                at_k[q, SUCCESS_AT, c] = 1.0
            if shown > 0:
                at_k[q, JUDGED_AT, c] = judged_so_far / shown
            if rq >= 0:
                at_k[q, UNJUDGED_AT, c] = (shown - (judged_so_far - unjudged_so_far)) / cutoffs[c]
            c += 1
        if i == n:
            break
        label = found_labels[base + t]
        judged_so_far += 1
        if label < 0:
            unjudged_so_far += 1
            continue
        if label > 0:
            dcg += label / log2_table[i]
            dcg_burges += (2.0**label - 1.0) / log2_table[i]
        if label < rel:
            nonrel_so_far += 1
            continue
        rel_so_far += 1
        ap_sum += rel_so_far / (i + 1)
        if n_levels > 0:
            precision_at_relevant[rel_so_far - 1] = rel_so_far / (i + 1)
        if first_relevant < 0:
            first_relevant = i
        if i < num_rel:
            rprec_hits += 1
        # log2(3 + i - relevant so far), the relevant so far counting this one, is log2_table[i - rel_so_far + 1].
        bing += 1.0 / log2_table[i - rel_so_far + 1]
        if nonrel_so_far > 0:
            bpref += 1.0 - min(nonrel_so_far, num_rel) / min(num_nonrel, num_rel)
        else:
            bpref += 1.0
        if i == 0:
            infap += 1.0
        else:
            fi = float(i)
            infap += 1.0 / (fi + 1.0) + (fi / (fi + 1.0)) * (
                (rel_so_far - 1 + nonrel_so_far + unjudged_so_far) / fi
            ) * ((rel_so_far - 1 + INFAP_EPSILON) / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON))

    # The ideal ranking: positive judged labels, best first; cut at each cutoff.
    ideal = 0.0
    ideal_burges = 0.0
    c = 0
    j = 0
    while True:
        label = ideal_labels[ideal_base + j] if j < m else 0
        while c < n_cut and (cutoffs[c] == j or label <= 0):
            if ideal > 0.0:
                at_k[q, NDCG_AT, c] /= ideal
                at_k[q, NDCG_BURGES_AT, c] /= ideal_burges
            c += 1
        if label <= 0:
            break
        ideal += label / log2_table[j]
        ideal_burges += (2.0**label - 1.0) / log2_table[j]
        j += 1

    # Interpolated precision at recall level l: the best precision at or after the c-th
    # relevant document, c = lround(l R) as trec_eval 10 rounds (trec_eval 9 and pytrec_eval
    # add 0.9 instead); 0 when fewer were retrieved. trec_eval starts from the precision of the
    # whole ranking, num_rel_ret / num_ret: 0/0 when nothing was ranked.
    if n_levels > 0:
        for j in range(rel_so_far - 2, -1, -1):
            precision_at_relevant[j] = max(precision_at_relevant[j], precision_at_relevant[j + 1])
    for v in range(n_levels):
        needed = lround(levels[v] * num_rel)
        if rel_so_far > 0 and needed <= rel_so_far:
            iprec[q, v] = precision_at_relevant[max(needed, 1) - 1]
        elif n == 0 and needed <= 0:
            iprec[q, v] = NEGATIVE_NAN

    for c in range(n_cut):
        p = at_k[q, PRECISION_AT, c]
        r = at_k[q, RECALL_AT, c]
        if p + r > 0.0:
            at_k[q, F1_AT, c] = 2.0 * p * r / (p + r)

    scalars[q, NUM_RET] = n if rq >= 0 else 0
    scalars[q, LENGTH] = n
    scalars[q, NUM_REL] = num_rel
    scalars[q, NUM_REL_RET] = rel_so_far
    scalars[q, NUM_NONREL_JUDGED_RET] = nonrel_so_far
    if ideal > 0.0:
        scalars[q, NDCG] = dcg / ideal
        scalars[q, NDCG_BURGES] = dcg_burges / ideal_burges
    scalars[q, YAAP] = math.log((1.0 + ap_sum) / (1.0 + num_rel - ap_sum))
    if num_rel > 0:
        if rel_so_far > 0:
            scalars[q, MAP] = ap_sum / num_rel
            scalars[q, BING] = bing / num_rel
        if min(n, num_rel) > 0:
            scalars[q, RPREC] = rprec_hits / num_rel
        scalars[q, BPREF] = bpref / num_rel
        scalars[q, INFAP] = infap / num_rel
    if first_relevant >= 0:
        scalars[q, RECIP_RANK] = 1.0 / (first_relevant + 1)


@parallel_jit(example=_example, python=numpy_trec_measures, work=trec_work)
def trec_measures(
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
    """Measures of each evaluated query i (run query ``queries.run_query[i]``, qrels query ``queries.qrels_query[i]``; -1 = absent).

    Run query r retrieved ``found_docs.n_ranked[r]`` distinct documents; its judged ones are at
    0-based ``found_docs.ranks`` with ``found_docs.labels`` (:class:`~retrieval_eval.kernels.core.bundles.FoundArrays`):
    a document the qrels do not list adds nothing but its rank; ``ideal_lists`` are each qrels
    query's labels, best first. ``cutoffs``: distinct positive
    cutoffs, ascending. ``log2_table[j] = log2(j + 2)``, long enough for every ranking and every
    query's judgments, computed by the caller with the C library's log2. ``levels``: recall levels
    of interpolated precision. ``stand_in``: the length of the ranking of unjudged documents a
    query the run lacks (``queries.run_query`` -1) is scored against (see the module docstring).
    Returns float64 ``scalars (n_queries, N_SCALARS)``, ``at_k (n_queries, N_AT_K, len(cutoffs))``
    and ``iprec (n_queries, len(levels))``.
    """
    n_queries = queries.run_query.shape[0]
    n_cut = cutoffs.shape[0]
    n_levels = levels.shape[0]
    scalars = np.zeros((n_queries, N_SCALARS), dtype=np.float64)
    at_k = np.zeros((n_queries, N_AT_K, n_cut), dtype=np.float64)
    iprec = np.zeros((n_queries, n_levels), dtype=np.float64)
    for q in prange(n_queries):
        # The parallel build's loop index is unsigned: as int64 it calls the same specialization as the serial one.
        _query_measures(
            np.int64(q), queries, found_docs, ideal_lists, rel, max_docs, stand_in, cutoffs, levels, log2_table, scalars, at_k,
            iprec,
        )
    return scalars, at_k, iprec


def log2_table(length: int) -> np.ndarray:
    """``log2(j + 2)`` for j < length, from the C library's log2 as trec_eval computes it."""
    return np.array([math.log2(j + 2) for j in range(length)], dtype=np.float64)
