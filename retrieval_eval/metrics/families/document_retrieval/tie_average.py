"""The document-retrieval measures under ``ties="average"``: their expected values over the orderings of tied scores.

Azure's definitions (:mod:`retrieval_eval.metrics.families.document_retrieval`), each rank holding the mean
gain of its tie group (:mod:`retrieval_eval.kernels.core.tie_average`): ndcg_exp@k =
E[DCG@k] / IDCG@k with gain 2^max(l, 0) - 1 (0 when no retrieved document has a nonzero label,
an order-free condition), holes@k = E[unjudged among the top min(k, n)] / k. Without ties each
equals the ordinary value bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ....kernels.core import docret
from ....kernels.core import tie_average as expected
from ....kernels.core.segments import count, divide_where, gather, running, segments, two_to
from ...names import Metric
from ...options import EvaluationOptions
from ...tie_average import TieAveraging, tied_positions

if TYPE_CHECKING:
    from ....data import Qrels
    from ....data.join import QueryAlignment, TiedRun


def _holes(qrels: Qrels, alignment: QueryAlignment, tied: tuple, metric: Metric) -> np.ndarray:
    positions, _, judged = tied
    cutoff = np.full((positions.n.shape[0], 1), metric.k, dtype=np.int64)
    return expected.top_counts(positions, ~judged, cutoff)[:, 0] / metric.k


def _ndcg_exp(qrels: Qrels, alignment: QueryAlignment, tied: tuple, metric: Metric) -> np.ndarray:
    positions, labels, _ = tied
    n_queries = positions.n.shape[0]
    longest = max(int(positions.n.max(initial=0)), int(qrels.n_judged.max(initial=0)))
    discounts = docret.discount_tables(metric.k, longest)[0]
    shown = positions.rank < metric.k
    means = expected.group_means(positions, two_to(np.maximum(labels, 0)) - 1.0)
    terms = np.zeros(positions.rank.shape[0])
    terms[shown] = means[shown] / discounts[positions.rank[shown]]
    dcg = expected.prefix_sums(positions, terms, np.full((n_queries, 1), metric.k, dtype=np.int64))[:, 0]
    m = gather(qrels.n_judged, alignment.qrels_query, 0)
    group, i, starts = segments(gather(qrels.queries.offsets, alignment.qrels_query, 0), m)
    top = i < np.minimum(metric.k, m)[group]
    ideal = np.maximum(qrels.ideal_labels[starts + i][top], 0)
    idcg = running(group[top], i[top], (two_to(ideal) - 1.0) / discounts[i[top]], n_queries, int(m.max(initial=0)))[:, -1]
    # Azure's 0 when no retrieved document has a nonzero label: an order-free condition.
    relevant = count(positions.query, labels != 0, n_queries) > 0
    return np.where(relevant, divide_where(dcg, idcg, idcg != 0.0), 0.0)


#: Each averaged definition, (name, has cutoff), and its expected value.
FORMULAS = {("ndcg_exp", True): _ndcg_exp, ("holes", True): _holes}


def _values(
    qrels: Qrels, tied: TiedRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> dict[Metric, np.ndarray]:
    """The expected value of each of ``metrics`` (ndcg_exp@k, holes@k) per evaluated query."""
    from . import check_labels

    check_labels(qrels, options.labels)
    ranked = tied_positions(tied, alignment)
    return {metric: FORMULAS[(metric.name, True)](qrels, alignment, ranked, metric) for metric in metrics}


DOCUMENT_RETRIEVAL_AVERAGING = TieAveraging(
    averaged=frozenset(FORMULAS),
    values=_values,
    order_free=frozenset({("holes", False), ("holes_ratio", False), ("fidelity", False),
                          ("total_retrieved_documents", False), ("total_ground_truth_documents", False)}),
)
