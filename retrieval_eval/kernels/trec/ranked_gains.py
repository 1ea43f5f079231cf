"""Whole-array numpy kernels of the gain measures beyond trec_eval: ranx's hits@k, dcg@k, dcg_burges, nDCG at a
relevance level and RBP, and TREC DL's NCG@k.

They read where each query's judged documents rank (:class:`~retrieval_eval.kernels.core.bundles.FoundArrays`)
and its judged labels best first (:class:`~retrieval_eval.kernels.core.bundles.IdealArrays`), as the
TREC kernels do. A document's gain at relevance level ``rel`` is ranx's: ``g(l)`` for a label
``l >= rel`` (``l``, or ``2^l - 1`` for exponential gain), 0 for a lower label and for an unjudged
document. Positions are 0-based ranks: the document at rank ``j`` is discounted by ``log2(j + 2)``.
"""

from __future__ import annotations

import numpy as np

from ..core.bundles import FoundArrays, IdealArrays, QueryPairs
from ..core.segments import gather, segments


def gains(labels: np.ndarray, rel: int, exponential: bool) -> np.ndarray:
    """ranx's gain of each label at relevance level ``rel``: ``l`` or ``2^l - 1`` when ``l >= rel``, else 0 (float64)."""
    values = labels.astype(np.float64)
    if exponential:
        with np.errstate(over="ignore"):
            values = np.power(2.0, values) - 1.0
    return np.where(labels >= rel, values, 0.0)


def found_entries(pairs: QueryPairs, found: FoundArrays, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every judged document the evaluated queries retrieved in their top ``depth``: its evaluated query, rank, label."""
    n_found = gather(found.n_found, pairs.run_query, 0)
    offsets = gather(found.offsets, pairs.run_query, 0)
    query, _, start = segments(offsets, n_found)
    index = start + (np.arange(query.shape[0]) - (np.cumsum(n_found) - n_found)[query])
    ranks, labels = found.ranks[index], found.labels[index]
    keep = ranks < depth
    return query[keep], ranks[keep], labels[keep]


def ideal_entries(pairs: QueryPairs, ideal: IdealArrays) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every judged label of the evaluated queries, best first: its evaluated query, position (0-based), label."""
    n_judged = gather(ideal.n_judged, pairs.qrels_query, 0)
    offsets = gather(ideal.offsets, pairs.qrels_query, 0)
    query, position, start = segments(offsets, n_judged)
    return query, position, ideal.labels[start + position]


def discounted_sum(query: np.ndarray, ranks: np.ndarray, values: np.ndarray, n_queries: int, k: int) -> np.ndarray:
    """Per query, the sum of ``values / log2(rank + 2)`` over its entries ranked above ``k`` (in rank order)."""
    top = ranks < k
    terms = values[top] / np.log2(ranks[top] + 2.0)
    return np.bincount(query[top], weights=terms, minlength=n_queries)


def dcg(pairs: QueryPairs, found: FoundArrays, depth: int, rel: int, exponential: bool, k: int) -> np.ndarray:
    """ranx's DCG@k per evaluated query: sum over ranks j < k of gain / log2(j + 2) (``k`` huge: the whole ranking)."""
    query, ranks, labels = found_entries(pairs, found, depth)
    return discounted_sum(query, ranks, gains(labels, rel, exponential), pairs.run_query.shape[0], k)


def ideal_dcg(pairs: QueryPairs, ideal: IdealArrays, rel: int, exponential: bool, k: int) -> np.ndarray:
    """ranx's ideal DCG@k: the DCG@k of the judged labels >= rel, best first."""
    query, position, labels = ideal_entries(pairs, ideal)
    return discounted_sum(query, position, gains(labels, rel, exponential), pairs.run_query.shape[0], k)


def ndcg(
    pairs: QueryPairs, found: FoundArrays, ideal: IdealArrays, depth: int, rel: int, exponential: bool, k: int
) -> np.ndarray:
    """ranx's nDCG@k: DCG@k / ideal DCG@k, the DCG itself where the ideal is 0 (ranx divides by 1 there)."""
    ideal_values = ideal_dcg(pairs, ideal, rel, exponential, k)
    return dcg(pairs, found, depth, rel, exponential, k) / np.where(ideal_values == 0.0, 1.0, ideal_values)


def hits(pairs: QueryPairs, found: FoundArrays, depth: int, rel: int, k: int) -> np.ndarray:
    """ranx's hits@k: documents with a label >= rel among the top k (float64 counts)."""
    query, ranks, labels = found_entries(pairs, found, depth)
    relevant = (ranks < k) & (labels >= rel)
    return np.bincount(query[relevant], minlength=pairs.run_query.shape[0]).astype(np.float64)


def rank_biased_precision(pairs: QueryPairs, found: FoundArrays, depth: int, rel: int, p: float) -> np.ndarray:
    """ranx's RBP: (1 - p) * sum over ranks j of l_j p^j, l_j the label when >= rel, else 0 (the whole ranking)."""
    query, ranks, labels = found_entries(pairs, found, depth)
    weights = np.where(labels >= rel, labels.astype(np.float64), 0.0) * np.power(p, ranks.astype(np.float64))
    return (1.0 - p) * np.bincount(query, weights=weights, minlength=pairs.run_query.shape[0])


def normalized_cumulative_gain(
    pairs: QueryPairs, found: FoundArrays, ideal: IdealArrays, depth: int, rel: int, k: int
) -> np.ndarray:
    """NCG@k: the gains of the top k over those of the best k judged labels, linear gain from ``rel``; 0 when the
    ideal's is 0."""
    n_queries = pairs.run_query.shape[0]
    query, ranks, labels = found_entries(pairs, found, depth)
    top = ranks < k
    gained = np.bincount(query[top], weights=gains(labels[top], rel, False), minlength=n_queries)
    ideal_query, position, ideal_labels = ideal_entries(pairs, ideal)
    best = position < k
    possible = np.bincount(ideal_query[best], weights=gains(ideal_labels[best], rel, False), minlength=n_queries)
    out = np.zeros(n_queries, dtype=np.float64)
    np.divide(gained, possible, out=out, where=possible > 0)
    return out
