"""The score-based fusion methods of ranx 0.3.21 (CombSUM and its family, weighted sums, RRF, ISR), as definitions.

Their formulas and ranx's arithmetic are in :mod:`retrieval_eval.kernels.fusion.fusion_scores`; every
one inserts the fused documents in the aligned rows' order (run 0's, then those only run 1
has, ...), as ranx's functions do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..io.arrays import read_only
from ..kernels.fusion import fusion_scores as kernels
from .method import FusionMethod, Parameter, number, weights

_NO_WEIGHTS = read_only(np.empty(0, dtype=np.float64))


def _kernel(code: int) -> Callable[..., np.ndarray]:
    """The method's kernel: :func:`~retrieval_eval.kernels.fusion.fusion_scores.fuse_scores` with its code."""

    def kernel(
        offsets: np.ndarray, scores: np.ndarray, ranks: np.ndarray, depths: np.ndarray,
        weights: np.ndarray = _NO_WEIGHTS, parameter: float = 0.0,
    ) -> np.ndarray:
        return kernels.fuse_scores(offsets, scores, ranks, depths, code, weights, parameter)

    return kernel


def _weights_only(aligned: Any, normalized: Any, values: dict[str, Any], qrels: Any) -> tuple:
    return (values["weights"], 0.0)


def _parameter_only(aligned: Any, normalized: Any, values: dict[str, Any], qrels: Any) -> tuple:
    (value,) = values.values()
    return (_NO_WEIGHTS, value)


_WEIGHTS = Parameter("weights", "one weight per run, in run order", weights)


def _comb(name: str, code: int, long_name: str, definition: str) -> FusionMethod:
    return FusionMethod(name, (f"comb_{name}", long_name), definition, _kernel(code))


METHODS: tuple[FusionMethod, ...] = (
    _comb("sum", kernels.SUM, "CombSUM", "sum over runs of s_r (0 where a run lacks the document)"),
    _comb("mnz", kernels.MNZ, "CombMNZ", "sum of s_r over the runs R having the document, times |R|"),
    _comb("max", kernels.MAX, "CombMAX", "max over runs of s_r (-1e9 where a run lacks the document)"),
    _comb("min", kernels.MIN, "CombMIN", "min over runs of s_r (1e9 where a run lacks the document)"),
    _comb("med", kernels.MED, "CombMED", "median of s_r over the runs having the document"),
    _comb("anz", kernels.ANZ, "CombANZ", "sum of s_r over the runs R having the document, divided by |R|"),
    FusionMethod(
        "gmnz", ("comb_gmnz", "CombGMNZ"), "sum of s_r over the runs R having the document, times |R| ** gamma",
        _kernel(kernels.GMNZ), (Parameter("gamma", "the exponent of |R|", number("gamma")),), arguments=_parameter_only,
    ),
    FusionMethod(
        "wsum", ("weighted_sum",), "sum over runs of w_r * s_r (0 where a run lacks the document)",
        _kernel(kernels.WSUM), (_WEIGHTS,), arguments=_weights_only,
    ),
    FusionMethod(
        "wmnz", ("weighted_mnz", "WMNZ"), "sum of s_r times sum of w_r, both over the runs having the document",
        _kernel(kernels.WMNZ), (_WEIGHTS,), arguments=_weights_only,
    ),
    FusionMethod(
        "mixed", (), "sum of w_r * s_r over the runs R having the document, times sqrt(|R|)",
        _kernel(kernels.MIXED), (_WEIGHTS,), arguments=_weights_only,
    ),
    FusionMethod(
        "rrf", ("reciprocal_rank_fusion", "RRF"), "sum over the runs having the document of 1 / (k + rank_r)",
        _kernel(kernels.RRF),
        (Parameter("k", "the constant added to every rank (0 or more)", number("k", low=0.0), default=60),),
        arguments=_parameter_only,
    ),
    FusionMethod(
        "isr", ("ISR",), "sum over the runs R having the document of 1 / rank_r ** 2, times |R|", _kernel(kernels.ISR),
    ),
    FusionMethod(
        "log_isr", ("logisr",), "sum over the runs R having the document of 1 / rank_r ** 2, times log(|R|)",
        _kernel(kernels.LOG_ISR),
    ),
    FusionMethod(
        "logn_isr", ("lognisr",), "sum over the runs R having the document of 1 / rank_r ** 2, times log(|R| + sigma)",
        _kernel(kernels.LOGN_ISR),
        (Parameter("sigma", "added to |R| inside the log, in [0, 1]", number("sigma", low=0.0, high=1.0), default=0.01),),
        arguments=_parameter_only,
    ),
)
