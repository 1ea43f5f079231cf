"""The TREC measures under ``ties="average"``: their expected values over the orderings of tied scores.

With trec_eval's definitions (:mod:`retrieval_eval.kernels.trec.trec`): relevant means judged
with label >= rel, the gain of ndcg is the label (ndcg_burges: 2^l - 1) for l > 0, the ideal
DCG comes from the judged labels sorted descending, and every measure is 0 where trec_eval's is.
Then, with E[hits@c] the expected relevant documents in the top min(c, n) (see
:mod:`retrieval_eval.kernels.core.tie_average` for each closed form):
precision@k = E[hits@k] / k, recall@k = E[hits@k] / R, rprec = E[hits@R] / R,
relative_precision@k = E[hits@k] / min(k, R), map(@k) = E[AP sum (over the top k)] / R,
ndcg(@k) = E[DCG(@k)] / IDCG(@k), recip_rank(@k) = E[1 / rank of the first relevant],
success@k = P(a relevant document in the top k), judged@k and unjudged@k the expected counts
over their denominators. Without ties each equals the ordinary value bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from ..kernels.core import tie_average as expected
from ..kernels.core.segments import count, count_so_far, divide_where, gather, running, segments, two_to
from ..kernels.trec.trec import log2_table
from .names import Metric
from .options import EvaluationOptions
from .tie_average import TieAveraging, tied_positions
from .trec_common import parameter, relevance_level

if TYPE_CHECKING:
    from ..data import Qrels
    from ..data.join import QueryAlignment, TiedRun

_SCALARS = ("ndcg", "ndcg_burges", "map", "recip_rank", "rprec")
_AT_K = ("ndcg", "ndcg_burges", "map", "precision", "recall", "recip_rank", "success", "judged", "unjudged",
         "relative_precision")


class _Ideal:
    """Each evaluated query's ideal DCG (linear and exponential gain) at any depth, as trec_eval sums it."""

    def __init__(self, qrels: Qrels, qrels_query: np.ndarray, discounts: np.ndarray) -> None:
        n_queries = qrels_query.shape[0]
        group, j, starts = segments(gather(qrels.queries.offsets, qrels_query, 0), gather(qrels.n_judged, qrels_query, 0))
        labels = qrels.ideal_labels[starts + j]
        self.labels, self.group = labels, group
        kept = count_so_far(labels <= 0, j) == 0  # the positive labels, before the first other one
        group, j, labels = group[kept], j[kept], labels[kept]
        self.n_positive = count(group, np.ones(group.shape[0], dtype=np.bool_), n_queries)
        width = int(j.max(initial=-1)) + 1
        self.linear = running(group, j, labels / discounts[j], n_queries, width)
        self.burges = running(group, j, (two_to(labels) - 1.0) / discounts[j], n_queries, width)

    def num_rel(self, rel: int, n_queries: int) -> np.ndarray:
        return count(self.group, self.labels >= rel, n_queries)

    def at(self, sums: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
        rows = np.arange(sums.shape[0])[:, None]
        return sums[rows, np.minimum(cutoffs[None, :], self.n_positive[:, None])]


def _values(
    qrels: Qrels, tied: TiedRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> dict[Metric, np.ndarray]:
    """The expected value of each of ``metrics`` per evaluated query (see the module docstring)."""
    below = next((metric for metric in metrics if relevance_level(metric) < 0), None)
    if below is not None:
        raise ConfigError(f"{below}: a relevance level below 0 is not supported by the TREC measures")
    positions, labels, judged = tied_positions(tied, alignment)
    n_queries = positions.n.shape[0]
    longest = max(int(positions.n.max(initial=0)), int(qrels.n_judged.max(initial=0)), 1)
    discounts = log2_table(longest)
    ideal = _Ideal(qrels, alignment.qrels_query, discounts)
    cutoffs = np.array(sorted({m.k for m in metrics if m.k is not None}), dtype=np.int64)
    every = np.broadcast_to(cutoffs, (n_queries, cutoffs.shape[0]))
    whole = positions.n[:, None]
    columns: dict[Metric, np.ndarray] = {}

    positive = judged & (labels > 0)
    gains = np.where(positive, labels, 0)
    dcg_terms = expected.group_means(positions, gains) / discounts[positions.rank]
    burges_terms = expected.group_means(positions, np.where(positive, two_to(gains) - 1.0, 0.0)) / discounts[positions.rank]
    ideal_at, ideal_sum = ideal.at(ideal.linear, cutoffs), ideal.linear[:, -1]
    for terms, ideal_sums, name in ((dcg_terms, ideal.linear, "ndcg"), (burges_terms, ideal.burges, "ndcg_burges")):
        wanted = [m for m in metrics if m.name == name]
        if not wanted:
            continue
        dcg_at = expected.prefix_sums(positions, terms, every)
        dcg = expected.prefix_sums(positions, terms, whole)[:, 0]
        for metric in wanted:
            if metric.k is None:
                columns[metric] = divide_where(dcg, ideal_sums[:, -1], ideal_sum > 0.0)
            else:
                j = int(np.searchsorted(cutoffs, metric.k))
                columns[metric] = divide_where(dcg_at[:, j], ideal.at(ideal_sums, cutoffs)[:, j], ideal_at[:, j] > 0.0,
                                               dcg_at[:, j])

    counted = judged & (labels >= 0)
    judged_at = expected.top_counts(positions, judged, every) if any(m.name == "judged" for m in metrics) else None
    counted_at = expected.top_counts(positions, counted, every) if any(m.name == "unjudged" for m in metrics) else None
    shown = np.minimum(every, whole)
    for rel in sorted({relevance_level(m) for m in metrics if m.name not in ("ndcg", "ndcg_burges", "judged", "unjudged")}):
        at_level = [m for m in metrics if relevance_level(m) == rel and m.name not in ("ndcg", "ndcg_burges")]
        relevant = judged & (labels >= rel)
        num_rel = ideal.num_rel(rel, n_queries)
        num_rel_f, has_rel = num_rel.astype(np.float64), num_rel > 0
        names = {m.name for m in at_level}
        hits_at = expected.top_counts(positions, relevant, every)
        if names & {"map"}:
            ap_terms = expected.expected_ap_terms(positions, relevant)
            ap_at = expected.prefix_sums(positions, ap_terms, every)
            ap = expected.prefix_sums(positions, ap_terms, whole)[:, 0]
            rel_total = count(positions.query, relevant, n_queries)
        if names & {"recip_rank"}:
            rr_at = expected.expected_reciprocal_rank(positions, relevant, every)
            rr = expected.expected_reciprocal_rank(positions, relevant, whole)[:, 0]
        success_at = expected.expected_success(positions, relevant, every) if "success" in names else None
        for metric in at_level:
            j = int(np.searchsorted(cutoffs, metric.k)) if metric.k is not None else None
            name = metric.name
            if name == "map":
                columns[metric] = (divide_where(ap, num_rel_f, has_rel & (rel_total > 0)) if j is None
                                   else divide_where(ap_at[:, j], num_rel_f, has_rel))
            elif name == "recip_rank":
                columns[metric] = rr if j is None else rr_at[:, j]
            elif name == "rprec":
                hits = expected.top_counts(positions, relevant, num_rel[:, None])[:, 0]
                columns[metric] = divide_where(hits, num_rel_f, has_rel & (np.minimum(positions.n, num_rel) > 0))
            elif name == "precision":
                columns[metric] = hits_at[:, j] / metric.k
            elif name == "recall":
                columns[metric] = divide_where(hits_at[:, j], num_rel_f, has_rel)
            elif name == "relative_precision":
                columns[metric] = divide_where(hits_at[:, j], np.minimum(metric.k, num_rel), has_rel)
            elif name == "success":
                columns[metric] = success_at[:, j]
    for metric in metrics:
        j = int(np.searchsorted(cutoffs, metric.k)) if metric.k is not None else None
        if metric.name == "judged":
            columns[metric] = divide_where(judged_at[:, j], shown[:, j], shown[:, j] > 0)
        elif metric.name == "unjudged":
            columns[metric] = (shown[:, j] - counted_at[:, j]) / metric.k
    return columns


TREC_AVERAGING = TieAveraging(
    averaged=frozenset({(name, False) for name in _SCALARS} | {(name, True) for name in _AT_K}),
    values=_values,
    order_free=frozenset(
        {(name, False) for name in ("set_precision", "set_recall", "set_f", "set_map", "set_relative_precision",
                                    "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "utility")}
    ),
    # ndcg with a gain map is computed by another pass: its expected value is not built here.
    accepts=lambda metric: not parameter(metric, "gains", ""),
)
