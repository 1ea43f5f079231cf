"""Whole-array building blocks of the numpy builds: queries as segments of flat arrays.

A segment is one query's slice of a flat array (its documents, its judgments), given by an
offset and a length. These helpers turn per-segment loops into a few numpy calls: every element
tagged with its segment and its position there, counts per segment, running sums along padded
rows (one float addition after the other, the compiled walks' order).
"""

from __future__ import annotations

import math

import numpy as np


def gather(values: np.ndarray, index: np.ndarray, fill: int) -> np.ndarray:
    """``values[index]``, ``fill`` where the index is -1 (a query absent from that side)."""
    out = np.full(index.shape[0], fill, dtype=values.dtype)
    present = index >= 0
    out[present] = values[index[present]]
    return out


def segments(offsets: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Segment i is ``offsets[i] + range(lengths[i])``: each element's segment, position in it and segment offset."""
    segment = np.repeat(np.arange(lengths.shape[0]), lengths)
    heads = np.cumsum(lengths) - lengths
    position = np.arange(segment.shape[0]) - heads[segment]
    return segment, position, offsets[segment]


def count(segment: np.ndarray, flags: np.ndarray, n_segments: int) -> np.ndarray:
    """The elements of each segment whose flag is set."""
    return np.bincount(segment[flags], minlength=n_segments).astype(np.int64)


def count_so_far(flags: np.ndarray, position: np.ndarray) -> np.ndarray:
    """For each element, the flags set in its segment up to it (inclusive)."""
    so_far = np.cumsum(flags, dtype=np.int64)
    before = so_far - flags
    return so_far - before[np.arange(flags.shape[0]) - position]


def running(segment: np.ndarray, position: np.ndarray, terms: np.ndarray, n_segments: int, width: int) -> np.ndarray:
    """Running sums of each segment's terms, in order: column t is the sum of its first t terms, 0 <= t <= width.

    ``np.cumsum`` along a row adds one element after the other (a float sum from 0.0, as the
    walk's); the columns past a segment's end repeat its total.
    """
    matrix = np.zeros((n_segments, width + 1), dtype=terms.dtype)
    matrix[segment, position + 1] = terms
    return np.cumsum(matrix, axis=1)


def divide_where(a: np.ndarray, b: np.ndarray, where: np.ndarray, otherwise: np.ndarray | float = 0.0) -> np.ndarray:
    """``a / b`` where ``where`` holds, ``otherwise`` elsewhere (no division by the zeros left out)."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(where))
    out = np.array(np.broadcast_to(otherwise, shape), dtype=np.float64)
    return np.divide(a, b, out=out, where=where)


def two_to(exponents: np.ndarray) -> np.ndarray:
    """``2.0 ** e``: for integer exponents exact, 0.0 below the subnormals, infinity from 2^1024 (as the power
    overflows); for float exponents (float labels) C's ``pow``, as the compiled walks' ``2.0 ** label``.

    numpy's own ``np.power`` is a SIMD build that differs from C's ``pow`` in the last bit for a
    few percent of exponents, so the distinct exponents (a label scale has few) go through
    ``math.pow``, which is C's.
    """
    if exponents.dtype.kind == "f":
        distinct, where = np.unique(exponents, return_inverse=True)
        return np.array([math.pow(2.0, value) for value in distinct.tolist()], dtype=np.float64)[where.reshape(exponents.shape)]
    return np.where(exponents < 1024, np.ldexp(1.0, np.clip(exponents, -1100, 1023)), np.inf)


def padded_cells(n_segments: int, *lengths: np.ndarray) -> int:
    """The cells of the widest padded matrix :func:`running` builds: segments x the longest of ``lengths``.

    This, not the rows, is a numpy build's work: one long query among many short ones widens
    every row.
    """
    return n_segments * max((int(n.max(initial=0)) for n in lengths), default=0)
