"""The permuted range statistic of the randomised Tukey HSD (:mod:`retrieval_eval.sweep.tukey`).

Input: ``by_query``, the scores as queries x configurations (n x m, each query's row sorted
ascending by the caller, so that the draws do not depend on the order of the configurations).
Permutation b assigns each query's m scores to the m configurations in a uniformly random
order, independently from query to query; each configuration's sum over the queries is taken,
and the statistic is the largest sum minus the smallest.

The random order comes from a counter-based generator, not from a generator's state: the
draws of (permutation b, query q) are a pure function of (key, b, q), so the ranges are the
same whatever the batches, the threads or the build. With ``mix`` splitmix64's finalizer
(a bijection of uint64, arithmetic mod 2^64) and φ = 0x9E3779B97F4A7C15:

- permutation key k_b = mix(key XOR mix((b + 1) φ)), query state s = mix(k_b + (q + 1) φ);
- Fisher-Yates from the last position down: for i = m - 1, ..., 1, s += φ, z = mix(s) (the
  splitmix64 stream from s), j = floor((z >> 32) (i + 1) / 2^32), swap positions i and j.
  (j is uniform on 0..i up to a bias below (i + 1) / 2^32: 2.4e-8 at 100 configurations.)

Each configuration's sum is accumulated query after query, from query 0 (no pairwise
summation), in the compiled loops as in the numpy build (``np.cumsum`` along the queries), so
every build gives the same bits.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_HALF = np.uint64(32)


@jit
def _mix(z: np.uint64 | np.ndarray) -> np.uint64 | np.ndarray:
    """splitmix64's finalizer (as in :mod:`.partitioning`): of a uint64 in the loops, of a uint64 array in the numpy build."""
    z = (z ^ (z >> np.uint64(30))) * _MIX_1
    z = (z ^ (z >> np.uint64(27))) * _MIX_2
    return z ^ (z >> np.uint64(31))


def _numpy_permuted_ranges(by_query: np.ndarray, key: np.uint64, first: int, count: int) -> np.ndarray:
    """:func:`permuted_ranges` with numpy, every permutation and query of the batch at once (the python build).

    One Fisher-Yates step per position, over every (permutation, query) at once; then the
    permuted scores (count x n x m float64) and their running sums along the queries: about
    24 bytes a cell of the batch.
    """
    mix = _mix.python
    n, m = by_query.shape
    permutation = np.arange(first, first + count, dtype=np.uint64)
    permutation_key = mix(key ^ mix((permutation + np.uint64(1)) * _GOLDEN))
    state = mix(permutation_key[:, None] + (np.arange(n, dtype=np.uint64) + np.uint64(1)) * _GOLDEN)
    order = np.broadcast_to(np.arange(m, dtype=np.intp), (count, n, m)).copy()
    for i in range(m - 1, 0, -1):  # a step per configuration, over the whole batch
        state += _GOLDEN
        j = (((mix(state) >> _HALF) * np.uint64(i + 1)) >> _HALF).astype(np.intp)[..., None]
        picked = np.take_along_axis(order, j, axis=2)
        np.put_along_axis(order, j, order[..., i : i + 1], axis=2)
        order[..., i : i + 1] = picked
    sums = np.cumsum(by_query[np.arange(n)[:, None], order], axis=1)[:, -1]
    return sums.max(axis=1) - sums.min(axis=1)


def _cells(by_query: np.ndarray, key: np.uint64, first: int, count: int) -> int:
    return count * by_query.size


def _example() -> tuple:
    return np.array([[0.1, 0.5, 0.9], [0.0, 0.2, 0.3]]), np.uint64(7), 3, 4


@parallel_jit(example=_example, python=_numpy_permuted_ranges, work=_cells)
def permuted_ranges(by_query: np.ndarray, key: np.uint64, first: int, count: int) -> np.ndarray:
    """The range (max - min) of the configurations' sums under permutations ``first`` .. ``first + count - 1``.

    ``by_query`` is queries x configurations (float64), ``key`` the seed's 64-bit key; returns
    ``count`` float64 ranges (see the module docstring for the draws).
    """
    n, m = by_query.shape
    out = np.empty(count, dtype=np.float64)
    for b in prange(count):
        permutation_key = _mix(key ^ _mix((np.uint64(first + b) + np.uint64(1)) * _GOLDEN))
        order = np.empty(m, dtype=np.intp)
        sums = np.zeros(m, dtype=np.float64)
        for q in range(n):
            state = _mix(permutation_key + (np.uint64(q) + np.uint64(1)) * _GOLDEN)
            for c in range(m):
                order[c] = c
            for i in range(m - 1, 0, -1):
                state += _GOLDEN
                j = ((_mix(state) >> _HALF) * np.uint64(i + 1)) >> _HALF
                order[i], order[j] = order[j], order[i]
            row = by_query[q]
            if q == 0:  # start from query 0's scores, as np.cumsum does (0.0 + x is x but for -0.0)
                for c in range(m):
                    sums[c] = row[order[c]]
            else:
                for c in range(m):
                    sums[c] += row[order[c]]
        high = sums[0]
        low = sums[0]
        for c in range(1, m):
            high = max(high, sums[c])
            low = min(low, sums[c])
        out[b] = high - low
    return out
