"""ranx's order of a fused run: each query's documents in insertion order, sorted by numba's quicksort of ``-score``.

ranx builds the fused run as a dict per query (documents in insertion order), then
``Run.sort()`` orders each with ``np.argsort([-score ...])`` compiled by numba: an unstable
quicksort, so ties come out in an order that depends on the insertion order
(:mod:`retrieval_eval.kernels.core.ranx_ties`). The same argsort over the same insertion order gives
the same order.
"""

from __future__ import annotations

import numpy as np

from .._config import parallel_jit, prange, read_only
from ..core.ranx_ties import ranx_argsort


def _example() -> tuple:
    """One query of three rows, two of them tied, in the aligned order, all kept."""
    return (
        read_only([0, 3], np.int64), read_only([0.5, 1.0, 0.5], np.float64), read_only([], np.int64),
        read_only([0, 3], np.int64),
    )


def _work(offsets: np.ndarray, fused: np.ndarray, insertion: np.ndarray, out_offsets: np.ndarray) -> int:
    # As Python the quicksort costs 8 us a row (measured on 66k rows), two of the units auto mode counts.
    return 2 * fused.shape[0]


@parallel_jit(example=_example, work=_work)
def fused_order(offsets: np.ndarray, fused: np.ndarray, insertion: np.ndarray, out_offsets: np.ndarray) -> np.ndarray:
    """Each query's aligned rows in ranx's order of the fused run, its first ``out_offsets[q + 1] - out_offsets[q]`` kept.

    ``insertion``: each row's 0-based position in ranx's insertion order within its query, or
    empty for the aligned rows' order. Returns int64[out_offsets[-1]]: aligned row numbers,
    query q's at ``out_offsets[q]:out_offsets[q + 1]``.
    """
    n_queries = offsets.shape[0] - 1
    rows = np.empty(out_offsets[n_queries], dtype=np.int64)
    for q in prange(n_queries):
        start = offsets[q]
        m = offsets[q + 1] - start
        inserted = np.empty(m, dtype=np.int64)
        if insertion.shape[0] == 0:
            for i in range(m):
                inserted[i] = start + i
        else:
            for i in range(m):
                inserted[insertion[start + i]] = start + i
        negated = np.empty(m, dtype=np.float64)
        for i in range(m):
            negated[i] = -fused[inserted[i]]
        order = ranx_argsort(negated)
        base = out_offsets[q]
        for i in range(out_offsets[q + 1] - base):
            rows[base + i] = inserted[order[i]]
    return rows
