"""Plain-Python oracles for two rank correlations of system rankings: tau_AP and rank-biased overlap.

Written from the papers' definitions, standard library only and independent of the
``retrieval_eval`` package. A ranking is a list of distinct items, best first.

- tau_AP: Yilmaz, Aslam and Robertson, "A new rank correlation coefficient for information
  retrieval", SIGIR 2008, eq. 3: tau_AP = 2/(N-1) * sum_{i=2..N} C(i)/(i-1) - 1, where C(i) is the
  number of items above rank i in the list being evaluated that are correctly ranked with
  respect to the item at rank i, per the reference (true) list.
- RBO_ext: Webber, Moffat and Zobel, "A similarity measure for indefinite rankings", ACM TOIS
  28(4), 2010, eq. 32, for two lists seen to the same depth k: X_d = |S_{:d} ∩ T_{:d}| the overlap of
  the top d, A_d = X_d / d the agreement, RBO_ext = X_k/k * p^k + (1-p)/p * sum_{d=1..k} A_d p^d.
"""

from __future__ import annotations

from collections.abc import Sequence


def tau_ap(reference: Sequence[str], evaluated: Sequence[str]) -> float:
    """tau_AP of ``evaluated`` with ``reference`` as the true order (both the same items)."""
    position = {item: rank for rank, item in enumerate(reference)}
    n = len(evaluated)
    total = 0.0
    for i in range(1, n):
        correct = sum(1 for k in range(i) if position[evaluated[k]] < position[evaluated[i]])
        total += correct / i
    return 2.0 / (n - 1) * total - 1.0


def rbo_ext(first: Sequence[str], second: Sequence[str], p: float) -> float:
    """RBO_ext of two lists of the same length k at persistence ``p``."""
    k = len(first)
    total = 0.0
    for depth in range(1, k + 1):
        overlap = len(set(first[:depth]) & set(second[:depth]))
        total += overlap / depth * p**depth
    overlap_k = len(set(first) & set(second))
    return overlap_k / k * p**k + (1 - p) / p * total
