"""The python build of :func:`retrieval_eval.kernels.core.ranking.rank_and_label`, in whole-array numpy.

The kernel ranks a query at a time and looks its documents up one at a time: fast compiled, slow
interpreted. This build gives the same arrays to the bit with the sorts and the one search of the
judgments that rank every query's documents at once for the judged-ranks join
(:func:`retrieval_eval.kernels.core.judged_ranks_numpy.rank_distinct_documents`), then writes each
ranked document's label where the kernel writes it.
"""

from __future__ import annotations

import numpy as np

from .bundles import JoinRule, JudgmentArrays, RunArrays
from .judged_ranks_numpy import rank_distinct_documents
from .tiebreak import TIES_ASCENDING_KEY


def _ascending_tie_keys(tie_keys: np.ndarray) -> np.ndarray:
    """Tie keys whose ascending order is the kernel's: it sorts their negations as float64, descending.

    The same order as the int64 keys up to 2**53 in magnitude; past it, keys that round to one
    float64 are one group, and the most negative key negates to itself, as in the kernel.
    """
    return -(-tie_keys).astype(np.float64)


def numpy_rank_and_label(
    run: RunArrays, judgments: JudgmentArrays, group_of_query: np.ndarray, rule: JoinRule
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~retrieval_eval.kernels.core.ranking.rank_and_label` (same arguments, same outputs)."""
    total = run.order.shape[0]
    ranked_labels = np.zeros(total, dtype=judgments.labels.dtype)
    ranked_judged = np.zeros(total, dtype=np.bool_)
    if rule.tie_order == TIES_ASCENDING_KEY:
        rule = rule._replace(tie_keys=_ascending_tie_keys(rule.tie_keys))
    n_ranked, duplicate_rows, ranked_query, _, _, slots, _ = rank_distinct_documents(run, judgments, group_of_query, rule)
    # The j-th ranked document of query q goes to slot run_group_offsets[q] + j.
    query_starts = np.cumsum(n_ranked) - n_ranked
    out = run.group_offsets[ranked_query] + (np.arange(ranked_query.shape[0]) - query_starts[ranked_query])
    found = slots >= 0
    ranked_labels[out[found]] = judgments.labels[slots[found]]
    ranked_judged[out] = found
    return ranked_labels, ranked_judged, n_ranked, duplicate_rows
