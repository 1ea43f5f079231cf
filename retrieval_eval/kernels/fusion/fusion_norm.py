"""ranx 0.3.21's score normalizations, per query and run, on the aligned score matrix.

Each normalization reads one run's documents of one query in the run's ranked order (the order
ranx's normalized dicts keep) and follows ranx's arithmetic step by step, so that the values
agree to the bit with ranx's compiled functions (ranx/normalization/*.py). With ``s`` the
run's scores of the query, ``n`` their number and ``i`` a document's 0-based position:

- ``min-max``: ``(s - min) / max(max - min, 1e-9)``; ``min-max-inverted``:
  ``(max - s) / max(max - min, 1e-9)``, after which ranx sorts the run again (its documents'
  positions become those of numba's quicksort of the new ``-value``, from the ranked order);
- ``max``: ``s / max(max, 1e-9)``;
- ``sum``: ``(s - min) / max(sum(s) - min * n, 1e-9)``, the sum taken in ranked order;
- ``zmuv``: ``(s - mean) / max(std, 1e-9)``, numba's ``np.mean`` (a sum in ranked order over
  ``n``) and ``np.std`` (the square root, as ``** 0.5``, of the mean squared difference from
  that mean, summed in ranked order): the population standard deviation;
- ``rank``: ``1 - i / n``;
- ``borda`` (across the runs: ``c`` is the number of the query's candidates, the union of the
  runs' documents): ``1 - i / c`` for a document the run has, ``0.5 - (n - 1) / (2 c)`` for one
  it lacks. Every run then holds every candidate.

Cells of a run that lacks the document stay NaN (except under ``borda``).

Finite scores whose arithmetic overflows in ranx's steps (``zmuv``'s squares of scores about
1e200, ``min-max``'s ``max - min`` of 1.7e308 and -1.7e308, ``sum``'s total) are normalized
again from the scores scaled by ``2 ** -e``, ``e`` the binary exponent of the largest magnitude:
every step but the floor is then the same operation on numbers scaled by a power of two, which
is exact, so the values are those of ranx's arithmetic without an exponent limit (the floor is
compared unscaled; a score over 2 ** 1022 times smaller than the largest becomes 0 when scaled,
a change far below the rounding of any value whose run overflowed). Only a value that is itself beyond float64 (``max`` of scores below
-1.8e299 with no positive one: ``s / 1e-9``) stays infinite, for the caller to refuse.
"""

from __future__ import annotations

import math

import numpy as np

from .._config import jit, read_only
from ..core.ranx_ties import ranx_argsort

MIN_MAX = 0
MIN_MAX_INVERTED = 1
MAX = 2
SUM = 3
ZMUV = 4
RANK = 5
BORDA = 6

# ranx's floor of every denominator (a run whose scores are all equal).
_FLOOR = 1e-9


def _example() -> tuple:
    """One query, two rows, two runs: run 0 has both documents, run 1 the second."""
    return (
        read_only([0, 2], np.int64), read_only([[2.0, np.nan], [1.0, 3.0]], np.float64),
        read_only([[1, 0], [2, 1]], np.int64), read_only([[2, 1]], np.int64), MIN_MAX_INVERTED,
    )


