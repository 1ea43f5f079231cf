"""The python build of :func:`retrieval_eval.kernels.core.ranking.rank_and_label`, in whole-array numpy.

The kernel ranks a query at a time and looks its documents up one at a time: fast compiled, slow
interpreted. This build gives the same arrays to the bit with the sorts and the one search of the
judgments that rank every query's documents at once for the judged-ranks join
(:func:`retrieval_eval.kernels.core.judged_ranks_numpy.rank_distinct_documents`), then writes each
ranked document's label where the kernel writes it.
"""

from __future__ import annotations

import numpy as np

from .judged_ranks_numpy import rank_distinct_documents
from .tiebreak import TIES_ASCENDING_KEY


def _ascending_tie_keys(tie_keys: np.ndarray) -> np.ndarray:
    """Tie keys whose ascending order is the kernel's: it sorts their negations as float64, descending.

    The same order as the int64 keys up to 2**53 in magnitude; past it, keys that round to one
    float64 are one group, and the most negative key negates to itself, as in the kernel.
    """
    return -(-tie_keys).astype(np.float64)


def numpy_rank_and_label(
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
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~retrieval_eval.kernels.core.ranking.rank_and_label` (same arguments, same outputs)."""
    total = run_order.shape[0]
    ranked_labels = np.zeros(total, dtype=judged_labels.dtype)
    ranked_judged = np.zeros(total, dtype=np.bool_)
    if tie_order == TIES_ASCENDING_KEY:
        tie_keys = _ascending_tie_keys(tie_keys)
    n_ranked, duplicate_rows, ranked_query, _, _, slots = rank_distinct_documents(
        run_group_offsets, run_order, run_keys, run_offsets, run_data, scores, duplicate_policy, tie_order, tie_keys,
        judged_group_of_query, judged_group_offsets, judged_rows, judged_keys, judged_labels, n_judged,
        qrels_offsets, qrels_data, is_string,
    )
    # The j-th ranked document of query q goes to slot run_group_offsets[q] + j.
    query_starts = np.cumsum(n_ranked) - n_ranked
    out = run_group_offsets[ranked_query] + (np.arange(ranked_query.shape[0]) - query_starts[ranked_query])
    found = slots >= 0
    ranked_labels[out[found]] = judged_labels[slots[found]]
    ranked_judged[out] = found
    return ranked_labels, ranked_judged, n_ranked, duplicate_rows
