"""The TREC family: trec_eval's measures (and ranx's and ir_measures' few extras) with trec_eval's semantics.

Ranking is trec_eval's: score descending, equal scores by descending document id. A document
is relevant when its label is >= ``rel`` (trec_eval's ``-l``, default 1); labels <= 0 never
count as relevant, negative labels mark documents in the pool but unjudged (bpref and infAP
tell them apart). ``ndcg`` is trec_eval's nDCG with linear gain (the label), which ignores
``rel``; ``ndcg_burges`` has exponential gain 2^label - 1. Every measure is 0 where trec_eval's
is (no relevant document, nothing retrieved). Formulas: :mod:`retrieval_eval.kernels.trec`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..kernels import trec as kernel
from .definition import MetricDefinition, non_negative, unit_interval
from .family import Family
from .names import Metric
from .options import Conventions, EvaluationOptions

if TYPE_CHECKING:
    from ..data import JudgedRanks, Qrels, Run
    from ..data.join import QueryAlignment

FAMILY = "trec"
_REL = (("rel", "1"),)
#: trec_eval's 11-point average: interpolated precision at these recall levels.
ELEVEN_POINTS = tuple(level / 10 for level in range(11))


@dataclass(frozen=True, eq=False)
class TrecPass:
    """The output of one kernel pass at one relevance level (see :func:`retrieval_eval.kernels.trec.trec_measures`).

    ``scalars[:, c]``: the measures without a cutoff; ``at_k[:, c, j]``: the measures at
    ``cutoffs[j]``; ``iprec[:, v]``: interpolated precision at recall level ``levels[v]``.
    """

    scalars: np.ndarray
    at_k: np.ndarray
    iprec: np.ndarray
    cutoffs: np.ndarray
    levels: tuple[float, ...]

    def at(self, column: int, k: int) -> np.ndarray:
        return self.at_k[:, column, int(np.searchsorted(self.cutoffs, k))]

    def interpolated(self, level: float) -> np.ndarray:
        return self.iprec[:, self.levels.index(level)]


def _scalar(column: int) -> Callable[[TrecPass, Metric], np.ndarray]:
    return lambda output, metric: output.scalars[:, column]


def _at_k(column: int) -> Callable[[TrecPass, Metric], np.ndarray]:
    return lambda output, metric: output.at(column, metric.k)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (as trec_eval leaves the value)."""
    out = np.zeros_like(numerator)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _set_measure(formula: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> Callable[[TrecPass, Metric], np.ndarray]:
    """A set measure from the counts num_ret, num_rel and num_rel_ret (in that order)."""

    def extract(output: TrecPass, metric: Metric) -> np.ndarray:
        counts = output.scalars
        return formula(counts[:, kernel.NUM_RET], counts[:, kernel.NUM_REL], counts[:, kernel.NUM_REL_RET])

    return extract


def _set_f1(n: np.ndarray, rel: np.ndarray, hits: np.ndarray) -> np.ndarray:
    precision, recall = _ratio(hits, n), _ratio(hits, rel)
    # trec_eval: (beta + 1) P R / (beta P + R) with beta = 1, only when something relevant was retrieved.
    return _ratio((1.0 + 1.0) * precision * recall, 1.0 * precision + recall)


def _recall_level(metric: Metric) -> float:
    return float(dict(metric.params)["recall"])


def _eleven_point_average(output: TrecPass, metric: Metric) -> np.ndarray:
    # trec_eval adds the levels from the highest down, then divides.
    total = np.zeros(output.iprec.shape[0])
    for level in reversed(ELEVEN_POINTS):
        total += output.interpolated(level)
    return total / len(ELEVEN_POINTS)


def _measure(name: str, definition: str, *, cutoff: bool = False, rel: bool = True, **extra: Any) -> MetricDefinition:
    extra.setdefault("bounds", unit_interval)
    return MetricDefinition(
        name, FAMILY, definition, higher_is_better=True, cutoff=cutoff, params=_REL if rel else (), **extra
    )


DEFINITIONS = (
    _measure(
        "ndcg", "trec_eval's nDCG: sum_i g(l_i)/log2(i+1) over the ranking / the same over the judged labels "
        "sorted descending, linear gain g(l) = l for l > 0 (ir_measures nDCG, ranx ndcg). 0 without a positive label.",
        rel=False, aliases=("ndcg_cut",), trec_name="ndcg", extract=_scalar(kernel.NDCG),
    ),
    _measure(
        "ndcg", "trec_eval's ndcg_cut: nDCG with both sums cut at rank k, linear gain.",
        cutoff=True, rel=False, aliases=("ndcg_cut_{k}", "ndcg_cut.{k}"), trec_name="ndcg_cut_{k}",
        extract=_at_k(kernel.NDCG_AT),
    ),
    _measure(
        "ndcg_burges", "nDCG with exponential gain 2^l - 1 (Burges et al.; ranx ndcg_burges) and trec_eval's "
        "conventions (ties by document id, 0 without a positive label). Azure's variant is ndcg_exp@k.",
        rel=False, extract=_scalar(kernel.NDCG_BURGES),
    ),
    _measure(
        "ndcg_burges", "ndcg_burges with both sums cut at rank k.", cutoff=True, rel=False,
        extract=_at_k(kernel.NDCG_BURGES_AT),
    ),
    _measure(
        "map", "Average precision: sum over relevant retrieved documents of precision at their rank, / num_rel "
        "(trec_eval map; ir_measures AP).", aliases=("ap",), trec_name="map", extract=_scalar(kernel.MAP),
    ),
    _measure(
        "map", "Average precision over the top k, still divided by num_rel (trec_eval map_cut).",
        cutoff=True, aliases=("map_cut_{k}", "map_cut.{k}"), trec_name="map_cut_{k}", grows_with_k=True,
        extract=_at_k(kernel.MAP_AT),
    ),
    _measure(
        "precision", "Relevant documents in the top k / k (trec_eval P; ir_measures P).",
        cutoff=True, aliases=("p", "p_{k}", "p.{k}"), trec_name="P_{k}", extract=_at_k(kernel.PRECISION_AT),
    ),
    _measure(
        "recall", "Relevant documents in the top k / num_rel (trec_eval recall; ir_measures R).",
        cutoff=True, aliases=("r", "recall_{k}", "recall.{k}"), trec_name="recall_{k}", grows_with_k=True,
        extract=_at_k(kernel.RECALL_AT),
    ),
    _measure(
        "recip_rank", "1 / rank of the first relevant document (trec_eval recip_rank; ir_measures RR; ranx mrr).",
        aliases=("mrr", "rr"), trec_name="recip_rank", extract=_scalar(kernel.RECIP_RANK),
    ),
    _measure(
        "recip_rank", "recip_rank, 0 when the first relevant document ranks below k (ranx mrr@k).", cutoff=True,
        grows_with_k=True, extract=_at_k(kernel.RECIP_RANK_AT),
    ),
    _measure(
        "rprec", "Relevant documents in the top num_rel / num_rel (trec_eval Rprec; ranx r-precision).",
        aliases=("r-precision",), trec_name="Rprec", extract=_scalar(kernel.RPREC),
    ),
    _measure(
        "success", "1 when a relevant document is in the top k, else 0 (trec_eval success; ranx hit_rate).",
        cutoff=True, aliases=("hit_rate", "success_{k}", "success.{k}"), trec_name="success_{k}", grows_with_k=True,
        extract=_at_k(kernel.SUCCESS_AT),
    ),
    _measure(
        "bpref", "Binary preference: sum over relevant retrieved r of 1 - min(judged non-relevant above r, R) / "
        "min(N, R), / R; R = num_rel, N = judged non-relevant (label 0..rel-1); unjudged documents are skipped.",
        trec_name="bpref", extract=_scalar(kernel.BPREF),
    ),
    _measure(
        "infap", "Inferred AP (Yilmaz and Aslam) for sampled judgments, exactly as trec_eval's infAP.",
        trec_name="infAP", extract=_scalar(kernel.INFAP),
    ),
    _measure(
        "judged", "Documents with a judgment (any label) in the top min(k, n) / min(k, n) (ir_measures Judged).",
        cutoff=True, rel=False, extract=_at_k(kernel.JUDGED_AT),
    ),
    _measure("f1", "2 P R / (P + R) of precision@k and recall@k (ranx f1).", cutoff=True, extract=_at_k(kernel.F1_AT)),
    MetricDefinition(
        "iprec_at_recall", FAMILY,
        "Interpolated precision at a recall level: the best precision at or after the c-th relevant document, "
        "c = recall * num_rel rounded half up (trec_eval 10; version 9 and pytrec_eval add 0.9); 0 when fewer were "
        "retrieved (trec_eval iprec_at_recall; ir_measures IPrec).",
        higher_is_better=True, bounds=unit_interval, params=(("recall", None),) + _REL,
        aliases=("iprec_at_recall_{recall}", "iprec@{recall}"), trec_name="iprec_at_recall_{recall}",
        extract=lambda output, metric: output.interpolated(_recall_level(metric)),
        requires=lambda metric: (_recall_level(metric),),
    ),
    _measure(
        "iprec_11pt", "Mean of iprec_at_recall at the recall levels 0.0, 0.1, ..., 1.0 (trec_eval 11pt_avg).",
        aliases=("11pt_avg",), trec_name="11pt_avg", extract=_eleven_point_average,
        requires=lambda metric: ELEVEN_POINTS,
    ),
    _measure(
        "gm_map", "Average precision per query, summarized by the geometric mean exp(mean(log(max(AP, 1e-5)))) "
        "(trec_eval gm_map: rewards improving the hardest queries).", trec_name="gm_map", aggregate="geometric",
        extract=_scalar(kernel.MAP),
    ),
    _measure(
        "gm_bpref", "bpref per query, summarized by the geometric mean exp(mean(log(max(bpref, 1e-5)))) "
        "(trec_eval gm_bpref).", trec_name="gm_bpref", aggregate="geometric", extract=_scalar(kernel.BPREF),
    ),
    _measure(
        "relative_precision", "Relevant documents in the top k / min(k, num_rel): precision that can reach 1 "
        "(trec_eval relative_P).", cutoff=True, aliases=("relative_p", "relative_p_{k}", "relative_p.{k}"),
        trec_name="relative_P_{k}", extract=_at_k(kernel.RELATIVE_PRECISION_AT),
    ),
    _measure(
        "set_precision", "num_rel_ret / num_ret: precision of the whole retrieved set (trec_eval set_P).",
        aliases=("set_p",), trec_name="set_P", ranking=False,
        extract=_set_measure(lambda n, rel, hits: _ratio(hits, n)),
    ),
    _measure(
        "set_recall", "num_rel_ret / num_rel: recall of the whole retrieved set (trec_eval set_recall).",
        trec_name="set_recall", ranking=False,
        extract=_set_measure(lambda n, rel, hits: _ratio(hits, rel)),
    ),
    _measure(
        "set_f1", "2 P R / (P + R) of set_precision and set_recall (trec_eval set_F, beta 1).",
        aliases=("set_f",), trec_name="set_F", ranking=False, extract=_set_measure(_set_f1),
    ),
    _measure(
        "set_map", "set_precision * set_recall = num_rel_ret^2 / (num_ret num_rel) (trec_eval set_map).",
        trec_name="set_map", ranking=False,
        extract=_set_measure(lambda n, rel, hits: _ratio(hits * hits, n * rel)),
    ),
    _measure(
        "set_relative_precision", "num_rel_ret / min(num_ret, num_rel) (trec_eval set_relative_P).",
        aliases=("set_relative_p",), trec_name="set_relative_P", ranking=False,
        extract=_set_measure(lambda n, rel, hits: _ratio(hits, np.minimum(n, rel))),
    ),
    _measure(
        "num_ret", "Retrieved documents (after max_docs) (count).", rel=False, integer=True, bounds=non_negative,
        aliases=("numret",), trec_name="num_ret", aggregate="sum", extract=_scalar(kernel.NUM_RET),
    ),
    _measure(
        "num_rel", "Judged documents with label >= rel (count).", integer=True, bounds=non_negative,
        aliases=("numrel",), trec_name="num_rel", aggregate="sum", extract=_scalar(kernel.NUM_REL),
    ),
    _measure(
        "num_rel_ret", "Retrieved documents with label >= rel (count).", integer=True, bounds=non_negative,
        aliases=("numrelret",), trec_name="num_rel_ret", aggregate="sum",
        extract=_scalar(kernel.NUM_REL_RET),
    ),
    _measure(
        "num_nonrel_judged_ret", "Retrieved documents judged non-relevant, 0 <= label < rel (count).", integer=True,
        bounds=non_negative, trec_name="num_nonrel_judged_ret", aggregate="sum",
        extract=_scalar(kernel.NUM_NONREL_JUDGED_RET),
    ),
)



def relevance_level(metric: Metric) -> int:
    """The ``rel`` of a metric (1 unless its name says otherwise)."""
    return int(dict(metric.params).get("rel", "1"))


def _join(qrels: Qrels, run: Run, duplicates: str, ties: str) -> JudgedRanks:
    from ..data import rank_judged

    return rank_judged(qrels, run, duplicates=duplicates, ties=ties)


def _passes(
    qrels: Qrels, ranked: JudgedRanks, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> Iterator[tuple[TrecPass, list[Metric]]]:
    """One kernel pass per distinct relevance level, every measure and cutoff of that level at once."""
    depth = np.iinfo(np.int64).max if options.max_docs is None else options.max_docs
    longest = max(int(ranked.n_ranked.max(initial=0)), int(qrels.n_judged.max(initial=0)))
    discounts = kernel.log2_table(longest)
    cutoffs = np.array(sorted({m.k for m in metrics if m.k is not None}), dtype=np.int64)
    for rel in sorted({relevance_level(m) for m in metrics}):
        at_level = [m for m in metrics if relevance_level(m) == rel]
        levels = tuple(sorted({level for m in at_level for level in TREC.definition(m).requires(m)}))
        scalars, at_k, iprec = kernel.trec_measures(
            alignment.run_query,
            ranked.offsets,
            ranked.n_found,
            ranked.ranks,
            ranked.labels,
            ranked.n_ranked,
            alignment.qrels_query,
            qrels.queries.offsets,
            qrels.n_judged,
            qrels.ideal_labels,
            rel,
            depth,
            cutoffs,
            np.array(levels, dtype=np.float64),
            discounts,
        )
        yield TrecPass(scalars, at_k, iprec, cutoffs, levels), at_level


#: trec_eval orders equal scores by descending document id, averages over the queries both
#: judged and retrieved, and refuses a repeated document; its measures need only where the
#: judged documents rank.
TREC = Family(
    FAMILY, DEFINITIONS, ties="docid", conventions=Conventions(query_set="both", duplicates="raise"),
    join=_join, passes=_passes,
)
