"""The user models of cwl_eval 1.0.12's measures: C(i) (or W(i)) over ``(queries, depth)`` gains and costs.

Ranks i count from 0, r = i + 1 from 1; G(i) = sum_{j<=i} g(j), K(i) = sum_{j<=i} c(j). Each
function returns ``(C, W)``, W None where the measure is defined by C (see
:mod:`retrieval_eval.kernels.cwl.framework`). The arithmetic follows cwl_eval's order of
operations, so values agree to the last bits but for summation order.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .framework import continuation_from_weights

Model = tuple[np.ndarray, "np.ndarray | None"]


def _ranks(depth: int) -> np.ndarray:
    return np.arange(1, depth + 1, dtype=np.float64)


def _constant(gains: np.ndarray, row: np.ndarray) -> Model:
    return np.broadcast_to(row, gains.shape).copy(), None


def precision(gains: np.ndarray, costs: np.ndarray, k: int) -> Model:
    """P@k: C(i) = 1 for i < k - 1, else 0 (k <= depth + 1)."""
    row = np.zeros(gains.shape[1])
    row[: k - 1] = 1.0
    return _constant(gains, row)


def reciprocal_rank(gains: np.ndarray, costs: np.ndarray) -> Model:
    """RR: C(i) = 1 before the first rank with g > 0, else 0."""
    return (np.cumsum(gains > 0.0, axis=1) == 0).astype(np.float64), None


def average_precision(gains: np.ndarray, costs: np.ndarray) -> Model:
    """AP: with S(i) = sum_{j>=i} g(j)/(j+1), C(i) = S(i+1)/S(i) where S(i+1) > 0, else 0; C(n-1) = 0.

    Then W(i) = S(i) / sum_j g(j), so EU = sum_i g(i) S(i) / sum_j g(j): average precision over the
    relevant documents within the depth, not over all relevant documents as trec_eval's.
    """
    share = gains / _ranks(gains.shape[1])
    suffix = np.cumsum(share[:, ::-1], axis=1)[:, ::-1]
    continuation = np.zeros_like(gains)
    top, bottom = suffix[:, 1:], suffix[:, :-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(top, bottom, out=continuation[:, :-1], where=top > 0.0)
    return continuation, None


def rbp(gains: np.ndarray, costs: np.ndarray, theta: float) -> Model:
    """RBP: C(i) = theta."""
    return np.full_like(gains, theta), None


def npv(gains: np.ndarray, costs: np.ndarray, rate: float) -> Model:
    """NPV: C(i) = 1 / (1 + rate) (RBP with theta = 1/(1+rate))."""
    return np.full_like(gains, 1.0 / (1.0 + rate)), None


def inst(gains: np.ndarray, costs: np.ndarray, t: float) -> Model:
    """INST: T(i) = T - G(i), C(i) = ((r + T + T(i) - 1) / (r + T + T(i)))^2."""
    base = _ranks(gains.shape[1]) + t + (t - np.cumsum(gains, axis=1))
    return np.square((base - 1.0) / base), None


def _insq_row(depth: int, t: float) -> np.ndarray:
    ranks = _ranks(depth)
    return np.square((ranks + 2.0 * t - 1.0) / (ranks + 2.0 * t))


def insq(gains: np.ndarray, costs: np.ndarray, t: float) -> Model:
    """INSQ: C(i) = ((r + 2T - 1) / (r + 2T))^2."""
    return _constant(gains, _insq_row(gains.shape[1], t))


@lru_cache(maxsize=64)
def _sdcg_row(depth: int, k: int) -> np.ndarray:
    # math.log(x, 2) as cwl_eval writes it: numpy's log may differ from libm's in the last bit.
    return np.array([math.log(r + 1, 2.0) / math.log(r + 2, 2.0) if r < k else 0.0 for r in range(1, depth + 1)])


def sdcg(gains: np.ndarray, costs: np.ndarray, k: int) -> Model:
    """NDCG-k (scaled DCG): C(i) = log2(r+1)/log2(r+2) for r < k, else 0; W is 1/log2(r+1) over its sum up to k."""
    return _constant(gains, _sdcg_row(gains.shape[1], k))


@lru_cache(maxsize=64)
def _set_row(depth: int, k: int, beta: float) -> np.ndarray:
    def weight(i: int) -> float:
        return math.pow(i + 1, beta) - math.pow(i, beta)

    return np.array([weight(r + 1) / weight(r) if r < k else 0.0 for r in range(1, depth + 1)])


def set_measure(gains: np.ndarray, costs: np.ndarray, k: int, beta: float) -> Model:
    """SET: with w(i) = (i+1)^beta - i^beta, C(i) = w(r+1)/w(r) for r < k, else 0."""
    return _constant(gains, _set_row(gains.shape[1], k, beta))


def _while_below(totals: np.ndarray, limits: np.ndarray | float) -> np.ndarray:
    """1 while every rank so far has its running total below its limit (cwl_eval's while loops)."""
    return np.logical_and.accumulate(totals < limits, axis=1)


def bpm(gains: np.ndarray, costs: np.ndarray, k: float, t: float) -> Model:
    """BPM static: C(i) = 1 while G(i) < T and K(i) < K (each since rank 0), else 0."""
    go = _while_below(np.cumsum(gains, axis=1), t) & _while_below(np.cumsum(costs, axis=1), k)
    return go.astype(np.float64), None


def bpm_dynamic(
    gains: np.ndarray, costs: np.ndarray, k: float, t: float, hb: float, hc: float, gain_med: float
) -> Model:
    """BPM dynamic: as static with T(i) = T + sum_{j<i} hb (g(j) - gain_med) in place of T.

    cwl_eval 1.0.12 updates T, not K, in its cost loop (after the gain loop has used T), so K
    stays fixed and hc has no effect.
    """
    steps = np.empty_like(gains)
    steps[:, 0] = t
    steps[:, 1:] = hb * (gains[:, :-1] - gain_med)
    # A running sum left to right, as cwl_eval's loop adds each step to T.
    targets = np.cumsum(steps, axis=1)
    go = _while_below(np.cumsum(gains, axis=1), targets) & _while_below(np.cumsum(costs, axis=1), k)
    return go.astype(np.float64), None


def nerr8(gains: np.ndarray, costs: np.ndarray, k: int) -> Model:
    """NERR eq. 8: C(i) = 1 - g(i) for i < k - 1, else 0."""
    continuation = np.zeros_like(gains)
    continuation[:, : k - 1] = 1.0 - gains[:, : k - 1]
    return continuation, None


def nerr9(gains: np.ndarray, costs: np.ndarray, k: int) -> Model:
    """NERR eq. 9: C(i) = r/(r+1) (1 - g(i)) for i < k - 1, else 0."""
    ranks = _ranks(gains.shape[1])[: k - 1]
    continuation = np.zeros_like(gains)
    continuation[:, : k - 1] = (1.0 * ranks / (ranks + 1.0)) * (1.0 - gains[:, : k - 1])
    return continuation, None


def nerr10(gains: np.ndarray, costs: np.ndarray, phi: float) -> Model:
    """NERR eq. 10: C(i) = phi (1 - g(i))."""
    return phi * (1.0 - gains), None


def nerr11(gains: np.ndarray, costs: np.ndarray, t: float) -> Model:
    """NERR eq. 11: C(i) = ((r + 2T - 1)/(r + 2T))^2 (1 - g(i))."""
    return _insq_row(gains.shape[1], t) * (1.0 - gains), None


def _goal(totals: np.ndarray, t: float, b1: float, r1: float) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1.0 - np.power(1.0 + b1 * np.power(math.e, (t - totals) * r1), -1.0)


def _rate(totals: np.ndarray, spent: np.ndarray, a: float, b2: float, r2: float) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.power(1.0 + b2 * np.power(math.e, (a - totals / spent) * r2), -1.0)


def ift_goal(gains: np.ndarray, costs: np.ndarray, t: float, b1: float, r1: float) -> Model:
    """IFT goal (C1): C(i) = 1 - 1/(1 + b1 e^((T - G(i)) R1))."""
    return _goal(np.cumsum(gains, axis=1), t, b1, r1), None


def ift_rate(gains: np.ndarray, costs: np.ndarray, a: float, b2: float, r2: float) -> Model:
    """IFT rate (C2): C(i) = 1/(1 + b2 e^((A - G(i)/K(i)) R2))."""
    return _rate(np.cumsum(gains, axis=1), np.cumsum(costs, axis=1), a, b2, r2), None


def ift_goal_rate(
    gains: np.ndarray, costs: np.ndarray, t: float, b1: float, r1: float, a: float, b2: float, r2: float
) -> Model:
    """IFT goal and rate: C(i) = C1(i) C2(i)."""
    totals = np.cumsum(gains, axis=1)
    return _goal(totals, t, b1, r1) * _rate(totals, np.cumsum(costs, axis=1), a, b2, r2), None


def tbg(gains: np.ndarray, costs: np.ndarray, halflife: float) -> Model:
    """TBG: D(x) = h 2^(-x/h) / ln 2; W(0) ~ D(0), W(i) ~ D(K(i-1)), normalized to sum 1."""
    decay = np.empty_like(costs)
    decay[:, 0] = halflife * 2.0 ** (-0.0 / halflife)
    decay[:, 1:] = halflife * np.power(2.0, -np.cumsum(costs, axis=1)[:, :-1] / halflife)
    decay /= math.log(2.0, math.e)
    # The norm is a running sum left to right, as cwl_eval's loop adds each weight.
    weights = decay / np.cumsum(decay, axis=1)[:, -1:]
    return continuation_from_weights(weights), weights


def umeasure(gains: np.ndarray, costs: np.ndarray, l: float) -> Model:  # noqa: E741 (cwl_eval's name)
    """U-measure: W(i) ~ max(0, 1 - K(i-1)/L) for i < n - 1 (K(-1) = 0), W(n-1) = 0, normalized over the first n - 1."""
    start = np.zeros_like(costs)
    start[:, 1:] = np.cumsum(costs, axis=1)[:, :-1]
    decay = np.maximum(0.0, 1.0 - start / l)
    decay[:, -1] = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        weights = decay / np.cumsum(decay[:, :-1], axis=1)[:, -1:]
    return continuation_from_weights(weights), weights