# Serial: each normalization runs once per fusion or sweep (0.04 s for 1.5M aligned rows); a
# parallel build would cost 6 s of compilation before it saved any of that.
@jit(example=_example)
def normalize_scores(
    offsets: np.ndarray, scores: np.ndarray, ranks: np.ndarray, depths: np.ndarray, method: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each cell's normalized score (module docstring; ``method`` one of this module's codes), new rank and insertion.

    Returns ``(values, new_ranks, insertion)``: float64[n_rows, n_runs], NaN where the run
    lacks the document (never under ``BORDA``); under ``MIN_MAX_INVERTED`` (else empty) the
    documents' 1-based positions in the re-sorted runs and each row's position within its
    query in the order documents first appear, run after run, each in its new order: the order
    in which ranx's fusion functions insert them into the fused dict (``for run in runs: for
    doc in run``).
    """
    n_queries, n_runs = depths.shape
    values = np.full(scores.shape, np.nan, dtype=np.float64)
    inverted = method == MIN_MAX_INVERTED
    new_ranks = ranks.copy() if inverted else np.empty((0, n_runs), dtype=np.int64)
    insertion = np.full(ranks.shape[0] if inverted else 0, -1, dtype=np.int64)
    for q in range(n_queries):
        start = offsets[q]
        if method == BORDA:
            _borda(offsets, ranks, depths, q, values)
            continue
        for r in range(n_runs):
            n = depths[q, r]
            if n == 0:
                continue
            ranked = np.empty(n, dtype=np.int64)  # the run's rows of the query in its ranked order
            for row in range(start, offsets[q + 1]):
                if ranks[row, r] > 0:
                    ranked[ranks[row, r] - 1] = row
            s = np.empty(n, dtype=np.float64)
            for i in range(n):
                s[i] = scores[ranked[i], r]
            if method == RANK:
                for i in range(n):
                    values[ranked[i], r] = 1 - (i / n)
            else:
                normalized = np.empty(n, dtype=np.float64)
                if not _normalize_run(s, method, 0, normalized):
                    largest = max(abs(s.min()), abs(s.max()))
                    if math.isfinite(largest):  # finite scores overflowed a step: again, scaled (module docstring)
                        _normalize_run(s, method, math.frexp(largest)[1], normalized)
                for i in range(n):
                    values[ranked[i], r] = normalized[i]
                if inverted:
                    negated = np.empty(n, dtype=np.float64)
                    for i in range(n):
                        negated[i] = -normalized[i]
                    resorted = ranx_argsort(negated)
                    for position in range(n):
                        new_ranks[ranked[resorted[position]], r] = position + 1
        if inverted:
            _first_appearance(offsets, new_ranks, depths, q, insertion)
    return values, new_ranks, insertion


@jit
def _normalize_run(s: np.ndarray, method: int, exponent: int, out: np.ndarray) -> bool:
    """One run's ranked scores of one query normalized into ``out``, computed on ``s * 2 ** -exponent``.

    Exponent 0 is ranx's arithmetic itself (``ldexp(x, 0)`` is x); the floor is compared with
    the unscaled denominator and divides the unscaled numerator. True when every step and value
    is finite (with finite scores: nothing overflowed).
    """
    n = s.shape[0]
    t = s
    if exponent != 0:  # (a copy only then: the first pass is on every run and query)
        t = np.empty(n, dtype=np.float64)
        for i in range(n):
            t[i] = math.ldexp(s[i], -exponent)
    low = t[0]
    high = t[0]
    for i in range(1, n):
        if t[i] < low:
            low = t[i]
        if t[i] > high:
            high = t[i]
    centre = low  # what each numerator subtracts (zmuv: the mean)
    if method == MIN_MAX or method == MIN_MAX_INVERTED:
        denominator = high - low
    elif method == MAX:
        denominator = high
    elif method == SUM:
        total = 0.0
        for i in range(n):
            total += t[i]
        denominator = total - low * n
    else:
        total = 0.0
        for i in range(n):
            total += t[i]
        centre = total / n
        squares = 0.0
        for i in range(n):
            squares += (t[i] - centre) * (t[i] - centre)
        denominator = (squares / n) ** 0.5
    # The unscaled denominator below ranx's floor, without overflowing: min() keeps 2 ** exponent
    # times it finite, and one above 0.5 is above the floor either way.
    floored = _FLOOR > math.ldexp(min(denominator, 0.5), exponent)
    finite = math.isfinite(denominator) and math.isfinite(centre)
    for i in range(n):
        if method == MIN_MAX_INVERTED:
            numerator = high - t[i]
        elif method == MAX:
            numerator = t[i]
        else:
            numerator = t[i] - centre
        out[i] = math.ldexp(numerator, exponent) / _FLOOR if floored else numerator / denominator
        finite = finite and math.isfinite(out[i])
    return finite


@jit
def _borda(offsets: np.ndarray, ranks: np.ndarray, depths: np.ndarray, q: int, values: np.ndarray) -> None:
    """Query q's cells under ``BORDA``: every run gets a score for every candidate."""
    candidates = offsets[q + 1] - offsets[q]
    for row in range(offsets[q], offsets[q + 1]):
        for r in range(depths.shape[1]):
            if ranks[row, r] > 0:
                values[row, r] = 1 - ((ranks[row, r] - 1) / candidates)
            else:
                values[row, r] = 0.5 - ((depths[q, r] - 1) / (2 * candidates))


@jit
def _first_appearance(offsets: np.ndarray, ranks: np.ndarray, depths: np.ndarray, q: int, positions: np.ndarray) -> None:
    """Query q's rows' positions in the order the documents first appear, run after run, each run in rank order."""
    seen = 0
    for r in range(depths.shape[1]):
        n = depths[q, r]
        ranked = np.empty(n, dtype=np.int64)
        for row in range(offsets[q], offsets[q + 1]):
            if ranks[row, r] > 0:
                ranked[ranks[row, r] - 1] = row
        for i in range(n):
            if positions[ranked[i]] < 0:
                positions[ranked[i]] = seen
                seen += 1
