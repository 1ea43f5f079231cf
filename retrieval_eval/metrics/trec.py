"""The TREC family: trec_eval's measures (and ranx's and ir_measures' few extras) with trec_eval's semantics.

Ranking is trec_eval's: score descending, equal scores by descending document id. A document
is relevant when its label is >= ``rel`` (trec_eval's ``-l``, default 1); labels <= 0 never
count as relevant, negative labels mark documents in the pool but unjudged (bpref and infAP
tell them apart). ``ndcg`` is trec_eval's nDCG with linear gain (the label), which ignores
``rel``; ``ndcg_burges`` has exponential gain 2^label - 1. Every measure is 0 where trec_eval's
is (no relevant document, nothing retrieved). Formulas: :mod:`retrieval_eval.kernels.trec`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..data import JudgedRanks, Qrels, rank_judged
from ..data.join import QueryAlignment
from ..kernels import trec as kernel
from .definition import MetricDefinition
from .names import Metric

if TYPE_CHECKING:
    from .families import FamilyOptions

FAMILY = "trec"
#: trec_eval orders equal scores by descending document id.
TIES = "docid"
#: The measures need only where the judged documents rank.
JOIN = rank_judged

_REL = (("rel", "1"),)


def _unit(label_min: int, label_max: int) -> tuple[float, float]:
    return (0.0, 1.0)


def _count(label_min: int, label_max: int) -> tuple[float, float]:
    return (0.0, math.inf)


def _measure(name: str, definition: str, *, cutoff: bool = False, rel: bool = True, **extra) -> MetricDefinition:
    extra.setdefault("bounds", _unit)
    return MetricDefinition(
        name, FAMILY, definition, higher_is_better=True, cutoff=cutoff, params=_REL if rel else (), **extra
    )


DEFINITIONS = (
    _measure(
        "ndcg", "trec_eval's nDCG: sum_i g(l_i)/log2(i+1) over the ranking / the same over the judged labels "
        "sorted descending, linear gain g(l) = l for l > 0 (ir_measures nDCG, ranx ndcg). 0 without a positive label.",
        rel=False, aliases=("ndcg_cut",), trec_name="ndcg",
    ),
    _measure(
        "ndcg", "trec_eval's ndcg_cut: nDCG with both sums cut at rank k, linear gain.",
        cutoff=True, rel=False, aliases=("ndcg_cut_{k}", "ndcg_cut.{k}"), trec_name="ndcg_cut_{k}",
    ),
    _measure(
        "ndcg_burges", "nDCG with exponential gain 2^l - 1 (Burges et al.; ranx ndcg_burges) and trec_eval's "
        "conventions (ties by document id, 0 without a positive label). Azure's variant is ndcg_exp@k.",
        rel=False,
    ),
    _measure("ndcg_burges", "ndcg_burges with both sums cut at rank k.", cutoff=True, rel=False),
    _measure(
        "map", "Average precision: sum over relevant retrieved documents of precision at their rank, / num_rel "
        "(trec_eval map; ir_measures AP).", aliases=("ap",), trec_name="map",
    ),
    _measure(
        "map", "Average precision over the top k, still divided by num_rel (trec_eval map_cut).",
        cutoff=True, aliases=("map_cut_{k}", "map_cut.{k}"), trec_name="map_cut_{k}", grows_with_k=True,
    ),
    _measure(
        "precision", "Relevant documents in the top k / k (trec_eval P; ir_measures P).",
        cutoff=True, aliases=("p", "p_{k}", "p.{k}"), trec_name="P_{k}",
    ),
    _measure(
        "recall", "Relevant documents in the top k / num_rel (trec_eval recall; ir_measures R).",
        cutoff=True, aliases=("r", "recall_{k}", "recall.{k}"), trec_name="recall_{k}", grows_with_k=True,
    ),
    _measure(
        "recip_rank", "1 / rank of the first relevant document (trec_eval recip_rank; ir_measures RR; ranx mrr).",
        aliases=("mrr", "rr"), trec_name="recip_rank",
    ),
    _measure("recip_rank", "recip_rank, 0 when the first relevant document ranks below k (ranx mrr@k).", cutoff=True,
             grows_with_k=True),
    _measure(
        "rprec", "Relevant documents in the top num_rel / num_rel (trec_eval Rprec; ranx r-precision).",
        aliases=("r-precision",), trec_name="Rprec",
    ),
    _measure(
        "success", "1 when a relevant document is in the top k, else 0 (trec_eval success; ranx hit_rate).",
        cutoff=True, aliases=("hit_rate", "success_{k}", "success.{k}"), trec_name="success_{k}", grows_with_k=True,
    ),
    _measure(
        "bpref", "Binary preference: sum over relevant retrieved r of 1 - min(judged non-relevant above r, R) / "
        "min(N, R), / R; R = num_rel, N = judged non-relevant (label 0..rel-1); unjudged documents are skipped.",
        trec_name="bpref",
    ),
    _measure(
        "infap", "Inferred AP (Yilmaz and Aslam) for sampled judgments, exactly as trec_eval's infAP.",
        trec_name="infAP",
    ),
    _measure(
        "judged", "Documents with a judgment (any label) in the top min(k, n) / min(k, n) (ir_measures Judged).",
        cutoff=True, rel=False,
    ),
    _measure("f1", "2 P R / (P + R) of precision@k and recall@k (ranx f1).", cutoff=True),
    MetricDefinition(
        "iprec_at_recall", FAMILY,
        "Interpolated precision at a recall level: the best precision at or after the c-th relevant document, "
        "c = recall * num_rel rounded half up (trec_eval 10; version 9 and pytrec_eval add 0.9); 0 when fewer were "
        "retrieved (trec_eval iprec_at_recall; ir_measures IPrec).",
        higher_is_better=True, bounds=_unit, params=(("recall", None),) + _REL,
        aliases=("iprec_at_recall_{recall}", "iprec@{recall}"), trec_name="iprec_at_recall_{recall}",
    ),
    _measure(
        "iprec_11pt", "Mean of iprec_at_recall at the recall levels 0.0, 0.1, ..., 1.0 (trec_eval 11pt_avg).",
        aliases=("11pt_avg",), trec_name="11pt_avg",
    ),
    _measure(
        "gm_map", "Average precision per query, summarized by the geometric mean exp(mean(log(max(AP, 1e-5)))) "
        "(trec_eval gm_map: rewards improving the hardest queries).", trec_name="gm_map", geometric=True,
    ),
    _measure(
        "gm_bpref", "bpref per query, summarized by the geometric mean exp(mean(log(max(bpref, 1e-5)))) "
        "(trec_eval gm_bpref).", trec_name="gm_bpref", geometric=True,
    ),
    _measure(
        "relative_precision", "Relevant documents in the top k / min(k, num_rel): precision that can reach 1 "
        "(trec_eval relative_P).", cutoff=True, aliases=("relative_p", "relative_p_{k}", "relative_p.{k}"),
        trec_name="relative_P_{k}",
    ),
    _measure(
        "set_precision", "num_rel_ret / num_ret: precision of the whole retrieved set (trec_eval set_P).",
        aliases=("set_p",), trec_name="set_P", ranking=False,
    ),
    _measure(
        "set_recall", "num_rel_ret / num_rel: recall of the whole retrieved set (trec_eval set_recall).",
        trec_name="set_recall", ranking=False,
    ),
    _measure(
        "set_f1", "2 P R / (P + R) of set_precision and set_recall (trec_eval set_F, beta 1).",
        aliases=("set_f",), trec_name="set_F", ranking=False,
    ),
    _measure(
        "set_map", "set_precision * set_recall = num_rel_ret^2 / (num_ret num_rel) (trec_eval set_map).",
        trec_name="set_map", ranking=False,
    ),
    _measure(
        "set_relative_precision", "num_rel_ret / min(num_ret, num_rel) (trec_eval set_relative_P).",
        aliases=("set_relative_p",), trec_name="set_relative_P", ranking=False,
    ),
    _measure(
        "num_ret", "Retrieved documents (after max_docs) (count).", rel=False, integer=True, bounds=_count,
        aliases=("numret",), trec_name="num_ret", summed=True,
    ),
    _measure(
        "num_rel", "Judged documents with label >= rel (count).", integer=True, bounds=_count,
        aliases=("numrel",), trec_name="num_rel", summed=True,
    ),
    _measure(
        "num_rel_ret", "Retrieved documents with label >= rel (count).", integer=True, bounds=_count,
        aliases=("numrelret",), trec_name="num_rel_ret", summed=True,
    ),
    _measure(
        "num_nonrel_judged_ret", "Retrieved documents judged non-relevant, 0 <= label < rel (count).", integer=True,
        bounds=_count, trec_name="num_nonrel_judged_ret", summed=True,
    ),
)

_SCALARS = {
    "ndcg": kernel.NDCG,
    "ndcg_burges": kernel.NDCG_BURGES,
    "map": kernel.MAP,
    "recip_rank": kernel.RECIP_RANK,
    "rprec": kernel.RPREC,
    "bpref": kernel.BPREF,
    "infap": kernel.INFAP,
    "num_ret": kernel.NUM_RET,
    "num_rel": kernel.NUM_REL,
    "num_rel_ret": kernel.NUM_REL_RET,
    "num_nonrel_judged_ret": kernel.NUM_NONREL_JUDGED_RET,
    "gm_map": kernel.MAP,
    "gm_bpref": kernel.BPREF,
}
#: trec_eval's 11-point average: interpolated precision at these recall levels.
ELEVEN_POINTS = tuple(level / 10 for level in range(11))
_AT_K = {
    "ndcg": kernel.NDCG_AT,
    "ndcg_burges": kernel.NDCG_BURGES_AT,
    "map": kernel.MAP_AT,
    "precision": kernel.PRECISION_AT,
    "recall": kernel.RECALL_AT,
    "recip_rank": kernel.RECIP_RANK_AT,
    "success": kernel.SUCCESS_AT,
    "judged": kernel.JUDGED_AT,
    "f1": kernel.F1_AT,
    "relative_precision": kernel.RELATIVE_PRECISION_AT,
}


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (as trec_eval leaves the value)."""
    out = np.zeros_like(numerator)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _set_f1(n: np.ndarray, rel: np.ndarray, hits: np.ndarray) -> np.ndarray:
    precision, recall = _ratio(hits, n), _ratio(hits, rel)
    # trec_eval: (beta + 1) P R / (beta P + R) with beta = 1, only when something relevant was retrieved.
    return _ratio((1.0 + 1.0) * precision * recall, 1.0 * precision + recall)


