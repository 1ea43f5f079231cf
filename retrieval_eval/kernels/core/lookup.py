"""Positions of ids among a set of distinct ids, by 64-bit key with the bytes confirmed."""

from __future__ import annotations

import numpy as np

from .._config import jit, read_only
from .ranking import find_judgment


def _example() -> tuple:
    """Integer id 2 looked up among the ids 2 and 1 (sorted keys 1, 2 at rows 1, 0)."""
    no_offsets, no_bytes = read_only([0], np.int64), read_only([], np.uint8)
    needles, rows, keys = read_only([2], np.uint64), read_only([1, 0], np.int64), read_only([1, 2], np.uint64)
    return needles, no_offsets, no_bytes, rows, keys, no_offsets, no_bytes, False


# Serial only: one binary search per distinct query id is milliseconds even for 100,000 queries, less than
# the thread pool's start and far less than compiling a parallel build.
@jit(example=_example)
def positions_by_key(
    needle_keys: np.ndarray,
    needle_offsets: np.ndarray,
    needle_data: np.ndarray,
    rows_by_key: np.ndarray,
    sorted_keys: np.ndarray,
    offsets: np.ndarray,
    data: np.ndarray,
    is_string: bool,
) -> np.ndarray:
    """For each needle, the row of the equal id (-1 when none): a binary search of ``sorted_keys``
    (the keys of rows ``rows_by_key``) confirmed on the bytes for strings, as the judgment lookup does."""
    n = needle_keys.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        hit = find_judgment(i, needle_keys, needle_offsets, needle_data, rows_by_key, sorted_keys, offsets, data, is_string)
        out[i] = rows_by_key[hit] if hit >= 0 else -1
    return out
