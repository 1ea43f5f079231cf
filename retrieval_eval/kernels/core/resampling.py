"""The counting steps of the paired bootstrap and of the randomization test (:mod:`retrieval_eval.sweep.stats`).

Both statistics draw their random numbers with numpy (so that a seed gives the draws it always
gave) and multiply a batch of draws by the per-query scores with one matrix product; what lies
between is here, written into buffers the caller reuses from batch to batch:

- :func:`resample_counts`: how many times each query was drawn in each bootstrap resample. With
  numpy it took a flat index array, ``np.bincount`` and a cast (three temporaries of the batch's
  size, 70% of the bootstrap's time at 200k queries); the loop tallies each resample's draws and
  writes them into the float64 counts the product reads.
- :func:`sign_flips`: the signs (+1 / -1) of a batch of randomization rounds from their 0/1 draws.

Counts and signs are small integers, exact in float64: every build gives the same bits.
"""

from __future__ import annotations

import numpy as np

from .._config import jit


def _numpy_resample_counts(picks: np.ndarray, counts: np.ndarray) -> None:
    """:func:`resample_counts` with numpy: one ``bincount`` over the batch (the python build)."""
    size, n = counts.shape
    cells = (np.arange(size, dtype=np.int64)[:, None] * n + picks).ravel()
    counts[...] = np.bincount(cells, minlength=size * n).reshape(size, n)


def _cells(picks: np.ndarray, counts: np.ndarray) -> int:
    return picks.size


@jit(
    example=lambda: (np.array([[0, 2, 2], [1, 1, 0]], dtype=np.int32), np.empty((2, 3), dtype=np.float64)),
    python=_numpy_resample_counts,
    work=_cells,
)
def resample_counts(picks: np.ndarray, counts: np.ndarray) -> None:
    """Write into ``counts`` (resamples x queries) how often each query was drawn: ``picks[i]`` are resample i's queries."""
    # The draws land at random among the queries: tallied in int32 (half of a float64 row, so more
    # of it stays in cache: 30% faster at 200k queries on a busy machine), then copied out in order.
    tally = np.empty(counts.shape[1], dtype=np.int32)
    for i in range(picks.shape[0]):
        tally[:] = 0
        for j in range(picks.shape[1]):
            tally[picks[i, j]] += 1
        row = counts[i]
        for q in range(tally.shape[0]):
            row[q] = tally[q]


def _numpy_sign_flips(bits: np.ndarray, signs: np.ndarray) -> None:
    """:func:`sign_flips` with numpy (the python build)."""
    np.multiply(bits, 2, out=signs)
    signs -= 1.0


@jit(
    example=lambda: (np.array([[0, 1], [1, 1]], dtype=np.int8), np.empty((2, 2), dtype=np.float64)),
    python=_numpy_sign_flips,
    work=_cells,
)
def sign_flips(bits: np.ndarray, signs: np.ndarray) -> None:
    """Write into ``signs`` (rounds x queries) +1 where ``bits`` is 1 and -1 where it is 0."""
    for i in range(bits.shape[0]):
        for j in range(bits.shape[1]):
            signs[i, j] = 2.0 * bits[i, j] - 1.0