#: The set measures, from the counts num_ret, num_rel and num_rel_ret (in that order).
_SET_MEASURES = {
    "set_precision": lambda n, rel, hits: _ratio(hits, n),
    "set_recall": lambda n, rel, hits: _ratio(hits, rel),
    "set_f1": _set_f1,
    "set_map": lambda n, rel, hits: _ratio(hits * hits, n * rel),
    "set_relative_precision": lambda n, rel, hits: _ratio(hits, np.minimum(n, rel)),
}


def relevance_level(metric: Metric) -> int:
    """The ``rel`` of a metric (1 unless its name says otherwise)."""
    return int(dict(metric.params).get("rel", "1"))


def _recall_levels(metrics: Sequence[Metric]) -> list[float]:
    """The recall levels the metrics need interpolated precision at."""
    levels = {float(dict(m.params)["recall"]) for m in metrics if m.name == "iprec_at_recall"}
    if any(m.name == "iprec_11pt" for m in metrics):
        levels.update(ELEVEN_POINTS)
    return sorted(levels)


def compute(
    qrels: Qrels, ranked: JudgedRanks, alignment: QueryAlignment, metrics: Sequence[Metric], options: FamilyOptions
) -> dict[Metric, np.ndarray]:
    """Per-query values of ``metrics`` (all of this family): one kernel pass per distinct relevance level."""
    depth = np.iinfo(np.int64).max if options.max_docs is None else options.max_docs
    longest = max(int(ranked.n_ranked.max(initial=0)), int(qrels.n_judged.max(initial=0)))
    discounts = kernel.log2_table(longest)
    cutoffs = np.array(sorted({m.k for m in metrics if m.k is not None}), dtype=np.int64)
    columns: dict[Metric, np.ndarray] = {}
    for rel in sorted({relevance_level(m) for m in metrics}):
        at_level = [m for m in metrics if relevance_level(m) == rel]
        levels = _recall_levels(at_level)
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
        for metric in at_level:
            if metric.name == "iprec_at_recall":
                columns[metric] = iprec[:, levels.index(float(dict(metric.params)["recall"]))]
            elif metric.name == "iprec_11pt":
                # trec_eval adds the levels from the highest down, then divides.
                total = np.zeros(len(alignment.run_query))
                for level in reversed(ELEVEN_POINTS):
                    total += iprec[:, levels.index(level)]
                columns[metric] = total / len(ELEVEN_POINTS)
            elif metric.name in _SET_MEASURES:
                columns[metric] = _SET_MEASURES[metric.name](
                    scalars[:, kernel.NUM_RET], scalars[:, kernel.NUM_REL], scalars[:, kernel.NUM_REL_RET]
                )
            elif metric.k is None:
                columns[metric] = scalars[:, _SCALARS[metric.name]]
            else:
                columns[metric] = at_k[:, _AT_K[metric.name], int(np.searchsorted(cutoffs, metric.k))]
    return columns
