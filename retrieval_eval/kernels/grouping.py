"""Grouping rows by query without a global sort.

Result files are nearly always written query by query, so rows are first cut into runs of
equal consecutive ids (one linear pass); only the run heads need a generic factorization.
Rows are then grouped by query code with a stable counting sort, which is skipped when the
input is already grouped.
"""

from __future__ import annotations

import numpy as np

from ._config import jit, parallel_jit, prange, read_only
from .hashing import same_bytes


def _integer_ids_example() -> tuple:
    """Integer ids 1, 1, 2: their keys, and the empty byte buffers of an integer column."""
    return read_only([1, 1, 2], np.uint64), read_only([0], np.int64), read_only([], np.uint8), False


@parallel_jit(example=_integer_ids_example)
def segment_starts(keys: np.ndarray, offsets: np.ndarray, data: np.ndarray, is_string: bool) -> np.ndarray:
    """Indices where a run of equal consecutive ids begins (always starts with 0 when n > 0).

    String ids are compared by their bytes (``keys`` is not read), integer ids by ``keys``.
    """
    n = offsets.shape[0] - 1 if is_string else keys.shape[0]
    is_start = np.empty(n, dtype=np.bool_)
    for i in prange(n):
        if i == 0:
            is_start[i] = True
        elif is_string:
            is_start[i] = not same_bytes(offsets, data, i - 1, offsets, data, i)
        else:
            is_start[i] = keys[i - 1] != keys[i]
    return np.flatnonzero(is_start)


@jit(example=lambda: (np.array([1, 0, 1], dtype=np.int64), 2))
def counting_sort(codes: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """Stable grouping of rows by integer code in ``[0, n_codes)``.

    Returns ``(order, group_offsets)``: the rows of code ``c`` are
    ``order[group_offsets[c]:group_offsets[c + 1]]``, in input order.
    """
    group_offsets = np.zeros(n_codes + 1, dtype=np.int64)
    for c in codes:
        group_offsets[c + 1] += 1
    for c in range(n_codes):
        group_offsets[c + 1] += group_offsets[c]
    cursor = group_offsets[:-1].copy()
    order = np.empty(codes.shape[0], dtype=np.int64)
    for i in range(codes.shape[0]):
        c = codes[i]
        order[cursor[c]] = i
        cursor[c] += 1
    return order, group_offsets
