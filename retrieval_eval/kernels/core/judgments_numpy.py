"""The python build of :func:`retrieval_eval.kernels.core.judgments.index_judgments`, in whole-array numpy.

The kernel collapses each query's repeated judgments in a hash table and sorts its documents
by key, a document at a time. This build gives the same arrays in a few sorts over every
judgment at once: duplicates collapse as the ranking joins collapse them
(:func:`.judged_ranks_numpy.collapse_duplicates`), then one stable sort by (query, key, first
occurrence) lays out the index and one by (query, label) the ideal labels.
"""

from __future__ import annotations

import numpy as np

from .judged_ranks_numpy import collapse_duplicates, dense_codes


def numpy_index_judgments(
    group_offsets: np.ndarray,
    order: np.ndarray,
    keys: np.ndarray,
    offsets: np.ndarray,
    data: np.ndarray,
    is_string: bool,
    labels: np.ndarray,
    policy: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~retrieval_eval.kernels.core.judgments.index_judgments` (same arguments, same outputs, padding zeros)."""
    n_groups = group_offsets.shape[0] - 1
    total = order.shape[0]
    doc_rows = np.zeros(total, dtype=np.int64)
    sorted_keys = np.zeros(total, dtype=np.uint64)
    doc_labels = np.zeros(total, dtype=labels.dtype)
    ideal_labels = np.zeros(total, dtype=labels.dtype)
    n_judged = np.zeros(n_groups, dtype=np.int64)
    positions = np.arange(group_offsets[0], group_offsets[-1])
    if positions.shape[0] == 0:
        return doc_rows, sorted_keys, doc_labels, ideal_labels, n_judged, np.full(n_groups, -1, dtype=np.int64)
    query = np.repeat(np.arange(n_groups), np.diff(group_offsets))
    rows = order[positions]
    key_codes, n_codes = dense_codes(keys[rows])
    first_index, kept, duplicate_rows = collapse_duplicates(
        query, rows, key_codes, n_codes, offsets, data, is_string, labels, policy, n_groups
    )
    doc_query = query[first_index]
    n_judged[:] = np.bincount(doc_query, minlength=n_groups)
    # Slot j of query q is group_offsets[q] + j: the documents of each query in the order of a sort.
    query_starts = np.cumsum(n_judged) - n_judged
    within = np.arange(doc_query.shape[0]) - query_starts[np.sort(doc_query)]
    # Equal keys of different ids (a hash collision) stay in order of first occurrence, as a stable sort leaves them.
    by_key = np.lexsort((first_index, key_codes[first_index], doc_query))
    slots = group_offsets[doc_query[by_key]] + within
    doc_rows[slots] = rows[first_index[by_key]]
    sorted_keys[slots] = keys[doc_rows[slots]]
    doc_labels[slots] = kept[by_key]
    by_label = np.lexsort((kept, doc_query))
    # Ascending labels by query, laid out from each query's end: descending.
    ideal_slots = group_offsets[doc_query[by_label]] + (n_judged[doc_query[by_label]] - 1 - within)
    ideal_labels[ideal_slots] = kept[by_label]
    return doc_rows, sorted_keys, doc_labels, ideal_labels, n_judged, duplicate_rows
