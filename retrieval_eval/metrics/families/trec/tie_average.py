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

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ....errors import ConfigError
from ....kernels.core import tie_average as expected
from ....kernels.core.segments import count, count_so_far, divide_where, gather, running, segments, two_to
from ....kernels.trec.trec import log2_table
from ...names import Metric
from ...options import EvaluationOptions
from ...tie_average import TieAveraging, tied_positions
from .common import parameter, relevance_level

if TYPE_CHECKING:
    from ....data import Qrels
    from ....data.join import QueryAlignment, TiedRun



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


class _Expected:
    """What the formulas read, each computed once when first read: one evaluation's tied ranking and judgments."""

    def __init__(self, qrels: Qrels, tied: TiedRun, alignment: QueryAlignment, cutoffs: np.ndarray) -> None:
        self.positions, self.labels, self.judged = tied_positions(tied, alignment)
        self.n_queries = self.positions.n.shape[0]
        longest = max(int(self.positions.n.max(initial=0)), int(qrels.n_judged.max(initial=0)), 1)
        self.discounts = log2_table(longest)
        self.ideal = _Ideal(qrels, alignment.qrels_query, self.discounts)
        self.cutoffs = cutoffs
        self.every = np.broadcast_to(cutoffs, (self.n_queries, cutoffs.shape[0]))
        self.whole = self.positions.n[:, None]
        self._cache: dict[tuple, np.ndarray] = {}

    def cached(self, key: tuple, make: Callable[[], np.ndarray]) -> np.ndarray:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def column(self, metric: Metric) -> int:
        return int(np.searchsorted(self.cutoffs, metric.k))

    def relevant(self, metric: Metric) -> np.ndarray:
        rel = relevance_level(metric)
        return self.cached(("relevant", rel), lambda: self.judged & (self.labels >= rel))

    def num_rel(self, metric: Metric) -> np.ndarray:
        rel = relevance_level(metric)
        return self.cached(("num_rel", rel), lambda: self.ideal.num_rel(rel, self.n_queries))

    def at(self, key: str, metric: Metric, make: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``make(cutoffs)``'s column of ``metric``: at its k, or over the whole ranking when it has none."""
        if metric.k is None:
            return self.cached((key, relevance_level(metric), None), lambda: make(self.whole))[:, 0]
        return self.cached((key, relevance_level(metric)), lambda: make(self.every))[:, self.column(metric)]

    def hits(self, metric: Metric) -> np.ndarray:
        return self.at("hits", metric, lambda cutoffs: expected.top_counts(self.positions, self.relevant(metric), cutoffs))

    def gain_terms(self, burges: bool) -> np.ndarray:
        def make() -> np.ndarray:
            positive = self.judged & (self.labels > 0)
            gains = np.where(positive, self.labels, 0)
            values = np.where(positive, two_to(gains) - 1.0, 0.0) if burges else gains
            return expected.group_means(self.positions, values) / self.discounts[self.positions.rank]

        return self.cached(("gains", burges), make)


def _ndcg(burges: bool) -> Formula:
    def formula(e: _Expected, metric: Metric) -> np.ndarray:
        dcg = e.at(f"dcg{burges}", metric, lambda cutoffs: expected.prefix_sums(e.positions, e.gain_terms(burges), cutoffs))
        ideal = e.ideal.burges if burges else e.ideal.linear
        if metric.k is None:
            return divide_where(dcg, ideal[:, -1], e.ideal.linear[:, -1] > 0.0)
        j = e.column(metric)
        return divide_where(dcg, e.ideal.at(ideal, e.cutoffs)[:, j], e.ideal.at(e.ideal.linear, e.cutoffs)[:, j] > 0.0, dcg)

    return formula


def _map(e: _Expected, metric: Metric) -> np.ndarray:
    terms = e.cached(("ap", relevance_level(metric)), lambda: expected.expected_ap_terms(e.positions, e.relevant(metric)))
    ap = e.at("ap_sums", metric, lambda cutoffs: expected.prefix_sums(e.positions, terms, cutoffs))
    num_rel = e.num_rel(metric)
    if metric.k is None:
        retrieved = count(e.positions.query, e.relevant(metric), e.n_queries) > 0
        return divide_where(ap, num_rel.astype(np.float64), (num_rel > 0) & retrieved)
    return divide_where(ap, num_rel.astype(np.float64), num_rel > 0)


def _rprec(e: _Expected, metric: Metric) -> np.ndarray:
    num_rel = e.num_rel(metric)
    hits = expected.top_counts(e.positions, e.relevant(metric), num_rel[:, None])[:, 0]
    return divide_where(hits, num_rel.astype(np.float64), (num_rel > 0) & (np.minimum(e.positions.n, num_rel) > 0))


def _shown(e: _Expected, metric: Metric) -> np.ndarray:
    return np.minimum(metric.k, e.positions.n)


Formula = Callable[[_Expected, Metric], np.ndarray]
#: Each averaged definition, (name, has cutoff), and its expected value.
FORMULAS: dict[tuple[str, bool], Formula] = {
    ("ndcg", False): _ndcg(False), ("ndcg", True): _ndcg(False),
    ("ndcg_burges", False): _ndcg(True), ("ndcg_burges", True): _ndcg(True),
    ("map", False): _map, ("map", True): _map,
    ("recip_rank", False): lambda e, m: e.at("rr", m, lambda c: expected.expected_reciprocal_rank(e.positions, e.relevant(m), c)),
    ("recip_rank", True): lambda e, m: e.at("rr", m, lambda c: expected.expected_reciprocal_rank(e.positions, e.relevant(m), c)),
    ("rprec", False): _rprec,
    ("precision", True): lambda e, m: e.hits(m) / m.k,
    ("recall", True): lambda e, m: divide_where(e.hits(m), e.num_rel(m).astype(np.float64), e.num_rel(m) > 0),
    ("relative_precision", True): lambda e, m: divide_where(e.hits(m), np.minimum(m.k, e.num_rel(m)), e.num_rel(m) > 0),
    ("success", True): lambda e, m: e.at("success", m, lambda c: expected.expected_success(e.positions, e.relevant(m), c)),
    ("judged", True): lambda e, m: divide_where(
        expected.top_counts(e.positions, e.judged, np.full((e.n_queries, 1), m.k))[:, 0], _shown(e, m), _shown(e, m) > 0
    ),
    # Not judged: not listed, or a negative label (in the pool, unjudged).
    ("unjudged", True): lambda e, m: (
        _shown(e, m) - expected.top_counts(e.positions, e.judged & (e.labels >= 0), np.full((e.n_queries, 1), m.k))[:, 0]
    ) / m.k,
}


def _values(
    qrels: Qrels, tied: TiedRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> dict[Metric, np.ndarray]:
    """The expected value of each of ``metrics`` per evaluated query (see the module docstring)."""
    below = next((metric for metric in metrics if relevance_level(metric) < 0), None)
    if below is not None:
        raise ConfigError(f"{below}: a relevance level below 0 is not supported by the TREC measures")
    cutoffs = np.array(sorted({m.k for m in metrics if m.k is not None}), dtype=np.int64)
    inputs = _Expected(qrels, tied, alignment, cutoffs)
    return {metric: FORMULAS[(metric.name, metric.k is not None)](inputs, metric) for metric in metrics}


TREC_AVERAGING = TieAveraging(
    averaged=frozenset(FORMULAS),
    values=_values,
    order_free=frozenset(
        {(name, False) for name in ("set_precision", "set_recall", "set_f", "set_map", "set_relative_precision",
                                    "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "utility")}
    ),
    # ndcg with a gain map is computed by another pass: its expected value is not built here.
    accepts=lambda metric: not parameter(metric, "gains", ""),
)
