"""Per-query judgment index: distinct judged documents sorted by id key, and the ideal labels.

Built once per ``Qrels`` and reused for every run scored against it.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from .duplicate_policy import KEEP_LAST, KEEP_MAX, RAISE
from .hashing import same_bytes
from .judgments_numpy import numpy_index_judgments
from .sorting import stable_order

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@jit
def resolve_duplicates(
    rows: np.ndarray,
    keys: np.ndarray,
    offsets: np.ndarray,
    data: np.ndarray,
    is_string: bool,
    values: np.ndarray,
    policy: int,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Collapse the rows of one query to distinct documents.

    ``rows`` are row numbers in input order. Returns ``(first_rows, kept_values,
    duplicate_row)``: for each distinct document, in order of first occurrence, the row of its
    first occurrence and the value chosen by ``policy`` (last, first or max occurrence);
    ``duplicate_row`` is the first repeated row when ``policy`` is RAISE, else -1.

    Documents are found in an open-addressing table keyed by id key (expected O(n)); a key
    match is confirmed on the bytes, so a hash collision never merges two documents.
    """
    n = rows.shape[0]
    bits = 1
    while (1 << bits) < 2 * n:
        bits += 1
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    table = np.full(1 << bits, -1, dtype=np.int64)
    first_rows = np.empty(n, dtype=np.int64)
    kept = np.empty(n, dtype=values.dtype)
    n_distinct = 0
    duplicate_row = -1
    for i in range(n):
        row = rows[i]
        slot = np.int64((keys[row] * _GOLDEN) >> shift)
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = n_distinct
                first_rows[n_distinct] = row
                kept[n_distinct] = values[row]
                n_distinct += 1
                break
            # Keys first: a call passing arrays costs more than the comparison, so bytes are
            # compared only when the keys match.
            if keys[first_rows[j]] == keys[row] and (
                not is_string or same_bytes(offsets, data, first_rows[j], offsets, data, row)
            ):
                if duplicate_row < 0:
                    duplicate_row = row
                v = values[row]
                if policy == KEEP_LAST or (policy == KEEP_MAX and v > kept[j]):
                    kept[j] = v
                break
            slot = (slot + 1) & mask
    return first_rows[:n_distinct], kept[:n_distinct], (duplicate_row if policy == RAISE else -1)


def _example() -> tuple:
    """One query judging integer documents 1 (label 1) and 2 (label 0)."""
    no_offsets, no_bytes = read_only([0], np.int64), read_only([], np.uint8)
    rows, keys, labels = read_only([0, 1], np.int64), read_only([1, 2], np.uint64), read_only([1, 0], np.int64)
    return read_only([0, 2], np.int64), rows, keys, no_offsets, no_bytes, False, labels, KEEP_LAST


@parallel_jit(example=_example, python=numpy_index_judgments)
def index_judgments(
    group_offsets: np.ndarray,
    order: np.ndarray,
    keys: np.ndarray,
    offsets: np.ndarray,
    data: np.ndarray,
    is_string: bool,
    labels: np.ndarray,
    policy: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Index every query's judgments (outputs are padded CSR over ``group_offsets``).

    Returns ``(doc_rows, doc_keys, doc_labels, ideal_labels, n_judged, duplicate_rows)``: for
    query q, slots ``group_offsets[q] : group_offsets[q] + n_judged[q]`` hold its distinct judged
    documents sorted by id key (``doc_rows``: the row of first occurrence; ``doc_keys``: their
    keys, stored contiguously so a lookup touches a few cache lines) with their labels, and
    ``ideal_labels`` holds those labels sorted descending. ``duplicate_rows[q]`` is the
    first repeated row of q under the RAISE policy, else -1.
    """
    n_groups = group_offsets.shape[0] - 1
    total = order.shape[0]
    # Zeros, not garbage, in the padding past each query's count: outputs are the same bits on every run.
    doc_rows = np.zeros(total, dtype=np.int64)
    sorted_keys = np.zeros(total, dtype=np.uint64)
    doc_labels = np.zeros(total, dtype=labels.dtype)
    ideal_labels = np.zeros(total, dtype=labels.dtype)
    n_judged = np.empty(n_groups, dtype=np.int64)
    duplicate_rows = np.empty(n_groups, dtype=np.int64)
    for q in prange(n_groups):
        base = group_offsets[q]
        rows = order[base : group_offsets[q + 1]]
        first_rows, kept, duplicate_rows[q] = resolve_duplicates(rows, keys, offsets, data, is_string, labels, policy)
        m = first_rows.shape[0]
        doc_keys = np.empty(m, dtype=np.uint64)
        for j in range(m):
            doc_keys[j] = keys[first_rows[j]]
        by_key = stable_order(doc_keys, False)
        n_judged[q] = m
        for j in range(m):
            doc_rows[base + j] = first_rows[by_key[j]]
            sorted_keys[base + j] = doc_keys[by_key[j]]
            doc_labels[base + j] = kept[by_key[j]]
        by_label = stable_order(kept, True)
        for j in range(m):
            ideal_labels[base + j] = kept[by_label[j]]
    return doc_rows, sorted_keys, doc_labels, ideal_labels, n_judged, duplicate_rows
