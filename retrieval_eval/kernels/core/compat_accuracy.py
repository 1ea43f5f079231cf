"""Whole-array numpy kernels of ir_measures 0.4.3's Compat and Accuracy (its compat and accuracy providers).

Compat (Clarke, Vtyurina and Smucker, TOIS 2021) is the rank-biased overlap of the ranking R with
the ideal ranking I to depth D = max(|R|, |I|)::

    RBO = sum_{i<D} p^i |R_{i+1} & I_{i+1}| / (i + 1)  /  sum_{i<D} p^i

(``X_d``: the first d documents), normalized by the RBO of I with itself when that is > 0.
I holds the judged documents with a label > 0, by label descending, then by the run's score
descending (0.0 for one not retrieved), then in qrels order. A document in both enters the
overlap at depth m = max(rank in R, rank in I) (1-based) and stays, so with
``H(n) = sum_{i<n} p^i / (i + 1)`` the sum is ``sum_x H(D) - H(m_x - 1)``, and the ideal's own
(overlap min(d, |I|)) is ``W(|I|) + |I| (H(D) - H(|I|))``, ``W(n) = sum_{i<n} p^i``.

Accuracy is, over the top k (all when k is 0): 1 - sum_j c_j / (N * R), R the relevant documents
(label >= rel, an unjudged one has label 0), N the others, c_j the others ranked above the j-th
relevant one: the share of (relevant, other) pairs in the right order. NaN where ir_measures
reports nothing (R = 0, or the query is on one side only) and where it divides by zero (N = 0).
"""

from __future__ import annotations

import numpy as np

from .bundles import JudgmentArrays, QueryPairs
from .segments import gather, segments


def _tables(p: float, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """W(n) and H(n) for n = 0..depth; p^i by repeated multiplication, as ir_measures' weight *= p."""
    weights = np.cumprod(np.concatenate(([1.0], np.full(max(depth - 1, 0), p))))[:depth]
    cumulative = np.concatenate(([0.0], np.cumsum(weights)))
    harmonic = np.concatenate(([0.0], np.cumsum(weights / np.arange(1, depth + 1))))
    return cumulative, harmonic


def compat(
    pairs: QueryPairs,
    n_ranked: np.ndarray,
    doc_query: np.ndarray,
    doc_rank: np.ndarray,
    doc_slot: np.ndarray,
    doc_score: np.ndarray,
    judgments: JudgmentArrays,
    p: float,
    normalize: bool,
) -> np.ndarray:
    """Compat per evaluated query (see the module docstring); documents flat as :class:`RankedDocuments` holds them."""
    n_queries = pairs.run_query.shape[0]
    n_slots = judgments.labels.shape[0]
    group, position, start = segments(judgments.group_offsets[: judgments.n_judged.shape[0]], judgments.n_judged)
    slots = start + position
    labels = judgments.labels[slots]
    score = np.zeros(n_slots, dtype=np.float64)
    rank = np.full(n_slots, -1, dtype=np.int64)
    found = doc_slot >= 0
    score[doc_slot[found]], rank[doc_slot[found]] = doc_score[found], doc_rank[found]
    relevant = np.flatnonzero(labels > 0)
    order = relevant[np.lexsort((judgments.rows[slots[relevant]], -score[slots[relevant]], -labels[relevant], group[relevant]))]
    n_relevant = np.bincount(group[order], minlength=judgments.n_judged.shape[0])
    ideal_rank = np.arange(order.shape[0]) - (np.cumsum(n_relevant) - n_relevant)[group[order]]
    query_of_group = np.full(judgments.n_judged.shape[0], -1, dtype=np.int64)
    known = pairs.qrels_query >= 0
    query_of_group[pairs.qrels_query[known]] = np.flatnonzero(known)
    r = gather(n_relevant, pairs.qrels_query, 0)
    depth = np.maximum(gather(n_ranked, pairs.run_query, 0), r)
    cumulative, harmonic = _tables(p, int(depth.max(initial=0)))
    both = rank[slots[order]] >= 0
    entered = np.maximum(rank[slots[order]][both], ideal_rank[both]) + 1
    query = query_of_group[group[order][both]]
    keep = query >= 0
    query, entered = query[keep], entered[keep]
    overlap = np.bincount(query, weights=harmonic[depth[query]] - harmonic[entered - 1], minlength=n_queries)
    scored = depth > 0
    out = np.zeros(n_queries, dtype=np.float64)
    out[scored] = overlap[scored] / cumulative[depth[scored]]
    if normalize:
        best = np.zeros(n_queries, dtype=np.float64)
        best[scored] = (cumulative[r[scored]] + r[scored] * (harmonic[depth[scored]] - harmonic[r[scored]])) / cumulative[
            depth[scored]
        ]
        np.divide(out, best, out=out, where=best > 0.0)
    return out


def accuracy(
    pairs: QueryPairs, offsets: np.ndarray, n_ranked: np.ndarray, labels: np.ndarray, rel: float, k: int
) -> np.ndarray:
    """ir_measures' Accuracy@k per evaluated query over ranked labels (0 when unjudged); see the module docstring."""
    n_queries = pairs.run_query.shape[0]
    depth = np.minimum(gather(n_ranked, pairs.run_query, 0), k)
    query, position, start = segments(gather(offsets, pairs.run_query, 0), depth)
    relevant = labels[start + position] >= rel
    n_relevant = np.bincount(query[relevant], minlength=n_queries).astype(np.float64)
    others = depth - n_relevant
    ranks = np.bincount(query[relevant], weights=position[relevant].astype(np.float64), minlength=n_queries)
    above = ranks - n_relevant * (n_relevant - 1.0) / 2.0
    out = np.full(n_queries, np.nan)
    defined = (n_relevant > 0) & (others > 0) & (pairs.qrels_query >= 0)
    out[defined] = 1.0 - above[defined] / (others[defined] * n_relevant[defined])
    return out
