"""ranx's order of each query's documents, as a tie key per run row.

A ``ranx.Run`` (ranx 0.3: ``Run(dict)``, ``Run.from_dict``, ``from_file``, ``from_df``) holds a
query's documents in a dict in order of first occurrence, each with its last score, and orders
them by ``np.argsort([-score for score in scores])`` inside numba (``sort_dict_by_value`` in
ranx/data_structures/common.py). numba's argsort is a quicksort (median of three, an insertion
sort for 15 elements or fewer) that is not stable: equal scores in a query of more than 15
documents come out neither in input order nor by id. Under ``NUMBA_DISABLE_JIT`` ranx's code
runs as Python and the same call is numpy's argsort, which is not stable either and orders ties
otherwise again. ranx's metrics read the Run in that order.

:func:`ranx_tie_keys` gives each query's distinct documents (first occurrence, the score the
duplicate policy keeps) their position in that order; the ranking kernels then order equal scores
by ascending key (``TIES_ASCENDING_KEY`` in :mod:`retrieval_eval.kernels.core.tiebreak`). The argsort
lives here, not in the ranking kernels: numba's argsort takes about a second of CPU to compile
(0.96 s measured), paid only by a process that asks for ranx's order.

Not reproduced: ``ranx.evaluate`` given plain dicts sorts with ``np.argsort(scores)[::-1]``
(ascending, then reversed: another order of ties); ``make_comparable=True`` sorts the Run again,
already sorted, which moves ties once more on every call. A ``ranx.Run`` read as an input comes
in its sorted order already (``Run.in_ranx_order``): the join keeps that order, never sorting it again.
"""

from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from .._config import jit, jit_disabled, parallel_jit, prange, read_only
from .duplicate_policy import KEEP_LAST
from .judgments import resolve_duplicates


@functools.cache
def _numba_quicksort() -> Callable[[np.ndarray], np.ndarray]:
    """numba's argsort of float arrays as plain Python: the very quicksort it compiles (numba.misc.quicksort)."""
    from numba.misc.quicksort import make_py_quicksort
    from numba.np.numpy_support import lt_floats

    return make_py_quicksort(lt=lt_floats, is_argsort=True, is_np_array=True).run_quicksort


def _ranx_argsort_python(values: np.ndarray) -> np.ndarray:
    """:func:`ranx_argsort` as Python: the argsort ranx's own code runs in this process.

    With the JIT on, ranx's code is compiled, so its argsort is numba's quicksort even when ours
    runs as Python (small work, ``RETRIEVAL_EVAL_KERNELS=python``): numba's own pure-Python copy of
    it gives the same order (and imports numba, which ranx has imported anyway). Without the JIT,
    ranx calls numpy's argsort, and so does this.
    """
    if jit_disabled():
        return np.argsort(values)
    return _numba_quicksort()(values)


@jit(python=_ranx_argsort_python)
def ranx_argsort(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values)`` as ranx calls it: positions sorting float ``values`` ascending, ties in no set order."""
    return np.argsort(values)


@jit
def _query_tie_keys(
    q: int,
    run_group_offsets: np.ndarray,
    run_order: np.ndarray,
    run_keys: np.ndarray,
    run_offsets: np.ndarray,
    run_data: np.ndarray,
    scores: np.ndarray,
    duplicate_policy: int,
    is_string: bool,
    tie_keys: np.ndarray,
) -> None:
    """Query q's slots of :func:`ranx_tie_keys`."""
    rows = run_order[run_group_offsets[q] : run_group_offsets[q + 1]]
    first_rows, kept, _ = resolve_duplicates(rows, run_keys, run_offsets, run_data, is_string, scores, duplicate_policy)
    order = ranx_argsort(-kept)
    for position in range(order.shape[0]):
        tie_keys[first_rows[order[position]]] = position


def _example() -> tuple:
    """One query retrieving integer documents 1 and 2 with equal scores."""
    no_offsets, no_bytes = read_only([0], np.int64), read_only([], np.uint8)
    return (
        read_only([0, 2], np.int64), read_only([0, 1], np.int64), read_only([1, 2], np.uint64), no_offsets, no_bytes,
        read_only([1.0, 1.0], np.float64), KEEP_LAST, False,
    )


@parallel_jit(example=_example)
def ranx_tie_keys(
    run_group_offsets: np.ndarray,
    run_order: np.ndarray,
    run_keys: np.ndarray,
    run_offsets: np.ndarray,
    run_data: np.ndarray,
    scores: np.ndarray,
    duplicate_policy: int,
    is_string: bool,
) -> np.ndarray:
    """Each run row's position in ranx's order of its query's documents (module docstring), as int64.

    The rows are grouped by query as for :func:`retrieval_eval.kernels.core.ranking.rank_and_label`
    (same first arguments); a repeated document takes the score ``duplicate_policy`` keeps. The
    key is set on the row of each document's first occurrence, which is the row the ranking
    kernels read; the other rows keep 0.
    """
    n_queries = run_group_offsets.shape[0] - 1
    tie_keys = np.zeros(scores.shape[0], dtype=np.int64)
    for q in prange(n_queries):
        # The parallel build's loop index is unsigned: as int64 it calls the same specialization as the serial one.
        _query_tie_keys(
            np.int64(q), run_group_offsets, run_order, run_keys, run_offsets, run_data, scores, duplicate_policy,
            is_string, tie_keys,
        )
    return tie_keys
