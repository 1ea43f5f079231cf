"""Per-query judgment index: distinct judged documents sorted by id key, and the ideal labels.

Built once per ``Qrels`` and reused for every run scored against it.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._config import jit, parallel_jit
from .hashing import same_id

# Which row wins when the same (query, document) pair appears more than once.
KEEP_LAST = 0
KEEP_FIRST = 1
KEEP_MAX = 2
RAISE = 3


@jit
def resolve_duplicates(
    rows: np.ndarray,
    keys: np.ndarray,
    offsets: np.ndarray,
    data: np.ndarray,
    is_string: bool,
    values: np.ndarray,
    policy: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Collapse the rows of one query to distinct documents.

    ``rows`` are row numbers in input order. Returns ``(first_rows, kept_values, by_key,
    duplicate_row)``: for each distinct document, in order of first occurrence, the row of its
    first occurrence and the value chosen by ``policy`` (last, first or max occurrence);
    ``by_key`` lists those documents' positions sorted by id key (ties in position order);
    ``duplicate_row`` is the first repeated row when ``policy`` is RAISE, else -1.
    """
    n = rows.shape[0]
    row_keys = np.empty(n, dtype=np.uint64)
    for i in range(n):
        row_keys[i] = keys[rows[i]]
    by_key_rows = np.argsort(row_keys, kind="mergesort")
    representative = np.arange(n)
    duplicate_row = -1
    start = 0
    while start < n:
        stop = start + 1
        while stop < n and row_keys[by_key_rows[stop]] == row_keys[by_key_rows[start]]:
            stop += 1
        # Equal keys: compare bytes so that a hash collision never merges two documents.
        for a in range(start + 1, stop):
            pos_a = by_key_rows[a]
            for b in range(start, a):
                pos_b = by_key_rows[b]
                if representative[pos_b] == pos_b and same_id(
                    keys, offsets, data, rows[pos_a], keys, offsets, data, rows[pos_b], is_string
                ):
                    representative[pos_a] = pos_b
                    if duplicate_row < 0 or rows[pos_a] < duplicate_row:
                        duplicate_row = rows[pos_a]
                    break
        start = stop

    kept = np.empty(n, dtype=values.dtype)
    for i in range(n):
        kept[i] = values[rows[i]]
    for i in range(n):
        r = representative[i]
        if r != i:
            v = values[rows[i]]
            if policy == KEEP_LAST or (policy == KEEP_MAX and v > kept[r]):
                kept[r] = v

    n_distinct = 0
    for i in range(n):
        if representative[i] == i:
            n_distinct += 1
    first_rows = np.empty(n_distinct, dtype=np.int64)
    kept_values = np.empty(n_distinct, dtype=values.dtype)
    slot = np.full(n, -1, dtype=np.int64)
    j = 0
    for i in range(n):
        if representative[i] == i:
            first_rows[j] = rows[i]
            kept_values[j] = kept[i]
            slot[i] = j
            j += 1
    by_key = np.empty(n_distinct, dtype=np.int64)
    j = 0
    for a in range(n):
        pos = by_key_rows[a]
        if representative[pos] == pos:
            by_key[j] = slot[pos]
            j += 1
    return first_rows, kept_values, by_key, (duplicate_row if policy == RAISE else -1)


@parallel_jit
def index_judgments(
    group_offsets: np.ndarray,
    order: np.ndarray,
    keys: np.ndarray,
    offsets: np.ndarray,
    data: np.ndarray,
    is_string: bool,
    labels: np.ndarray,
    policy: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Index every query's judgments (outputs are padded CSR over ``group_offsets``).

    Returns ``(doc_rows, doc_labels, ideal_labels, n_judged, duplicate_rows)``: for query q,
    slots ``group_offsets[q] : group_offsets[q] + n_judged[q]`` hold its distinct judged
    documents sorted by id key (``doc_rows``: the row of first occurrence) with their labels,
    and ``ideal_labels`` holds those labels sorted descending. ``duplicate_rows[q]`` is the
    first repeated row of q under the RAISE policy, else -1.
    """
    n_groups = group_offsets.shape[0] - 1
    total = order.shape[0]
    doc_rows = np.empty(total, dtype=np.int64)
    doc_labels = np.empty(total, dtype=labels.dtype)
    ideal_labels = np.empty(total, dtype=labels.dtype)
    n_judged = np.empty(n_groups, dtype=np.int64)
    duplicate_rows = np.empty(n_groups, dtype=np.int64)
    for q in prange(n_groups):
        base = group_offsets[q]
        rows = order[base : group_offsets[q + 1]]
        first_rows, kept, by_key, duplicate_rows[q] = resolve_duplicates(
            rows, keys, offsets, data, is_string, labels, policy
        )
        m = first_rows.shape[0]
        n_judged[q] = m
        for j in range(m):
            doc_rows[base + j] = first_rows[by_key[j]]
            doc_labels[base + j] = kept[by_key[j]]
        descending = np.sort(kept)[::-1]
        for j in range(m):
            ideal_labels[base + j] = descending[j]
    return doc_rows, doc_labels, ideal_labels, n_judged, duplicate_rows
