"""The voting fusion methods of ranx 0.3.21 (BordaFuse, Condorcet, their weighted forms, RBC), as definitions.

Their formulas and ranx's arithmetic are in :mod:`retrieval_eval.kernels.fusion.fusion_votes`. They
read the positions of the normalized runs only (a normalization changes them only where it
reorders a run: ``min-max-inverted``, ``borda``).

Where ranx's result is not determined: ranx lists a query's candidates for BordaFuse and
Condorcet by iterating a Python ``set`` of document ids, in an order that changes from one
process to the next (``PYTHONHASHSEED``). Here the candidates are the aligned rows' order: run
0's documents in its order, then those only run 1 has, in its order, and so on. The result is
ranx's whenever its set happens to iterate in that order; for any other order ranx gives:

- ``bordafuse``, ``w_bordafuse``: the same documents and scores (a document's points do not
  depend on the order); the fused documents of equal score may be ordered otherwise;
- ``condorcet``, ``w_condorcet``: the same documents and the same scores ``n, n - 1, ..., 1``,
  but not always for the same documents: the pairwise majority is no order (ties count for the
  first document compared, majorities can cycle), so the sorted result depends on the order
  CPython's sort meets the candidates in. Where the majority relation is a strict order
  (transitive, no equal votes) every order gives this one result.

Neither fused run claims ranx's order (``order_determined=False``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..io.arrays import read_only
from ..kernels.fusion import fusion_votes as kernels
from .method import FusionMethod, Parameter, number, weights

_WEIGHTS = Parameter("weights", "one weight per run, in run order", weights)


def _borda(offsets: np.ndarray, scores: np.ndarray, ranks: np.ndarray, depths: np.ndarray, w: np.ndarray) -> np.ndarray:
    return kernels.borda_points(offsets, ranks, depths, w)


def _condorcet(offsets: np.ndarray, scores: np.ndarray, ranks: np.ndarray, depths: np.ndarray, w: np.ndarray) -> np.ndarray:
    return kernels.condorcet_points(offsets, ranks, depths, w)


def _rbc(offsets: np.ndarray, scores: np.ndarray, ranks: np.ndarray, depths: np.ndarray, phi: float) -> np.ndarray:
    return kernels.rbc_points(offsets, ranks, depths, phi)


def _equal_weights(aligned: Any, normalized: Any, values: dict[str, Any], qrels: Any) -> tuple:
    """The unweighted methods are their weighted kernels with a weight of 1 per run (the same bits: module docstring)."""
    return (read_only(np.ones(aligned.n_runs, dtype=np.float64)),)


def _borda_insertion(aligned: Any, normalized: Any, fused: np.ndarray) -> np.ndarray | None:
    """Where ranx inserts each row into BordaFuse's fused dict: run 0's documents in its normalized order, then
    the other candidates in candidate order (the aligned rows'); None when that is the aligned rows' order."""
    if normalized.insertion is None:  # run 0's documents are the first aligned rows, in its order
        return None
    counts = aligned.rows_per_query
    first = normalized.ranks[:, 0]
    # Other candidates in the rows before each row, over all queries, and at each query's first row.
    before = np.concatenate(([0], np.cumsum(first == 0)))
    within = before[:-1] - np.repeat(before[aligned.offsets[:-1]], counts)
    return np.where(first == 0, np.repeat(normalized.depths[:, 0], counts) + within, first - 1)


METHODS: tuple[FusionMethod, ...] = (
    FusionMethod(
        "bordafuse", ("borda_fuse",),
        "sum over runs of n - rank_r + 1 (n candidates), (n - depth_r + 1) / 2 where a run lacks the document",
        _borda, arguments=_equal_weights, insertion=_borda_insertion, order_determined=False,
    ),
    FusionMethod(
        "w_bordafuse", ("weighted_bordafuse",),
        "sum over runs of w_r times BordaFuse's points of run r",
        _borda, (_WEIGHTS,), insertion=_borda_insertion, order_determined=False,
    ),
    FusionMethod(
        "condorcet", ("condorcet_fuse",),
        "n - i for the i-th candidate sorted by pairwise majority (a run lacking a document ranks it last)",
        _condorcet, arguments=_equal_weights, order_determined=False,
    ),
    FusionMethod(
        "w_condorcet", ("weighted_condorcet",),
        "Condorcet with each run's vote weighing w_r",
        _condorcet, (_WEIGHTS,), order_determined=False,
    ),
    FusionMethod(
        "rbc", ("rank_biased_centroid",),
        "sum over the runs having the document of (1 - phi) * phi ** (rank_r - 1)",
        _rbc, (Parameter("phi", "the persistence, in [0, 1]", number("phi", low=0.0, high=1.0)),),
    ),
)
