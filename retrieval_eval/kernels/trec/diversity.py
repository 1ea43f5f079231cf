"""ndeval's intent-aware diversity measures (TREC Web track), with numpy over all queries at once.

A query's judgments are per subtopic; a document is relevant to subtopic j when its label there
is >= rel. S is the number of subtopics with at least one relevant document (ndeval's
``actualSubtopics``), ``nrel_j`` the relevant documents of subtopic j. Ranks r are 0-based.
The gain of the document at rank r is ``g_r = sum_j rel_j(r) * (1 - alpha)^c_j(r)``, c_j(r) the
documents relevant to j ranked above r, added in subtopic order ((1 - alpha)^c by repeated
multiplication, as ndeval keeps it). With ``II_k = sum_{r<k} S (1 - alpha)^r w_r``:

- alpha-DCG@k = sum_{r<k} g_r / log2(r + 2) / II_k (w_r = 1 / log2(r + 2)); ERR-IA@k the same
  with 1 / (r + 1) for the discount. ndeval does not divide at k = 1 (its loop starts at rank
  2), so alpha-DCG@1 and ERR-IA@1 are the raw gain of rank 1. This "ideal ideal" normalisation
  is ndeval's and is reproduced, not fixed;
- alpha-nDCG@k, nERR-IA@k: the value over the value of the ideal ranking (ndeval's greedy one:
  at each rank the document of highest gain, equal gains to the greatest document id in byte
  order), 0 where the run's alpha-DCG@k is 0;
- NRBP = (1 - (1 - alpha) beta) / S * sum_r g_r beta^r over the whole ranking; nNRBP its ratio
  to the ideal ranking's (NaN for a judged query without relevant documents: 0 / 0 as ndeval);
- MAP-IA = (1/S) sum_j (1/nrel_j) sum_{r: rel_j(r)} (c_j(r) + 1) / (r + 1);
- P-IA@k = (sum_{r<k} sum_j rel_j(r)) / (k S); strec@k = (subtopics covered in the top k) / S.

Every value is 0 when S is 0 (nNRBP excepted) and for a query the run lacks. Sums run one term
after the other in ndeval's order (``np.cumsum`` along rows; padding adds +0.0), so the values
are ndeval's doubles.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..core.segments import running, segments


class DiversityJudgments(NamedTuple):
    """Relevant (document, subtopic) pairs of the judged documents (the pool), padded CSR by pool document.

    Pool document p's relevant subtopics are ``subtopic[offsets[p] : offsets[p + 1]]`` (the places
    of its query's subtopics, ascending: the order its gains are added in); ``pool_offsets[c] : pool_offsets[c + 1]`` are
    qrels query c's pool documents in ascending byte order of their ids; ``n_subtopics[c]`` its
    number of subtopics (relevant or not).
    """

    offsets: np.ndarray
    subtopic: np.ndarray
    pool_offsets: np.ndarray
    n_subtopics: np.ndarray


class DiversityValues(NamedTuple):
    """Per evaluated query: ``[q, k - 1]`` columns for the cutoff measures, one value for the others."""

    err: np.ndarray
    nerr: np.ndarray
    dcg: np.ndarray
    ndcg: np.ndarray
    precision: np.ndarray
    strec: np.ndarray
    nrbp: np.ndarray
    nnrbp: np.ndarray
    map_ia: np.ndarray


def _powers(first: np.ndarray | float, factor: float, n: int) -> np.ndarray:
    """``first, first*factor, (first*factor)*factor, ...``: n repeated multiplications (rows for an array ``first``)."""
    first = np.asarray(first, dtype=np.float64)
    matrix = np.full(first.shape + (max(n, 1),), factor, dtype=np.float64)
    matrix[..., 0] = first
    return np.cumprod(matrix, axis=-1)[..., :n]


def _counts(row: np.ndarray, column: np.ndarray, n_rows: int, n_columns: int) -> np.ndarray:
    """How many times each (row, column) occurs, as an n_rows x n_columns matrix."""
    return np.bincount(row * n_columns + column, minlength=n_rows * n_columns).reshape(n_rows, n_columns)


def _discounts(depth: int) -> np.ndarray:
    # math.log is the C library's log, as ndeval's (np.log may differ in the last bit).
    return np.array([1.0] + [math.log(2.0) / math.log(r + 2.0) for r in range(1, depth)], dtype=np.float64)


def _position_gains(query: np.ndarray, rank: np.ndarray, subtopic: np.ndarray, width: int, alpha: float) -> tuple:
    """Each hit (query, rank, subtopic)'s occurrence count c, and the gain of each ranked position with a hit.

    Returns ``(c, positions (query, rank) unique in order, gains)``.
    """
    n = query.shape[0]
    by_subtopic = np.lexsort((rank, subtopic, query))
    q, s = query[by_subtopic], subtopic[by_subtopic]
    heads = np.ones(n, dtype=bool)
    heads[1:] = (q[1:] != q[:-1]) | (s[1:] != s[:-1])
    start = np.maximum.accumulate(np.where(heads, np.arange(n), 0))
    c = np.empty(n, dtype=np.int64)
    c[by_subtopic] = np.arange(n) - start
    table = _powers(1.0, 1.0 - alpha, int(c.max(initial=0)) + 1)
    # Hits in (query, rank, subtopic) order: a position's gains are added in subtopic order.
    by_rank = np.lexsort((subtopic, rank, query))
    key = query[by_rank] * width + rank[by_rank]
    first = np.ones(n, dtype=bool)
    first[1:] = key[1:] != key[:-1]
    pos_of = np.cumsum(first) - 1
    n_pos = int(first.sum())
    within = np.arange(n) - np.flatnonzero(first)[pos_of]
    sums = running(pos_of, within, table[c[by_rank]], n_pos, int(within.max(initial=-1)) + 1)[:, -1]
    return c, query[by_rank][first], rank[by_rank][first], sums


def _normalised(gains: np.ndarray, actual: np.ndarray, alpha: float, *, err: bool) -> np.ndarray:
    """ndeval's computeDCG (gain times 1 / log2(r + 2)) or computeERR (gain divided by r + 1): the cumulative
    value over the ideal ideal's, rank 1 left raw."""
    depth = gains.shape[1]
    powers = _powers(actual.astype(np.float64), 1.0 - alpha, depth)
    if err:
        ranks = np.arange(1, depth + 1, dtype=np.float64)
        cumulative, ideal_ideal = np.cumsum(gains / ranks, axis=1), np.cumsum(powers / ranks, axis=1)
    else:
        discounts = _discounts(depth)
        cumulative, ideal_ideal = np.cumsum(gains * discounts, axis=1), np.cumsum(powers * discounts, axis=1)
    out = cumulative.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        out[:, 1:] = cumulative[:, 1:] / ideal_ideal[:, 1:]
    out[actual == 0] = 0.0
    return out


