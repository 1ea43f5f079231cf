"""The document-retrieval measures under ``ties="average"``: their expected values over the orderings of tied scores.

Azure's definitions (:mod:`retrieval_eval.metrics.document_retrieval`), each rank holding the mean
gain of its tie group (:mod:`retrieval_eval.kernels.core.tie_average`): ndcg_exp@k =
E[DCG@k] / IDCG@k with gain 2^max(l, 0) - 1 (0 when no retrieved document has a nonzero label,
an order-free condition), holes@k = E[unjudged among the top min(k, n)] / k. Without ties each
equals the ordinary value bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..kernels.core import docret
from ..kernels.core import tie_average as expected
from ..kernels.core.segments import count, divide_where, gather, running, segments, two_to
from .names import Metric
from .options import EvaluationOptions
from .tie_average import TieAveraging, tied_positions

if TYPE_CHECKING:
    from ..data import Qrels
    from ..data.join import QueryAlignment, TiedRun


def _values(
    qrels: Qrels, tied: TiedRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> dict[Metric, np.ndarray]:
    """The expected value of each of ``metrics`` (ndcg_exp@k, holes@k) per evaluated query."""
    from .document_retrieval import check_labels

    check_labels(qrels, options.labels)
    positions, labels, judged = tied_positions(tied, alignment)
    n_queries = positions.n.shape[0]
    longest = max(int(positions.n.max(initial=0)), int(qrels.n_judged.max(initial=0)))
    relevant = count(positions.query, labels != 0, n_queries) > 0
    columns: dict[Metric, np.ndarray] = {}
    for metric in metrics:
        cutoff = np.full((n_queries, 1), metric.k, dtype=np.int64)
        if metric.name == "holes":
            columns[metric] = expected.top_counts(positions, ~judged, cutoff)[:, 0] / metric.k
            continue
        discounts = docret.discount_tables(metric.k, longest)[0]
        shown = positions.rank < metric.k
        terms = np.zeros(positions.rank.shape[0])
        means = expected.group_means(positions, two_to(np.maximum(labels, 0)) - 1.0)
        terms[shown] = means[shown] / discounts[positions.rank[shown]]
        dcg = expected.prefix_sums(positions, terms, cutoff)[:, 0]
        m = gather(qrels.n_judged, alignment.qrels_query, 0)
        group, i, starts = segments(gather(qrels.queries.offsets, alignment.qrels_query, 0), m)
        top = i < np.minimum(metric.k, m)[group]
        ideal = np.maximum(qrels.ideal_labels[starts + i][top], 0)
        idcg = running(group[top], i[top], (two_to(ideal) - 1.0) / discounts[i[top]], n_queries, int(m.max(initial=0)))[:, -1]
        columns[metric] = np.where(relevant, divide_where(dcg, idcg, idcg != 0.0), 0.0)
    return columns


DOCUMENT_RETRIEVAL_AVERAGING = TieAveraging(
    averaged=frozenset({("ndcg_exp", True), ("holes", True)}),
    values=_values,
    order_free=frozenset({("holes", False), ("holes_ratio", False), ("fidelity", False),
                          ("total_retrieved_documents", False), ("total_ground_truth_documents", False)}),
)
