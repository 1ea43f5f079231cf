"""ranx 0.3.21's score-based fusion methods: each aligned row's fused score from its cells across the runs.

A cell is run r's normalized score ``s_r`` of the row's document (NaN: the normalized run lacks
it) and its 1-based position ``p_r`` in the normalized run (0: lacks it). ``R`` is the set of
runs that have the document, ``|R|`` their number. Sums run over the runs in run order, from
0, one addition at a time, as ranx's compiled functions add (ranx/fusion/*.py):

- ``sum`` (CombSUM): ``sum_r s_r`` (0 for a run lacking the document);
- ``mnz`` (CombMNZ): ``sum_R s_r * |R|``;
- ``max`` (CombMAX): ``max_r s_r``, a run lacking the document counting ``-1e9``;
- ``min`` (CombMIN): ``min_r s_r``, a run lacking the document counting ``1e9``;
- ``med`` (CombMED): the median of ``s_r`` over R (the mean of the two middle ones for even ``|R|``);
- ``anz`` (CombANZ): ``sum_R s_r / |R|``;
- ``gmnz`` (CombGMNZ): ``sum_R s_r * |R| ** gamma``;
- ``wsum``: ``sum_r w_r * s_r`` (0 for a run lacking the document);
- ``wmnz``: ``sum_R s_r * sum_R w_r``;
- ``mixed``: ``sum_R (s_r * w_r) * sqrt(|R|)``;
- ``rrf``: ``sum_R 1 / (k + p_r)`` (computed as ranx does, ``1 / (k + (p_r - 1) + 1)``);
- ``isr``: ``sum_R 1 / p_r ** 2 * |R|``;
- ``log_isr``: ``sum_R 1 / p_r ** 2 * log(|R|)``;
- ``logn_isr``: ``sum_R 1 / p_r ** 2 * log(|R| + sigma)``.

The rank-based methods (``rrf``, ``isr``, ``log_isr``, ``logn_isr``) read positions, the others
scores. ``parameter`` is ``gamma``, ``k`` or ``sigma``; ``weights`` is empty for methods without.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange, read_only

SUM = 0
MNZ = 1
MAX = 2
MIN = 3
MED = 4
ANZ = 5
GMNZ = 6
WSUM = 7
WMNZ = 8
MIXED = 9
RRF = 10
ISR = 11
LOG_ISR = 12
LOGN_ISR = 13

# What ranx's CombMAX and CombMIN count for a run that lacks the document.
_MISSING_FOR_MAX = -1e9
_MISSING_FOR_MIN = 1e9


def _example() -> tuple:
    """One query, two rows, two runs (run 1 lacks the first document), fused by weighted sum."""
    return (
        read_only([0, 2], np.int64), read_only([[1.0, np.nan], [0.0, 1.0]], np.float64),
        read_only([[1, 0], [2, 1]], np.int64), read_only([[2, 1]], np.int64), WSUM,
        read_only([0.3, 0.7], np.float64), 0.0,
    )


@parallel_jit(example=_example)
def fuse_scores(
    offsets: np.ndarray,
    scores: np.ndarray,
    ranks: np.ndarray,
    depths: np.ndarray,
    method: int,
    weights: np.ndarray,
    parameter: float,
) -> np.ndarray:
    """The fused score of every aligned row under ``method`` (one of this module's codes; module docstring).

    ``offsets`` and ``depths`` are the fusion kernels' common arguments; a row's fused score
    depends on its own cells only.
    """
    n_rows, n_runs = scores.shape
    fused = np.empty(n_rows, dtype=np.float64)
    for row in prange(n_rows):
        if method == RRF or method == ISR or method == LOG_ISR or method == LOGN_ISR:
            total = 0.0
            present = 0
            for r in range(n_runs):
                p = ranks[row, r]
                if p > 0:
                    present += 1
                    if method == RRF:
                        total += 1 / (parameter + (p - 1) + 1)
                    else:
                        total += 1 / (p * p)
            if method == ISR:
                total = total * present
            elif method == LOG_ISR:
                total = total * np.log(present)
            elif method == LOGN_ISR:
                total = total * np.log(present + parameter)
            fused[row] = total
        elif method == MAX or method == MIN:
            missing = _MISSING_FOR_MAX if method == MAX else _MISSING_FOR_MIN
            best = missing if np.isnan(scores[row, 0]) else scores[row, 0]
            for r in range(1, n_runs):
                v = missing if np.isnan(scores[row, r]) else scores[row, r]
                if (method == MAX and v > best) or (method == MIN and v < best):
                    best = v
            fused[row] = best
        elif method == MED:
            fused[row] = _median(scores, row)
        else:
            total = 0.0
            weight_total = 0.0
            present = 0
            for r in range(n_runs):
                v = scores[row, r]
                if np.isnan(v):  # ranx adds 0.0 here (sum, wsum), which changes no sum that starts at +0.0
                    continue
                present += 1
                if method == WSUM:
                    total += weights[r] * v
                elif method == MIXED:
                    total += v * weights[r]
                else:
                    total += v
                    if method == WMNZ:
                        weight_total += weights[r]
            if method == MNZ:
                total = total * present
            elif method == ANZ:
                total = total / present
            elif method == GMNZ:
                total = total * (float(present) ** parameter)
            elif method == WMNZ:
                total = total * weight_total
            elif method == MIXED:
                total = total * np.sqrt(float(present))
            fused[row] = total
    return fused


@jit
def _median(scores: np.ndarray, row: int) -> float:
    """The median of the row's present scores, as numba's ``np.median``: the middle one, or the mean of the two."""
    n_runs = scores.shape[1]
    values = np.empty(n_runs, dtype=np.float64)
    n = 0
    for r in range(n_runs):
        v = scores[row, r]
        if not np.isnan(v):
            # Insertion into sorted order: the runs are few.
            j = n
            while j > 0 and values[j - 1] > v:
                values[j] = values[j - 1]
                j -= 1
            values[j] = v
            n += 1
    half = n >> 1
    if n & 1 == 0:
        return (values[half - 1] + values[half]) / 2
    return values[half]
