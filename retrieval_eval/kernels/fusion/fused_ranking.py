"""A fusion sweep's fast path: each configuration's ranking of the aligned rows, and its joins gathered from labels found once.

Every configuration of a fusion sweep ranks the same documents per query (the aligned rows),
so their labels are looked up in the qrels once; a configuration's joins are then those labels
gathered in its ranked order (:func:`gather_joins`), with no hashing, lookup or sort of ids.
Its ranked order is the fused run's (ranx's order, cut to the top k), and under trec_eval's ties
the same documents re-sorted by score descending, then doc id descending
(:func:`order_by_score_then_key`, with the ids' order as one int64 key per row found once).
"""

from __future__ import annotations

import numpy as np

from .._config import parallel_jit, prange, read_only
from ..core.sorting import stable_order
from ..core.tiebreak import order_ties_by_key


def _example() -> tuple:
    """One query of three kept rows, two of them tied, the tie keys putting row 2 first."""
    return (
        read_only([0, 3], np.int64), read_only([1, 0, 2], np.int64), read_only([0.5, 1.0, 0.5], np.float64),
        read_only([1, 2, 0], np.int64),
    )


@parallel_jit(example=_example)
def order_by_score_then_key(out_offsets: np.ndarray, rows: np.ndarray, scores: np.ndarray, tie_keys: np.ndarray) -> np.ndarray:
    """Each query's ``rows`` (``out_offsets`` delimit them) sorted by ``scores[row]`` descending, then ``tie_keys[row]`` ascending.

    Equal scores are those that compare equal (``0.0 == -0.0``), as in the join's ranking
    (:func:`retrieval_eval.kernels.core.ranking.rank_and_label`). Returns int64[len(rows)].
    """
    n_queries = out_offsets.shape[0] - 1
    ordered = np.empty(rows.shape[0], dtype=np.int64)
    for q in prange(n_queries):
        start = out_offsets[q]
        kept = rows[start : out_offsets[q + 1]]
        kept_scores = np.empty(kept.shape[0], dtype=np.float64)
        for i in range(kept.shape[0]):
            kept_scores[i] = scores[kept[i]]
        ranking = stable_order(kept_scores, True)
        order_ties_by_key(ranking, kept_scores, kept, tie_keys)
        for i in range(kept.shape[0]):
            ordered[start + i] = kept[ranking[i]]
    return ordered


def _gather_example() -> tuple:
    """One query ranking three rows, the first and last judged (labels 2 and 0)."""
    return (
        read_only([0, 3], np.int64), read_only([2, 1, 0], np.int64), read_only([0, 0, 2], np.int64),
        read_only([True, False, True], np.bool_),
    )


@parallel_jit(example=_gather_example)
def gather_joins(
    out_offsets: np.ndarray, rows: np.ndarray, row_labels: np.ndarray, row_judged: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Both joins of a ranking of distinct rows, from each row's label (0 when unjudged) and judged flag.

    Query q ranks ``rows[out_offsets[q]:out_offsets[q + 1]]`` in that order. Returns, as padded
    CSR arrays over ``out_offsets`` (zeros past each query's count, as the join kernels give):
    ``labels`` and ``judged`` in rank order (:func:`~retrieval_eval.kernels.core.ranking.rank_and_label`),
    then the 0-based ``ranks`` (ascending) and ``found_labels`` of the judged rows and ``n_found``
    per query (:func:`~retrieval_eval.kernels.core.judged_ranks.rank_judged_documents`).
    """
    n_queries = out_offsets.shape[0] - 1
    total = rows.shape[0]
    labels = np.empty(total, dtype=row_labels.dtype)
    judged = np.empty(total, dtype=np.bool_)
    ranks = np.zeros(total, dtype=np.int64)
    found_labels = np.zeros(total, dtype=row_labels.dtype)
    n_found = np.zeros(n_queries, dtype=np.int64)
    for q in prange(n_queries):
        start = out_offsets[q]
        found = 0
        for rank in range(out_offsets[q + 1] - start):
            row = rows[start + rank]
            labels[start + rank] = row_labels[row]
            judged[start + rank] = row_judged[row]
            if row_judged[row]:
                ranks[start + found] = rank
                found_labels[start + found] = row_labels[row]
                found += 1
        n_found[q] = found
    return labels, judged, ranks, found_labels, n_found
