"""Document-retrieval metrics (azure-ai-evaluation's DocumentRetrievalEvaluator family) for any k.

One pass over each query's ranked labels fills one row of ``out`` with every metric of the
family; columns are the constants below. For one query with ranked labels ``r_1..r_n``
(unjudged = 0), ideal labels ``i_1 >= i_2 >= ...`` (distinct judged documents), ``R`` retrieved
rows and ``G`` judged rows (both counting duplicates), and label minimum ``m``:

- ndcg_exp@k = sum_{j<=min(k,n)} g(r_j)/log2(j+1) / sum_{j<=min(k,|I|)} g(i_j)/log2(j+1), exponential
  gain g(l) = 2^max(l, 0) - 1: a label below 0 has gain 0, as label 0 (not relevant, as in trec_eval),
  so the value lies in [0, 1]; 0 when the ideal sum is 0 (no judged label above 0). With
  ``azure_gains`` (the drop-in), g(l) = 2^l - 1 for every label, as azure-ai-evaluation: a negative
  label has a negative gain, the value may leave [0, 1], and it is NaN when the ideal sum is 0
- xdcg@k = 25 * sum_{j<=min(k,n)} r_j 0.6^(j-1) / sum_{j<=k} 0.6^(j-1)
- fidelity = sum_{ranked d, l(d)>m} (2^(l(d)+1) - 1) / sum_{judged d, l(d)>m} (2^(l(d)+1) - 1)
  (weights in numeric label order; NaN when the denominator is 0, e.g. every judged label at m)
- top1_relevance = r_1; max_relevance@k = max(r_1..r_min(k,n))
- holes = distinct unjudged ranked documents; holes_ratio = holes / R;
  holes@k = unjudged documents among the top min(k, n) / k
- total_retrieved_documents = R; total_ground_truth_documents = G

Azure's branches come first, so the NaNs above arise only past them: with no retrieved rows every
metric is 0; when every ranked label is 0 (all-zero labels, or only unjudged documents retrieved)
the five quality metrics are 0, not 0/0, and the holes are still counted.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from .bundles import IdealArrays, QueryPairs, RankedArrays
from .docret_columns import (
    FIDELITY,
    HOLES,
    HOLES_AT_K,
    HOLES_RATIO,
    MAX_RELEVANCE,
    N_COLUMNS,
    NDCG_EXP,
    RELEVANT_RETRIEVED,
    TOP1_RELEVANCE,
    TOTAL_GROUND_TRUTH,
    TOTAL_RETRIEVED,
    XDCG,
)
from .docret_numpy import docret_work, numpy_document_retrieval_metrics

#: The first j with 0.6^j == 0.0 in float64 (1459): xdcg's weights from there on are exactly zero.
XDCG_WEIGHTS_VANISH = next(j for j in itertools.count() if math.pow(0.6, j) == 0.0)


def _example() -> tuple:
    """One query that retrieved 2 documents, the first judged 1, its only judgment; k = 3."""
    one = np.zeros(1, dtype=np.int64)
    return (
        QueryPairs(one, one.copy()),
        RankedArrays(read_only([0, 2], np.int64), np.full(1, 2, dtype=np.int64), np.array([1, 0], dtype=np.int64),
                     np.array([True, False]), np.full(1, 2, dtype=np.int64)),
        IdealArrays(read_only([0, 1], np.int64), read_only([1], np.int64), read_only([1], np.int64)),
        np.ones(1, dtype=np.int64), 3, 0, False, *discount_tables(3, 2),
    )


# One query's work is a function of its own: the parallel build's loop is then a single call, which numba's
# parallel passes handle in a fraction of the time a whole body takes (benchmarks/bench_compile.py).
@jit
def _query_metrics(
    i: int,
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
    out: np.ndarray,
) -> None:
    """Row i of ``out`` (see :func:`document_retrieval_metrics`)."""
    run_query, qrels_query = queries
    ranked_offsets, n_ranked, ranked_labels, ranked_judged, retrieved_rows = ranked
    ideal_offsets, n_ideal, ideal_labels = ideal_lists
    rq = run_query[i]
    gq = qrels_query[i]
    n = n_ranked[rq] if rq >= 0 else 0
    rows_retrieved = retrieved_rows[rq] if rq >= 0 else 0
    base = ranked_offsets[rq] if rq >= 0 else 0
    m = n_ideal[gq] if gq >= 0 else 0
    ideal_base = ideal_offsets[gq] if gq >= 0 else 0
    out[i, TOTAL_RETRIEVED] = rows_retrieved
    out[i, TOTAL_GROUND_TRUTH] = judged_rows[gq] if gq >= 0 else 0
    if rows_retrieved == 0:
        return
    top = min(k, n)
    holes = 0
    holes_top = 0
    any_relevant = False
    for j in range(n):
        if not ranked_judged[base + j]:
            holes += 1
            if j < top:
                holes_top += 1
        if ranked_labels[base + j] != 0:
            any_relevant = True
    out[i, HOLES] = holes
    out[i, HOLES_RATIO] = holes / rows_retrieved
    out[i, HOLES_AT_K] = holes_top / k
    if not any_relevant:
        return
    out[i, RELEVANT_RETRIEVED] = 1.0

    dcg = 0.0
    xdcg = 0.0
    best = ranked_labels[base]
    for j in range(top):
        label = ranked_labels[base + j]
        dcg += (2.0 ** (label if azure_gains else max(label, 0)) - 1.0) / log2_discounts[j]
        xdcg += (25 * label) * xdcg_weights[j]
        best = max(best, label)
    idcg = 0.0
    for j in range(min(k, m)):
        ideal = ideal_labels[ideal_base + j]
        idcg += (2.0 ** (ideal if azure_gains else max(ideal, 0)) - 1.0) / log2_discounts[j]
    out[i, NDCG_EXP] = dcg / idcg if idcg != 0.0 else (np.nan if azure_gains else 0.0)
    out[i, XDCG] = xdcg / xdcg_norm
    out[i, TOP1_RELEVANCE] = ranked_labels[base]
    out[i, MAX_RELEVANCE] = best

    retrieved_weight = 0.0
    for j in range(n):
        label = ranked_labels[base + j]
        if label > label_min:
            retrieved_weight += 2.0 ** (label + 1) - 1.0
    ideal_weight = 0.0
    for j in range(m):
        label = ideal_labels[ideal_base + j]
        if label > label_min:
            ideal_weight += 2.0 ** (label + 1) - 1.0
    out[i, FIDELITY] = retrieved_weight / ideal_weight if ideal_weight != 0.0 else np.nan


@parallel_jit(example=_example, python=numpy_document_retrieval_metrics, work=docret_work)
def document_retrieval_metrics(
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
    """Metrics for each evaluated query i (run query ``queries.run_query[i]``, qrels query ``queries.qrels_query[i]``; -1 = absent).

    ``ranked``: each run query's documents in rank order; ``ideal_lists``: each qrels query's
    labels, best first; ``judged_rows``: each qrels query's judged rows, repeated documents included.
    ``azure_gains``: ndcg_exp's gains as azure-ai-evaluation's, negative for a negative label (the
    drop-in), else a label below 0 has gain 0 (see the module docstring).

    ``log2_discounts[j] = log2(j + 2)``, ``xdcg_weights[j] = 0.6^j`` for j < k, and ``xdcg_norm`` is
    their sum: computed by the caller with Python's ``math`` so the floats match Azure's bit for bit.
    Returns float64 ``(n_queries, N_COLUMNS)``.
    """
    n_queries = queries.run_query.shape[0]
    out = np.zeros((n_queries, N_COLUMNS), dtype=np.float64)
    for i in prange(n_queries):
        # The parallel build's loop index is unsigned: as int64 it calls the same specialization as the serial one.
        _query_metrics(
            np.int64(i), queries, ranked, ideal_lists, judged_rows, k, label_min, azure_gains, log2_discounts, xdcg_weights,
            xdcg_norm, out,
        )  # fmt: skip
    return out


def discount_tables(k: int, length: int) -> tuple[np.ndarray, np.ndarray, float]:
    """``(log2(j + 2), 0.6^j)`` for j < min(k, ``length``) and the sum of 0.6^j over j < k, as Azure computes them.

    ``length`` is the longest list the kernel reads (ranked documents or judged ones): the tables
    stop there, so their size follows the data, not k. The sum stops where 0.6^j underflows to
    0.0 (:data:`XDCG_WEIGHTS_VANISH`): adding zeros changes no float, whether Python's ``sum``
    adds plainly or with compensation (3.12), so it is Azure's sum over all k terms.
    """
    weights = [math.pow(0.6, rank - 1) for rank in range(1, min(k, max(length, XDCG_WEIGHTS_VANISH)) + 1)]
    shown = min(k, length)
    log2_discounts = np.array([math.log2(rank + 1) for rank in range(1, shown + 1)], dtype=np.float64)
    return log2_discounts, np.array(weights[:shown], dtype=np.float64), float(sum(weights))
