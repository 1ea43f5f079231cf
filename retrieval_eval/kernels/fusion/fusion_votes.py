"""ranx 0.3.21's voting fusion methods: Borda counts, Condorcet's pairwise majorities and Rank-Biased Centroids.

They read positions only, never scores. A query has ``n`` candidates (the union of the runs'
documents, the aligned rows); run r has ``d_r`` of them and gives the candidate at 1-based
position ``p_r`` (0: r lacks it) a number of points; weights ``w_r`` are ones for the
unweighted methods. Sums run over the runs in run order from 0, one addition at a time, as
ranx's compiled functions add (ranx/fusion/*.py); a weight of 1 changes no product, so one
kernel serves a method and its weighted variant bit for bit.

- ``bordafuse`` / ``w_bordafuse`` (Aslam and Montague, SIGIR 2001): ``sum_r w_r * b_r`` with
  ``b_r = n - (p_r - 1)`` where r has the document and ``(n - d_r + 1) / 2`` where it lacks it
  (the mean of the points left over);
- ``condorcet`` / ``w_condorcet`` (Montague and Aslam, CIKM 2002): the candidates sorted by
  ``compare(x, y) = -1 if W(x ahead) >= W(y ahead) else 1`` (W: the weight of the runs placing
  that one ahead; a run lacking a candidate places it at 1,000,000, both lacking counts for y),
  by CPython's sort (:mod:`retrieval_eval.kernels.fusion.fusion_votes_sort`: the relation is no order
  and the result is the algorithm's), the i-th (0-based) scoring ``n - i``;
- ``rbc`` (Bailey, Moffat, Scholer and Thomas, SIGIR 2017): ``sum_r (1 - phi) * phi ** (p_r - 1)``
  over the runs having the document, ``phi ** i`` by repeated squaring as numba computes a float
  to an integer power (:func:`int_power`), so that every build gives the same bits.

ranx takes the candidates of ``bordafuse`` and ``condorcet`` from a Python ``set``, whose order
changes with ``PYTHONHASHSEED``: here they are the aligned rows' order (run 0's documents in its
order, then the documents only run 1 has, ...). Borda's points do not depend on it (the order of
the fused ties does); Condorcet's do (retrieval_eval.fusion.voting).
"""

from __future__ import annotations

import math

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from .fusion_votes_sort import condorcet_sort


def _example() -> tuple:
    """One query of three candidates, two runs (run 1 lacks the first), weights 0.3 and 0.7."""
    return (
        read_only([0, 3], np.int64), read_only([[1, 0], [2, 1], [3, 2]], np.int64), read_only([[3, 2]], np.int64),
        read_only([0.3, 0.7], np.float64),
    )


@parallel_jit(example=_example)
def borda_points(offsets: np.ndarray, ranks: np.ndarray, depths: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``bordafuse`` (weights of ones) and ``w_bordafuse``: each aligned row's ``sum_r w_r * b_r`` (module docstring)."""
    n_queries = offsets.shape[0] - 1
    n_runs = ranks.shape[1]
    fused = np.empty(ranks.shape[0], dtype=np.float64)
    for q in prange(n_queries):
        start = offsets[q]
        stop = offsets[q + 1]
        n = stop - start
        for row in range(start, stop):
            total = 0.0
            for r in range(n_runs):
                p = ranks[row, r]
                points = float(n - (p - 1)) if p > 0 else (n - depths[q, r] + 1) / 2
                total += weights[r] * points
            fused[row] = total
    return fused


@parallel_jit(example=_example)
def condorcet_points(offsets: np.ndarray, ranks: np.ndarray, depths: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``condorcet`` (weights of ones) and ``w_condorcet``: ``n - i`` for the i-th candidate of ranx's sort.

    ``depths`` is unused (the fusion kernels' common arguments): a lacking run's place is fixed.
    """
    n_queries = offsets.shape[0] - 1
    fused = np.empty(ranks.shape[0], dtype=np.float64)
    for q in prange(n_queries):
        start = offsets[q]
        stop = offsets[q + 1]
        n = stop - start
        order = np.arange(n, dtype=np.int64)
        condorcet_sort(order, ranks[start:stop], weights)
        for i in range(n):
            fused[start + order[i]] = float(n - i)
    return fused


@jit
def int_power(base: float, exponent: int) -> float:
    """``base ** exponent`` for an integer ``exponent >= 0`` as numba compiles it (numba/cpython/numbers.py's
    ``int_power``: repeated squaring, ``math.pow`` above 0x10000), which differs from C's ``pow`` in the last bits."""
    if exponent > 0x10000:
        return math.pow(base, float(exponent))
    result = 1.0
    while exponent != 0:
        if exponent & 1:
            result *= base
        exponent >>= 1
        base *= base
    return result


def _rbc_example() -> tuple:
    """One query of two candidates in two runs, phi 0.8."""
    return read_only([0, 2], np.int64), read_only([[1, 2], [2, 0]], np.int64), read_only([[2, 1]], np.int64), 0.8


@parallel_jit(example=_rbc_example)
def rbc_points(offsets: np.ndarray, ranks: np.ndarray, depths: np.ndarray, phi: float) -> np.ndarray:
    """``rbc``: each aligned row's ``sum_r (1 - phi) * phi ** (p_r - 1)`` over the runs having it (``offsets``
    and ``depths`` unused: the fusion kernels' common arguments)."""
    n_rows, n_runs = ranks.shape
    fused = np.empty(n_rows, dtype=np.float64)
    for row in prange(n_rows):
        total = 0.0
        for r in range(n_runs):
            p = ranks[row, r]
            if p > 0:  # ranx adds 0.0 for a run lacking it, which changes no sum that starts at +0.0
                total += (1 - phi) * int_power(phi, p - 1)
        fused[row] = total
    return fused
