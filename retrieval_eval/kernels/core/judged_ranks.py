"""The join for measures that need only where the judged documents rank (the TREC measures).

Instead of sorting a query's n retrieved documents, it finds the j judged ones among them,
sorts those few, and places each of them by counting how many retrieved documents rank above
it: O(n log j) per query instead of a sort of n.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange
from .judged_ranks_numpy import numpy_rank_judged_documents
from .judgments import resolve_duplicates
from .ranking import join_example, judgment_positions
from .tiebreak import TIES_ASCENDING_KEY, TIES_DOCID_DESCENDING, compare_ids


@jit
def tie_precedes(
    a: int,
    b: int,
    rows: np.ndarray,
    tie_order: int,
    keys: np.ndarray,
    offsets: np.ndarray,
    data: np.ndarray,
    is_string: bool,
    tie_keys: np.ndarray,
) -> bool:
    """Between two distinct documents of equal score, a (an index into ``rows``) ranks above b.

    By descending document id, by ascending tie key of their rows, or by first occurrence
    (``a < b``). Callers compare the scores themselves and call this only on a tie: a call
    passing arrays costs more than a comparison.
    """
    if tie_order == TIES_DOCID_DESCENDING:
        return compare_ids(keys, offsets, data, is_string, rows[a], rows[b]) > 0
    if tie_order == TIES_ASCENDING_KEY:
        return tie_keys[rows[a]] < tie_keys[rows[b]]
    return a < b


# One query's work is a function of its own: the parallel build's loop is then a single call, which numba's
# parallel passes handle in a fraction of the time a whole body takes (benchmarks/bench_compile.py).
@jit
def _rank_judged_query(
    q: int,
    run_group_offsets: np.ndarray,
    run_order: np.ndarray,
    run_keys: np.ndarray,
    run_offsets: np.ndarray,
    run_data: np.ndarray,
    scores: np.ndarray,
    duplicate_policy: int,
    tie_order: int,
    tie_keys: np.ndarray,
    judged_group_of_query: np.ndarray,
    judged_group_offsets: np.ndarray,
    judged_rows: np.ndarray,
    judged_keys: np.ndarray,
    judged_labels: np.ndarray,
    n_judged: np.ndarray,
    qrels_offsets: np.ndarray,
    qrels_data: np.ndarray,
    is_string: bool,
    ranks: np.ndarray,
    labels: np.ndarray,
    n_found: np.ndarray,
    n_ranked: np.ndarray,
    duplicate_rows: np.ndarray,
) -> None:
    """Query q's slots of the outputs (see :func:`rank_judged_documents`)."""
    base = run_group_offsets[q]
    rows = run_order[base : run_group_offsets[q + 1]]
    first_rows, kept, duplicate_rows[q] = resolve_duplicates(
        rows, run_keys, run_offsets, run_data, is_string, scores, duplicate_policy
    )
    m = first_rows.shape[0]
    n_ranked[q] = m
    slots = judgment_positions(
        first_rows, run_keys, run_offsets, run_data, judged_group_of_query[q], judged_group_offsets,
        judged_rows, judged_keys, n_judged, qrels_offsets, qrels_data, is_string,
    )
    found = np.empty(m, dtype=np.int64)
    found_labels = np.empty(m, dtype=judged_labels.dtype)
    j = 0
    for d in range(m):
        if slots[d] >= 0:
            found[j] = d
            found_labels[j] = judged_labels[slots[d]]
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
                and tie_precedes(doc, found[b], first_rows, tie_order, run_keys, run_offsets, run_data, is_string, tie_keys)
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
                and tie_precedes(found[mid], d, first_rows, tie_order, run_keys, run_offsets, run_data, is_string, tie_keys)
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
    run_group_offsets: np.ndarray,
    run_order: np.ndarray,
    run_keys: np.ndarray,
    run_offsets: np.ndarray,
    run_data: np.ndarray,
    scores: np.ndarray,
    duplicate_policy: int,
    tie_order: int,
    tie_keys: np.ndarray,
    judged_group_of_query: np.ndarray,
    judged_group_offsets: np.ndarray,
    judged_rows: np.ndarray,
    judged_keys: np.ndarray,
    judged_labels: np.ndarray,
    n_judged: np.ndarray,
    qrels_offsets: np.ndarray,
    qrels_data: np.ndarray,
    is_string: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The 0-based rank and the label of every retrieved judged document, per run query.

    Ranking as in :func:`retrieval_eval.kernels.core.ranking.rank_and_label` (same inputs). Returns
    padded CSR arrays over ``run_group_offsets``: ``ranks`` (ascending) and ``labels`` of the
    query's retrieved judged documents, then per query ``n_found`` (how many), ``n_ranked``
    (distinct documents retrieved) and ``duplicate_rows`` (first repeated row under RAISE, else -1).
    """
    n_queries = run_group_offsets.shape[0] - 1
    total = run_order.shape[0]
    # Zeros, not garbage, in the padding past each query's count: outputs are the same bits on every run.
    ranks = np.zeros(total, dtype=np.int64)
    labels = np.zeros(total, dtype=judged_labels.dtype)
    n_found = np.zeros(n_queries, dtype=np.int64)
    n_ranked = np.empty(n_queries, dtype=np.int64)
    duplicate_rows = np.empty(n_queries, dtype=np.int64)
    for q in prange(n_queries):
        # The parallel build's loop index is unsigned: as int64 it calls the same specialization as the serial one.
        _rank_judged_query(
            np.int64(q), run_group_offsets, run_order, run_keys, run_offsets, run_data, scores, duplicate_policy,
            tie_order, tie_keys, judged_group_of_query, judged_group_offsets, judged_rows, judged_keys, judged_labels,
            n_judged, qrels_offsets, qrels_data, is_string, ranks, labels, n_found, n_ranked, duplicate_rows,
        )
    return ranks, labels, n_found, n_ranked, duplicate_rows
