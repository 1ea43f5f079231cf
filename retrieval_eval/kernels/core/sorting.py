"""Stable sorting of the short per-query arrays (tens to hundreds of elements)."""

from __future__ import annotations

import numpy as np

from .._config import jit

# Up to this many elements a stable insertion sort beats a merge sort (measured on 50-100
# documents per query): per-query lists are short and often close to sorted already.
_INSERTION_SORT_MAX = 128
# Longer arrays: insertion-sorted runs of this many elements, then merged pairwise. Written out
# rather than numba's np.argsort(kind="mergesort"), whose code takes about 0.75 s to compile per
# dtype, and again in every kernel that calls it.
_RUN = 32


@jit
def _precedes(a: float, b: float, descending: bool) -> bool:
    return a > b if descending else a < b


@jit
def _insertion_sort(values: np.ndarray, order: np.ndarray, lo: int, hi: int, descending: bool) -> None:
    """Sort ``order[lo:hi]`` (positions into ``values``) in place, stably."""
    for i in range(lo + 1, hi):
        position = order[i]
        value = values[position]
        j = i - 1
        while j >= lo and _precedes(value, values[order[j]], descending):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = position


def _numpy_stable_order(values: np.ndarray, descending: bool) -> np.ndarray:
    """:func:`stable_order` by numpy's stable sort: the python build (a loop per element is slow in Python).

    Descending with ties in input order is the ascending stable order of the reversed array, reversed.
    """
    if not descending:
        return np.argsort(values, kind="stable")
    n = values.shape[0]
    return (n - 1) - np.argsort(values[::-1], kind="stable")[::-1]


@jit(python=_numpy_stable_order)
def stable_order(values: np.ndarray, descending: bool) -> np.ndarray:
    """Positions that sort ``values`` (ascending, or descending), equal values in input order."""
    n = values.shape[0]
    order = np.arange(n)
    if n <= _INSERTION_SORT_MAX:
        _insertion_sort(values, order, 0, n, descending)
        return order
    for lo in range(0, n, _RUN):
        _insertion_sort(values, order, lo, min(lo + _RUN, n), descending)
    # Bottom-up merges; an element of the right half goes first only when it strictly precedes, so ties keep their order.
    merged = np.empty(n, dtype=np.int64)
    width = _RUN
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j = lo, mid
            for k in range(lo, hi):
                if j < hi and (i >= mid or _precedes(values[order[j]], values[order[i]], descending)):
                    merged[k] = order[j]
                    j += 1
                else:
                    merged[k] = order[i]
                    i += 1
        order, merged = merged, order
        width *= 2
    return order
