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
  by the interpreter's own ``sorted`` as ranx sorts them (:func:`condorcet_points`: the relation
  is no order and the result is the sort algorithm's), the i-th (0-based) scoring ``n - i``;
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
from functools import cmp_to_key

import numpy as np

from .._config import jit, parallel_jit, prange, read_only

#: Where ranx places a candidate a run lacks (``_get_run_indices``).
ABSENT_POSITION = 1_000_000


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


def condorcet_points(offsets: np.ndarray, ranks: np.ndarray, depths: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``condorcet`` (weights of ones) and ``w_condorcet``: ``n - i`` for the i-th candidate of ranx's sort.

    ranx 0.3.21 (ranx/fusion/condorcet.py, weighted_condorcet.py) orders a query's candidates with
    ``sorted(range(n), key=cmp_to_key(compare))``. Its ``compare`` is no order: two candidates can
    each come first (equal votes) or neither (the runs lacking both vote for the second one
    compared), majorities can cycle, and on the library's own workloads (benchmarks/workload.py, 2
    to 4 runs) no query's relation was a strict weak order. So the sorted result is the sort
    algorithm's, comparison for comparison, and CPython 3.13 changed that algorithm (``count_run``
    takes descending runs with equal elements): of 300 random rankings, 38 sort otherwise under 3.13
    than under 3.11 and 3.12, ranx's results with them. So each query is sorted here by the running
    interpreter's own ``sorted`` with ranx's comparison, and the result is ranx's under every
    interpreter. That costs a Python call per comparison: 0.5-0.8 ms for a query of 110-200
    candidates, against 0.01-0.03 ms for the transcription of CPython 3.11's sort compiled with
    numba that it replaces (ranx's under 3.11 and 3.12 only, and 12 s to compile); ranx itself takes
    about 16 ms. Memory stays linear in the candidates (no table of every pair).

    ``depths`` is unused (the fusion kernels' common arguments): a lacking run's place is fixed.
    """
    fused = np.empty(ranks.shape[0], dtype=np.float64)
    w = weights.tolist()
    positions = np.where(ranks > 0, ranks - 1, ABSENT_POSITION).tolist()
    bounds = offsets.tolist()
    for start, stop in zip(bounds[:-1], bounds[1:]):
        candidates = positions[start:stop]

        def compare(x: int, y: int, candidates: list = candidates) -> int:
            """-1 (x first) when the runs placing x ahead weigh at least as much as the others, summed in run order."""
            for_x = 0.0
            for_y = 0.0
            for position_x, position_y, weight in zip(candidates[x], candidates[y], w):
                if position_x < position_y:
                    for_x += weight
                else:
                    for_y += weight
            return -1 if for_x >= for_y else 1

        n = stop - start
        order = sorted(range(n), key=cmp_to_key(compare))
        fused[start + np.asarray(order, dtype=np.int64)] = n - np.arange(n, dtype=np.float64)
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