def _gain_matrices(query: np.ndarray, rank: np.ndarray, gains: np.ndarray, n_queries: int, depth: int,
                   decay: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The gains of ranks 0..depth-1 as a matrix, and each query's sum of gain * beta^r over all its ranks."""
    matrix = np.zeros((n_queries, depth), dtype=np.float64)
    top = rank < depth
    matrix[query[top], rank[top]] = gains[top]
    terms = gains * decay[rank]
    order = np.lexsort((rank, query))
    counts = np.bincount(query, minlength=n_queries)
    seg, pos, _ = segments(np.zeros(n_queries, dtype=np.int64), counts)
    total = running(seg, pos, terms[order], n_queries, int(counts.max(initial=0)))[:, -1]
    return matrix, total


def diversity_measures(
    judgments: DiversityJudgments,
    qrels_query: np.ndarray,
    ranked_offsets: np.ndarray,
    n_ranked: np.ndarray,
    ranked_pool: np.ndarray,
    rel_subtopic: np.ndarray,
    alpha: float,
    beta: float,
    depth: int,
) -> DiversityValues:
    """ndeval's measures (module docstring) of each evaluated query, at ranks 1..depth for the cutoff ones.

    Evaluated query i is qrels query ``qrels_query[i]`` (-1: not judged) and ranks the pool
    documents ``ranked_pool[ranked_offsets[i] : ranked_offsets[i] + n_ranked[i]]`` (-1: not
    judged). ``rel_subtopic`` is a mask over ``judgments.subtopic``: the pairs whose label is >= rel.
    """
    n_queries = qrels_query.shape[0]
    judged = qrels_query >= 0
    n_sub = np.where(judged, judgments.n_subtopics[np.maximum(qrels_query, 0)], 0)
    width_sub = int(n_sub.max(initial=0)) + 1
    # Relevant pairs per pool document, and each query's relevant documents per subtopic.
    pool_of_pair = np.repeat(np.arange(judgments.offsets.shape[0] - 1), np.diff(judgments.offsets))
    pair_pool, pair_sub = pool_of_pair[rel_subtopic], judgments.subtopic[rel_subtopic]
    n_pool = judgments.offsets.shape[0] - 1
    pool_query = np.repeat(np.arange(judgments.pool_offsets.shape[0] - 1), np.diff(judgments.pool_offsets))
    eval_of_qrels = np.full(judgments.pool_offsets.shape[0] - 1, -1, dtype=np.int64)
    eval_of_qrels[qrels_query[judged]] = np.flatnonzero(judged)
    pair_eval = eval_of_qrels[pool_query[pair_pool]] if n_pool else pair_pool
    keep = pair_eval >= 0
    nrel = _counts(pair_eval[keep], pair_sub[keep], n_queries, width_sub)
    actual = (nrel > 0).sum(axis=1)
    rel_offsets = np.zeros(n_pool + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_pool, minlength=n_pool), out=rel_offsets[1:])

    # The run: one hit per (ranked position, relevant subtopic of its document).
    seg, pos, starts = segments(ranked_offsets, n_ranked)
    pool = ranked_pool[starts + pos]
    hit_position = pool >= 0
    seg, pos, pool = seg[hit_position], pos[hit_position], pool[hit_position]
    counts = rel_offsets[pool + 1] - rel_offsets[pool]
    hq, hr = np.repeat(seg, counts), np.repeat(pos, counts)
    _, within, pair_start = segments(rel_offsets[pool], counts)
    hs = pair_sub[pair_start + within]
    n_ranks = int(n_ranked.max(initial=0))
    decay = _powers(1.0, beta, max(n_ranks, 1))
    c, gq, gr, gains = _position_gains(hq, hr, hs, max(n_ranks, 1), alpha)
    run_gains, run_nrbp = _gain_matrices(gq, gr, gains, n_queries, depth, decay)

    dcg = _normalised(run_gains, actual, alpha, err=False)
    err = _normalised(run_gains, actual, alpha, err=True)
    scale = np.where(actual > 0, (1 - (1 - alpha) * beta) / np.maximum(actual, 1), 0.0)
    nrbp = run_nrbp * scale

    # P-IA and strec: hits and first hits per subtopic in the top k.
    top = hr < depth
    hit_counts = _counts(hq[top], hr[top], n_queries, depth)
    first = top & (c == 0)
    first_counts = _counts(hq[first], hr[first], n_queries, depth)
    divisor = np.arange(1, depth + 1)[None, :] * actual[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(actual[:, None] > 0, np.cumsum(hit_counts, axis=1) / divisor, 0.0)
        strec = np.where(actual[:, None] > 0, np.cumsum(first_counts, axis=1) / np.maximum(actual, 1)[:, None], 0.0)

    # MAP-IA: each subtopic's sum of (c + 1) / (r + 1) in rank order, then over subtopics in order.
    order = np.lexsort((hr, hs, hq))
    group = hq[order] * width_sub + hs[order]
    heads = np.ones(order.shape[0], dtype=bool)
    heads[1:] = group[1:] != group[:-1]
    group_of = np.cumsum(heads) - 1
    within_group = np.arange(order.shape[0]) - np.flatnonzero(heads)[group_of] if order.shape[0] else group_of
    terms = (c[order] + 1) / (hr[order] + 1.0)
    totals = running(group_of, within_group, terms, int(heads.sum()), int(within_group.max(initial=-1)) + 1)[:, -1]
    per_subtopic = np.zeros((n_queries, width_sub), dtype=np.float64)
    gq_, gs_ = hq[order][heads], hs[order][heads]
    per_subtopic[gq_, gs_] = totals / nrel[gq_, gs_]
    with np.errstate(divide="ignore", invalid="ignore"):
        map_ia = np.where(actual > 0, np.cumsum(per_subtopic, axis=1)[:, -1] / actual, 0.0)

    ideal_gains, ideal_nrbp = _ideal(judgments, qrels_query, pair_pool, pair_sub, pair_eval, rel_offsets, n_queries,
                                     width_sub, depth, alpha, beta)
    ideal_dcg = _normalised(ideal_gains, actual, alpha, err=False)
    ideal_err = _normalised(ideal_gains, actual, alpha, err=True)
    found = dcg != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ndcg = np.where(found, dcg / np.where(found, ideal_dcg, 1.0), 0.0)
        nerr = np.where(found, err / np.where(found, ideal_err, 1.0), 0.0)
        nnrbp = nrbp / (ideal_nrbp * scale)
    # ndeval computes nothing for a topic the run lacks (-c counts it as 0).
    nnrbp = np.where(n_ranked > 0, nnrbp, 0.0)
    return DiversityValues(err, nerr, dcg, ndcg, precision, strec, nrbp, nnrbp, map_ia)


def _ideal(judgments, qrels_query, pair_pool, pair_sub, pair_eval, rel_offsets, n_queries, width_sub, depth, alpha, beta):
    """ndeval's greedy ideal ranking: its gain at each rank (the first ``depth``) and its NRBP sum."""
    keep = pair_eval >= 0
    pair_pool, pair_sub, pair_eval = pair_pool[keep], pair_sub[keep], pair_eval[keep]
    # Relevant documents of each query, in descending byte order of their ids (argmax takes the
    # first of equal gains: ndeval's greatest document id).
    docs = np.unique(pair_pool)[::-1]
    doc_eval = pair_eval[np.searchsorted(pair_pool, docs)] if docs.size else docs
    order = np.argsort(doc_eval, kind="stable")
    docs, doc_eval = docs[order], doc_eval[order]
    n_docs = np.bincount(doc_eval, minlength=n_queries)
    seg, slot, _ = segments(np.zeros(n_queries, dtype=np.int64), n_docs)
    width = int(n_docs.max(initial=0))
    slot_of_pool = np.full(judgments.offsets.shape[0] - 1, -1, dtype=np.int64)
    slot_of_pool[docs] = slot
    rel = np.zeros((n_queries, max(width, 1), width_sub), dtype=bool)
    rel[pair_eval, slot_of_pool[pair_pool], pair_sub] = True
    valid = np.arange(max(width, 1))[None, :] < n_docs[:, None]
    taken = ~valid
    gain = np.ones((n_queries, width_sub), dtype=np.float64)
    steps = np.zeros((n_queries, max(width, 1)), dtype=np.float64)
    rows = np.arange(n_queries)
    for step in range(width):
        # A loop over ranks, each a whole-array step over every query.
        score = np.zeros(taken.shape, dtype=np.float64)
        for j in range(width_sub):
            score += rel[:, :, j] * gain[:, j][:, None]
        score[taken] = -np.inf
        pick = np.argmax(score, axis=1)
        active = step < n_docs
        steps[active, step] = score[rows, pick][active]
        taken[rows[active], pick[active]] = True
        hit = rel[rows, pick] & active[:, None]
        gain[hit] *= 1.0 - alpha
    gains = np.zeros((n_queries, depth), dtype=np.float64)
    m = min(depth, width)
    gains[:, :m] = steps[:, :m]
    decay = _powers(1.0, beta, max(width, 1))
    nrbp = np.cumsum(steps[:, :max(width, 1)] * decay[None, :], axis=1)[:, -1] if width else np.zeros(n_queries)
    return gains, nrbp
