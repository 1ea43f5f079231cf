"""The C/W/L framework over a ``(queries, depth)`` matrix, as cwl_eval 1.0.12 computes it (whole-array numpy).

A user model is its continuation C(i): the probability of going on from rank i to i+1. With
P(i) = prod_{j<i} C(j) (P(0) = 1):

- W(i) = P(i) / sum_j P(j), the share of attention rank i gets;
- L(i) = P(i) (1 - C(i)), the probability of stopping at rank i.

Over gains g and costs c of the ranks (depth n, the list padded as cwl_eval pads it):

- EU = sum_i W(i) g(i) (expected utility per item), ETU = sum_i L(i) sum_{j<=i} g(j);
- EC = sum_i W(i) c(i), ETC = sum_i L(i) sum_{j<=i} c(j) (cost units);
- ED = 1 / W(0) (expected depth, items).

Measures defined by W instead of C (TBG, U-measure) give W directly; their C is then
W(i+1)/W(i) where W(i) > 0, else 0, and C(n-1) = 0, and L follows from that C as above.
"""

from __future__ import annotations

import numpy as np

#: The five outputs, in cwl_eval's column order.
OUTPUTS = ("eu", "etu", "ec", "etc", "ed")


def _reach(continuation: np.ndarray) -> np.ndarray:
    """P(i) = prod_{j<i} C(j), P(0) = 1, per row."""
    reach = np.ones_like(continuation)
    np.cumprod(continuation[:, :-1], axis=1, out=reach[:, 1:])
    return reach


def weights_from_continuation(continuation: np.ndarray) -> np.ndarray:
    """W(i) = P(i) / sum_j P(j) per row (cwl_eval's default w_vector)."""
    reach = _reach(continuation)
    return reach * (1.0 / reach.sum(axis=1))[:, None]


def continuation_from_weights(weights: np.ndarray) -> np.ndarray:
    """C(i) = W(i+1)/W(i) where W(i) > 0, else 0; C(n-1) = 0 (cwl_eval's TBG and U-measure)."""
    continuation = np.zeros_like(weights)
    head, tail = weights[:, :-1], weights[:, 1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(tail, head, out=continuation[:, :-1], where=head > 0.0)
    return continuation


def expectations(
    continuation: np.ndarray, weights: np.ndarray | None, gains: np.ndarray, costs: np.ndarray
) -> np.ndarray:
    """``(queries, 5)``: EU, ETU, EC, ETC, ED per row (see the module docstring).

    ``weights`` None: W from ``continuation``; else the measure's own W (and ``continuation``
    derived from it by :func:`continuation_from_weights`).
    """
    if weights is None:
        weights = weights_from_continuation(continuation)
    stop = _reach(continuation) * (1.0 - continuation)
    out = np.empty((len(gains), len(OUTPUTS)), dtype=np.float64)
    out[:, 0] = np.einsum("ij,ij->i", weights, gains)
    out[:, 1] = np.einsum("ij,ij->i", stop, np.cumsum(gains, axis=1))
    out[:, 2] = np.einsum("ij,ij->i", weights, costs)
    out[:, 3] = np.einsum("ij,ij->i", stop, np.cumsum(costs, axis=1))
    with np.errstate(divide="ignore"):
        out[:, 4] = 1.0 / weights[:, 0]
    return out
