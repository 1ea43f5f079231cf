"""64-bit hashes and exact equality of ids stored as Arrow-style byte buffers.

A string column is described by ``offsets`` (int64, length n + 1) and ``data`` (uint8): the
bytes of row ``i`` are ``data[offsets[i]:offsets[i + 1]]``. An integer column has no bytes:
its key is the value itself, so two integer ids are equal exactly when their keys are.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange, read_only

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


def _string_example() -> tuple:
    """The ids "a" and "b" as read-only Arrow buffers."""
    return read_only([0, 1, 2], np.int64), read_only(list(b"ab"), np.uint8)


def _numpy_fnv1a_hashes(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """:func:`fnv1a_hashes` a byte position at a time over every row still that long: the python build.

    A loop over bytes is slow in Python; this one runs as many numpy steps as the longest id
    has bytes (the same uint64 arithmetic, wrapping the same way).
    """
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    out = np.full(lengths.shape[0], _FNV_OFFSET, dtype=np.uint64)
    rows = np.arange(lengths.shape[0])
    for position in range(int(lengths.max(initial=0))):
        rows = rows[lengths[rows] > position]
        out[rows] = (out[rows] ^ data[starts[rows] + position].astype(np.uint64)) * _FNV_PRIME
    return out


# A byte position of a python build that steps through the ids a position at a time costs 3-4 us
# (a few numpy calls on the rows still that long), as much as about 4 rows of work elsewhere: at 4
# a position, an id of 125k bytes or more (0.4 s as python) is past the crossover, where the
# compiled loop reads a byte in a nanosecond (a 1 MB id: 3.4 s as python).
ROWS_PER_BYTE_POSITION = 4


def byte_position_work(offsets: np.ndarray) -> int:
    """The work of a call that steps through string ids a byte position at a time: the rows, or 4 a byte of the longest id if more."""
    rows = offsets.shape[0] - 1
    longest = int(np.diff(offsets).max(initial=0))
    return max(rows, ROWS_PER_BYTE_POSITION * longest)


@parallel_jit(example=_string_example, python=_numpy_fnv1a_hashes, work=lambda offsets, data: byte_position_work(offsets))
def fnv1a_hashes(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """FNV-1a 64 hash of each row's bytes: ``h = (h XOR byte) * 1099511628211 mod 2^64``."""
    n = offsets.shape[0] - 1
    out = np.empty(n, dtype=np.uint64)
    for i in prange(n):
        h = _FNV_OFFSET
        for j in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(data[j])) * _FNV_PRIME
        out[i] = h
    return out


@jit
def same_bytes(
    offsets_a: np.ndarray, data_a: np.ndarray, row_a: int, offsets_b: np.ndarray, data_b: np.ndarray, row_b: int
) -> bool:
    """The two rows hold the same bytes."""
    start_a = offsets_a[row_a]
    start_b = offsets_b[row_b]
    length = offsets_a[row_a + 1] - start_a
    if length != offsets_b[row_b + 1] - start_b:
        return False
    for j in range(length):
        if data_a[start_a + j] != data_b[start_b + j]:
            return False
    return True
