"""Azure's document-retrieval metrics with numpy over all queries: the python build of :func:`.docret.document_retrieval_metrics`.

The same values, to the bit, as the per-query walk: each query's ranked labels are a segment of
the flat arrays, the counts are per-segment tallies, and every float sum (DCG, XDCG, the
fidelity weights) is a running sum along a padded row (:func:`.segments.running`), one addition
after the other from 0.0 as the walk adds them. Padding adds +0.0, which changes no sum: none is
-0.0, since a sum that starts at +0.0 can never become it.
"""

from __future__ import annotations

import numpy as np

from . import docret_columns as d
from .bundles import IdealArrays, QueryPairs, RankedArrays
from .segments import count, gather, padded_cells, running, segments, two_to


def numpy_document_retrieval_metrics(
    queries: QueryPairs,
    ranked: RankedArrays,
    ideal_lists: IdealArrays,
    judged_rows: np.ndarray,
    k: int,
    label_min: int,
    azure_gains: bool,
    log2_discounts: np.ndarray,
    xdcg_weights: np.ndarray,
    xdcg_norm: float,
) -> np.ndarray:
    """:func:`.docret.document_retrieval_metrics` (same arguments, same ``(n_queries, N_COLUMNS)``, bit for bit)."""
    run_query, qrels_query = queries
    ranked_offsets, n_ranked, ranked_labels, ranked_judged, retrieved_rows = ranked
    ideal_offsets, n_ideal, ideal_labels = ideal_lists
    n_queries = run_query.shape[0]
    out = np.zeros((n_queries, d.N_COLUMNS), dtype=np.float64)
    rows_retrieved = gather(retrieved_rows, run_query, 0)
    out[:, d.TOTAL_RETRIEVED] = rows_retrieved
    out[:, d.TOTAL_GROUND_TRUTH] = gather(judged_rows, qrels_query, 0)
    active = rows_retrieved != 0
    n = np.where(active, gather(n_ranked, run_query, 0), 0)
    top = np.minimum(k, n)

    q_of, j_of, starts = segments(gather(ranked_offsets, run_query, 0), n)
    labels = ranked_labels[starts + j_of]
    unjudged = ~ranked_judged[starts + j_of]
    holes = count(q_of, unjudged, n_queries)
    out[:, d.HOLES] = holes
    np.divide(holes, rows_retrieved, out=out[:, d.HOLES_RATIO], where=active)
    out[:, d.HOLES_AT_K] = count(q_of, unjudged & (j_of < top[q_of]), n_queries) / k

    relevant = active & (count(q_of, labels != 0, n_queries) > 0)
    out[:, d.RELEVANT_RETRIEVED] = relevant
    width = int(n.max(initial=0))
    in_top = j_of < top[q_of]
    q_top, j_top, top_labels = q_of[in_top], j_of[in_top], labels[in_top]
    # ndcg_exp's gains: Azure's 2^l - 1 for every label, or a label below 0 with gain 0 (the walk's rule).
    gain_top = top_labels if azure_gains else np.maximum(top_labels, 0)
    dcg = running(q_top, j_top, (two_to(gain_top) - 1.0) / log2_discounts[j_top], n_queries, width)[:, -1]
    xdcg = running(q_top, j_top, (25 * top_labels) * xdcg_weights[j_top], n_queries, width)[:, -1]
    best = np.full(n_queries, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(best, q_top, top_labels)
    top1 = np.zeros(n_queries, dtype=np.int64)
    top1[relevant] = ranked_labels[ranked_offsets[run_query[relevant]]]
    weighted = labels > label_min
    retrieved_weight = running(
        q_of[weighted], j_of[weighted], two_to(labels[weighted] + 1) - 1.0, n_queries, width
    )[:, -1]

    m = gather(n_ideal, qrels_query, 0)
    g_of, i_of, ideal_starts = segments(gather(ideal_offsets, qrels_query, 0), m)
    ideal = ideal_labels[ideal_starts + i_of]
    ideal_width = int(m.max(initial=0))
    in_ideal_top = i_of < np.minimum(k, m)[g_of]
    g_top, i_top = g_of[in_ideal_top], i_of[in_ideal_top]
    ideal_top = ideal[in_ideal_top] if azure_gains else np.maximum(ideal[in_ideal_top], 0)
    idcg = running(g_top, i_top, (two_to(ideal_top) - 1.0) / log2_discounts[i_top], n_queries, ideal_width)[:, -1]
    ideal_weighted = ideal > label_min
    ideal_weight = running(
        g_of[ideal_weighted], i_of[ideal_weighted], two_to(ideal[ideal_weighted] + 1) - 1.0, n_queries, ideal_width
    )[:, -1]

    ndcg = _ratio_or_nan(dcg, idcg) if azure_gains else _ratio_or_zero(dcg, idcg)
    out[:, d.NDCG_EXP] = np.where(relevant, ndcg, 0.0)
    out[:, d.XDCG] = np.where(relevant, xdcg / xdcg_norm, 0.0)
    out[:, d.TOP1_RELEVANCE] = top1
    out[:, d.MAX_RELEVANCE] = np.where(relevant, best, 0)
    out[:, d.FIDELITY] = np.where(relevant, _ratio_or_nan(retrieved_weight, ideal_weight), 0.0)
    return out


def _ratio_or_nan(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b``, NaN where ``b`` is 0.0 (the walk's undefined ratio)."""
    out = np.full(a.shape[0], np.nan)
    return np.divide(a, b, out=out, where=b != 0.0)


def _ratio_or_zero(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b``, 0.0 where ``b`` is 0.0 (ndcg_exp without negative gains: nothing judged relevant)."""
    return np.divide(a, b, out=np.zeros(a.shape[0]), where=b != 0.0)


def docret_work(queries: QueryPairs, ranked: RankedArrays, ideal_lists: IdealArrays, *rest: object) -> int:
    """A call's work: its ranked rows, or the cells of its padded rows if more (:func:`.segments.padded_cells`)."""
    return max(ranked.labels.shape[0], padded_cells(queries.run_query.shape[0], ranked.n_ranked, ideal_lists.n_judged))
