"""The join for measures that need only where the judged documents rank (the TREC measures).

Instead of sorting a query's n retrieved documents, it finds the j judged ones among them,
sorts those few, and places each of them by counting how many retrieved documents rank above
it: O(n log j) per query instead of a sort of n.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange
from .bundles import JoinRule, JudgmentArrays, RunArrays
from .judged_ranks_numpy import numpy_rank_judged_documents
from .ranking import join_example, query_documents
from .tiebreak import TIES_ASCENDING_KEY, TIES_DOCID_DESCENDING, compare_ids


@jit
def tie_precedes(a: int, b: int, rows: np.ndarray, run: RunArrays, rule: JoinRule) -> bool:
    """Between two distinct documents of equal score, a (an index into ``rows``) ranks above b.

    By descending document id, by ascending tie key of their rows, or by first occurrence
    (``a < b``). Callers compare the scores themselves and call this only on a tie: a call
    passing arrays costs more than a comparison.
    """
    if rule.tie_order == TIES_DOCID_DESCENDING:
        return compare_ids(run.keys, run.offsets, run.data, rule.is_string, rows[a], rows[b]) > 0
    if rule.tie_order == TIES_ASCENDING_KEY:
        return rule.tie_keys[rows[a]] < rule.tie_keys[rows[b]]
    return a < b


# One query's work is a function of its own: the parallel build's loop is then a single call, which numba's
# parallel passes handle in a fraction of the time a whole body takes (benchmarks/bench_compile.py).
@jit
def _rank_judged_query(
    q: int,
    run: RunArrays,
    judgments: JudgmentArrays,
    group_of_query: np.ndarray,
    rule: JoinRule,
    ranks: np.ndarray,
    labels: np.ndarray,
    n_found: np.ndarray,
    n_ranked: np.ndarray,
    duplicate_rows: np.ndarray,
) -> None:
    """Query q's slots of the outputs (see :func:`rank_judged_documents`)."""
    base = run.group_offsets[q]
    first_rows, kept, slots, duplicate_rows[q] = query_documents(q, run, judgments, group_of_query[q], rule)
    m = first_rows.shape[0]
    n_ranked[q] = m
    found = np.empty(m, dtype=np.int64)
    found_labels = np.empty(m, dtype=judgments.labels.dtype)
    j = 0
    for d in range(m):
        if slots[d] >= 0:
            found[j] = d
            found_labels[j] = judgments.labels[slots[d]]
            j += 1
    if j == 0:
        return
    # The few judged documents in rank order (insertion sort).
    for a in range(1, j):
        doc = found[a]
        label = found_labels[a]
        b = a - 1
        while b >= 0 and (
            kept[doc] > kept[found[b]]
            or (
                kept[doc] == kept[found[b]]
                and tie_precedes(doc, found[b], first_rows, run, rule)
            )
        ):
            found[b + 1] = found[b]
            found_labels[b + 1] = found_labels[b]
            b -= 1
        found[b + 1] = doc
        found_labels[b + 1] = label
    # above[t]: documents ranked just above judged document t (below t - 1); found by binary search.
    above = np.zeros(j, dtype=np.int64)
    for d in range(m):
        lo = 0
        hi = j
        while lo < hi:
            mid = (lo + hi) >> 1
            above_d = kept[found[mid]] > kept[d] or (
                kept[found[mid]] == kept[d]
                and tie_precedes(found[mid], d, first_rows, run, rule)
            )
            if above_d:
                lo = mid + 1
            else:
                hi = mid
        if lo < j:
            above[lo] += 1
    rank = -1  # each judged document counts itself once
    for t in range(j):
        rank += above[t]
        ranks[base + t] = rank
        labels[base + t] = found_labels[t]
    n_found[q] = j


@parallel_jit(example=join_example, python=numpy_rank_judged_documents)
def rank_judged_documents(
    run: RunArrays, judgments: JudgmentArrays, group_of_query: np.ndarray, rule: JoinRule
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The 0-based rank and the label of every retrieved judged document, per run query.

    Ranking as in :func:`retrieval_eval.kernels.core.ranking.rank_and_label` (same inputs). Returns
    padded CSR arrays over ``run.group_offsets``: ``ranks`` (ascending) and ``labels`` of the
    query's retrieved judged documents, then per query ``n_found`` (how many), ``n_ranked``
    (distinct documents retrieved) and ``duplicate_rows`` (first repeated row under RAISE, else -1).
    """
    n_queries = run.group_offsets.shape[0] - 1
    total = run.order.shape[0]
    # Zeros, not garbage, in the padding past each query's count: outputs are the same bits on every run.
    ranks = np.zeros(total, dtype=np.int64)
    labels = np.zeros(total, dtype=judgments.labels.dtype)
    n_found = np.zeros(n_queries, dtype=np.int64)
    n_ranked = np.empty(n_queries, dtype=np.int64)
    duplicate_rows = np.empty(n_queries, dtype=np.int64)
    for q in prange(n_queries):
        # The parallel build's loop index is unsigned: as int64 it calls the same specialization as the serial one.
        _rank_judged_query(np.int64(q), run, judgments, group_of_query, rule, ranks, labels, n_found, n_ranked, duplicate_rows)
    return ranks, labels, n_found, n_ranked, duplicate_rows
