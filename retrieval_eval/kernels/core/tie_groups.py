"""The join for tie-averaged values: every run query's distinct documents in rank order, labelled, with their tie groups.

A *tie group* is a query's documents of one score: consecutive ranks, since ranking sorts by
score first. Ties are put in input order here, but any order would do: the tie-averaged
measures (:mod:`.tie_average`) read a group only through its size and the sums of its labels,
which no order within it changes. Whole-array numpy (the sorts of
:func:`~retrieval_eval.kernels.core.judged_ranks_numpy.rank_distinct_documents`), no numba build.
"""

from __future__ import annotations

import numpy as np

from .bundles import JoinRule, JudgmentArrays, RunArrays
from .judged_ranks_numpy import rank_distinct_documents


def rank_with_tie_groups(
    run: RunArrays, judgments: JudgmentArrays, group_of_query: np.ndarray, rule: JoinRule
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~retrieval_eval.kernels.core.ranking.rank_and_label`'s outputs, then each ranked document's tie group.

    Returns ``(ranked_labels, ranked_judged, n_ranked, duplicate_rows, group_start, group_size)``:
    padded CSR arrays over ``run.group_offsets`` as ``rank_and_label`` gives them (``rule``'s tie
    order decides only the order within a group), then for the document at rank j of query q
    (slot ``run.group_offsets[q] + j``) the rank where its group of equal scores starts and the
    group's size (int64; 0 in the padding).
    """
    total = run.order.shape[0]
    ranked_labels = np.zeros(total, dtype=judgments.labels.dtype)
    ranked_judged = np.zeros(total, dtype=np.bool_)
    group_start = np.zeros(total, dtype=np.int64)
    group_size = np.zeros(total, dtype=np.int64)
    n_ranked, duplicate_rows, ranked_query, ranked_primary, _, slots, _ = rank_distinct_documents(
        run, judgments, group_of_query, rule
    )
    m = ranked_query.shape[0]
    if m == 0:
        return ranked_labels, ranked_judged, n_ranked, duplicate_rows, group_start, group_size
    query_starts = np.cumsum(n_ranked) - n_ranked
    rank = np.arange(m) - query_starts[ranked_query]
    out = run.group_offsets[ranked_query] + rank
    # ranked_primary codes (query, score): equal neighbours are one group of equal scores.
    new_group = np.ones(m, dtype=np.bool_)
    new_group[1:] = ranked_primary[1:] != ranked_primary[:-1]
    heads = np.flatnonzero(new_group)
    group = np.cumsum(new_group) - 1
    group_start[out] = rank[heads][group]
    group_size[out] = np.diff(np.append(heads, m))[group]
    found = slots >= 0
    ranked_labels[out[found]] = judgments.labels[slots[found]]
    ranked_judged[out] = found
    return ranked_labels, ranked_judged, n_ranked, duplicate_rows, group_start, group_size
