"""Grouping rows by query without a global sort.

Result files are nearly always written query by query, so rows are first cut into runs of
equal consecutive ids (one linear pass); only the run heads need a generic factorization.
Rows are then grouped by query code with a stable counting sort, which is skipped when the
input is already grouped.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from .hashing import byte_position_work, same_bytes


def _integer_ids_example() -> tuple:
    """Integer ids 1, 1, 2: their keys, and the empty byte buffers of an integer column."""
    return read_only([1, 1, 2], np.uint64), read_only([0], np.int64), read_only([], np.uint8), False


def _numpy_segment_starts(keys: np.ndarray, offsets: np.ndarray, data: np.ndarray, is_string: bool) -> np.ndarray:
    """:func:`segment_starts` with numpy: the python build (a call per pair of rows is slow in Python).

    Neighbours of different lengths differ; those of equal length are compared a byte position
    at a time, each step over the pairs not yet told apart.
    """
    n = offsets.shape[0] - 1 if is_string else keys.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.int64)
    if not is_string:
        differs = keys[1:] != keys[:-1]
    else:
        starts = offsets[:-1]
        lengths = offsets[1:] - starts
        differs = lengths[1:] != lengths[:-1]
        pairs = np.flatnonzero(~differs)  # pair p is rows p and p + 1
        for position in range(int(lengths.max(initial=0))):
            pairs = pairs[lengths[pairs] > position]
            if pairs.shape[0] == 0:
                break
            mismatch = data[starts[pairs] + position] != data[starts[pairs + 1] + position]
            differs[pairs[mismatch]] = True
            pairs = pairs[~mismatch]
    return np.flatnonzero(np.concatenate((np.ones(1, dtype=np.bool_), differs))).astype(np.int64)


def _segment_work(keys: np.ndarray, offsets: np.ndarray, data: np.ndarray, is_string: bool) -> int:
    return byte_position_work(offsets) if is_string else keys.shape[0]


@parallel_jit(example=_integer_ids_example, python=_numpy_segment_starts, work=_segment_work)
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
