"""The TREC family: trec_eval's measures (and ranx's and ir_measures' few extras) with trec_eval's semantics.

Ranking is trec_eval's: score descending, equal scores by descending document id. A document
is relevant when its label is >= ``rel`` (trec_eval's ``-l``, default 1); labels <= 0 never
count as relevant, negative labels mark documents in the pool but unjudged (bpref and infAP
tell them apart). ``ndcg`` is trec_eval's nDCG with linear gain (the label), which ignores
``rel``, or with a gain map (``ndcg(gains=1:3.0;2:9.0)``); ``ndcg_burges`` has exponential gain
2^label - 1. Every measure is 0 where trec_eval's is (no relevant document, nothing retrieved).

trec_eval's options hold for every measure: ``max_docs`` (``-M``), ``judged_only`` (``-J``: only
judged documents are ranked), ``collection_size`` (``-N``, read by utility) and, under
``query_set="qrels"`` (``-c``), trec_eval's scoring of a judged query the run lacks: against a
ranking of one document not in the pool (none under ``-J``), with num_ret, unjudged@k and the
default utility, rbp_resid and relstring then reset to 0 or empty as trec_eval resets them by
name (a measure given parameters prints another name and keeps its value).
Formulas: :mod:`retrieval_eval.kernels.trec.trec` (the walk over the judged documents, most measures),
:mod:`retrieval_eval.metrics.families.trec.ranked` (gain maps, rbp, Rprec_mult, 11pt_avg).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ....errors import ConfigError
from ....kernels.trec import trec as kernel
from ....kernels.trec import trec_gains
from ...definition import non_negative
from ...family import Family
from ...joins import JUDGED_RANKS
from ...names import Metric
from ...options import Conventions, EvaluationOptions
from . import ranked as trec_ranked
from .common import FAMILY, MAIN, TrecInputs, measure, parameter, relevance_level, unbounded

if TYPE_CHECKING:
    from ....data import JudgedRanks, Qrels
    from ....data.join import QueryAlignment

__all__ = ["DEFINITIONS", "FAMILY", "TREC", "TrecPass", "relevance_level"]


@dataclass(frozen=True, eq=False)
class TrecPass:
    """The output of one kernel pass at one relevance level (see :func:`retrieval_eval.kernels.trec.trec.trec_measures`).

    ``scalars[:, c]``: the measures without a cutoff; ``at_k[:, c, j]``: the measures at
    ``cutoffs[j]``; ``iprec[:, v]``: interpolated precision at recall level ``levels[v]``;
    ``stand_ins``: the queries the run lacks, scored against trec_eval's stand-in ranking;
    ``collection_size``: documents in the collection (``-N``; trec_eval's default is 0).
    """

    scalars: np.ndarray
    at_k: np.ndarray
    iprec: np.ndarray
    cutoffs: np.ndarray
    levels: tuple[float, ...]
    stand_ins: np.ndarray
    collection_size: int

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


def _set_f(output: TrecPass, metric: Metric) -> np.ndarray:
    """trec_eval's set_F: (beta + 1) P R / (beta P + R), only where something relevant was retrieved."""
    beta = float(parameter(metric, "beta", DEFAULT_BETA))
    n, rel, hits = (output.scalars[:, column] for column in (kernel.NUM_RET, kernel.NUM_REL, kernel.NUM_REL_RET))
    found = hits > 0
    out = np.zeros_like(hits)
    precision, recall = hits[found] / n[found], hits[found] / rel[found]
    # Any beta: x P + R may be 0 (a negative beta), which divides as IEEE 754 does, as in trec_eval.
    with np.errstate(divide="ignore", invalid="ignore"):
        out[found] = (beta + 1.0) * precision * recall / (beta * precision + recall)
    return out


def _utility(output: TrecPass, metric: Metric) -> np.ndarray:
    """trec_eval's utility: a (relevant retrieved) + b (others retrieved) + c (relevant missed) + d (others missed)."""
    a, b, c, d = (float(parameter(metric, key, default)) for key, default in UTILITY_COEFFICIENTS)
    counts = output.scalars.astype(np.int64)
    n, rel, hits = counts[:, kernel.LENGTH], counts[:, kernel.NUM_REL], counts[:, kernel.NUM_REL_RET]
    # Whole numbers in C's long, then each multiplied as a double and the four added left to right.
    values = a * hits + b * (n - hits) + c * (rel - hits) + d * (output.collection_size + hits - n - rel)
    if not any(key in dict(metric.params) for key, _ in UTILITY_COEFFICIENTS):
        # trec_eval resets "utility" for a query the run lacks, not "utility_2,-1,0,0": the reset goes by name.
        values = np.where(output.stand_ins, 0.0, values)
    return values


def _ndcg(output: object, metric: Metric) -> np.ndarray:
    """ndcg: from the walk over the judged documents with the labels as gains, else from the gain map's pass."""
    if parameter(metric, "gains", ""):
        return trec_ranked.gain_measure(trec_gains.NDCG)(output, metric)
    return output.scalars[:, kernel.NDCG]


def _recall_level(metric: Metric) -> float:
    return float(dict(metric.params)["recall"])


def _ndcg_pass(metric: Metric) -> tuple:
    return trec_ranked.GAIN_PASS if parameter(metric, "gains", "") else (MAIN,)


#: set_F's beta when none is given (m_set_F.c).
DEFAULT_BETA = "1.0"
#: utility's coefficients a, b, c, d and trec_eval's defaults (m_utility.c).
UTILITY_COEFFICIENTS = (("a", "1.0"), ("b", "-1.0"), ("c", "0.0"), ("d", "0.0"))
DEFINITIONS = (
    measure(
        "ndcg", "trec_eval's nDCG: sum_i g(l_i)/log2(i+1) over the ranking / the same over the judged labels "
        "sorted descending, linear gain g(l) = l for l > 0 (ir_measures nDCG, ranx ndcg). 0 without a positive label.",
        rel=False, params=(trec_ranked.GAINS,), aliases=("ndcg_cut",), trec_name="ndcg", requires=_ndcg_pass,
        extract=_ndcg, float_labels=lambda metric: not parameter(metric, "gains", ""),
    ),
    measure(
        "ndcg", "trec_eval's ndcg_cut: nDCG with both sums cut at rank k, linear gain.",
        cutoff=True, rel=False, aliases=("ndcg_cut_{k}", "ndcg_cut.{k}"), trec_name="ndcg_cut_{k}",
        extract=_at_k(kernel.NDCG_AT),
    ),
    measure(
        "ndcg_burges", "nDCG with exponential gain 2^l - 1 (Burges et al.; ranx ndcg_burges) and trec_eval's "
        "conventions (ties by document id, 0 without a positive label). Azure's variant is ndcg_exp@k.",
        rel=False, extract=_scalar(kernel.NDCG_BURGES),
    ),
    measure(
        "ndcg_burges", "ndcg_burges with both sums cut at rank k.", cutoff=True, rel=False,
        extract=_at_k(kernel.NDCG_BURGES_AT),
    ),
    measure(
        "map", "Average precision: sum over relevant retrieved documents of precision at their rank, / num_rel "
        "(trec_eval map; ir_measures AP).", aliases=("ap",), trec_name="map", extract=_scalar(kernel.MAP),
    ),
    measure(
        "map", "Average precision over the top k, still divided by num_rel (trec_eval map_cut).",
        cutoff=True, aliases=("map_cut_{k}", "map_cut.{k}"), trec_name="map_cut_{k}", grows_with_k=True,
        extract=_at_k(kernel.MAP_AT),
    ),
    measure(
        "precision", "Relevant documents in the top k / k (trec_eval P; ir_measures P).",
        cutoff=True, aliases=("p", "p_{k}", "p.{k}"), trec_name="P_{k}", extract=_at_k(kernel.PRECISION_AT),
    ),
    measure(
        "recall", "Relevant documents in the top k / num_rel (trec_eval recall; ir_measures R).",
        cutoff=True, aliases=("r", "recall_{k}", "recall.{k}"), trec_name="recall_{k}", grows_with_k=True,
        extract=_at_k(kernel.RECALL_AT),
    ),
    measure(
        "recip_rank", "1 / rank of the first relevant document (trec_eval recip_rank; ir_measures RR; ranx mrr).",
        aliases=("mrr", "rr"), trec_name="recip_rank", extract=_scalar(kernel.RECIP_RANK),
    ),
    measure(
        "recip_rank", "recip_rank, 0 when the first relevant document ranks below k (ranx mrr@k).", cutoff=True,
        grows_with_k=True, extract=_at_k(kernel.RECIP_RANK_AT),
    ),
    measure(
        "rprec", "Relevant documents in the top num_rel / num_rel (trec_eval Rprec; ranx r-precision).",
        aliases=("r-precision",), trec_name="Rprec", extract=_scalar(kernel.RPREC),
    ),
    measure(
        "success", "1 when a relevant document is in the top k, else 0 (trec_eval success; ranx hit_rate).",
        cutoff=True, aliases=("hit_rate", "success_{k}", "success.{k}"), trec_name="success_{k}", grows_with_k=True,
        extract=_at_k(kernel.SUCCESS_AT),
    ),
    measure(
        "bpref", "Binary preference: sum over relevant retrieved r of 1 - min(judged non-relevant above r, R) / "
        "min(N, R), / R; R = num_rel, N = judged non-relevant (label 0..rel-1); unjudged documents are skipped.",
        trec_name="bpref", extract=_scalar(kernel.BPREF),
    ),
    measure(
        "infap", "Inferred AP (Yilmaz and Aslam) for sampled judgments, exactly as trec_eval's infAP.",
        trec_name="infAP", extract=_scalar(kernel.INFAP),
    ),
    measure(
        "judged", "Documents with a judgment (any label) in the top min(k, n) / min(k, n) (ir_measures Judged).",
        cutoff=True, rel=False, extract=_at_k(kernel.JUDGED_AT),
    ),
    measure("f1", "2 P R / (P + R) of precision@k and recall@k (ranx f1).", cutoff=True, extract=_at_k(kernel.F1_AT)),
    measure(
        "iprec_at_recall",
        "Interpolated precision at a recall level: the best precision at or after the c-th relevant document, "
        "c = recall * num_rel rounded half up (trec_eval 10; version 9 and pytrec_eval add 0.9); 0 when fewer were "
        "retrieved, NaN (trec_eval's 0/0) when nothing was ranked and c = 0 (trec_eval iprec_at_recall; ir_measures "
        "IPrec).",
        params=(("recall", None),), aliases=("iprec_at_recall_{recall}", "iprec@{recall}"),
        trec_name="iprec_at_recall_{recall}", extract=lambda output, metric: output.interpolated(_recall_level(metric)),
        requires=lambda metric: (MAIN, _recall_level(metric)),
    ),
    measure(
        "gm_map", "Average precision per query, summarized by the geometric mean exp(mean(log(max(AP, 1e-5)))) "
        "(trec_eval gm_map: rewards improving the hardest queries).", trec_name="gm_map", aggregate="geometric",
        extract=_scalar(kernel.MAP),
    ),
    measure(
        "gm_bpref", "bpref per query, summarized by the geometric mean exp(mean(log(max(bpref, 1e-5)))) "
        "(trec_eval gm_bpref).", trec_name="gm_bpref", aggregate="geometric", extract=_scalar(kernel.BPREF),
    ),
    measure(
        "relative_precision", "Relevant documents in the top k / min(k, num_rel): precision that can reach 1 "
        "(trec_eval relative_P).", cutoff=True, aliases=("relative_p", "relative_p_{k}", "relative_p.{k}"),
        trec_name="relative_P_{k}", extract=_at_k(kernel.RELATIVE_PRECISION_AT),
    ),
    measure(
        "set_precision", "num_rel_ret / num_ret: precision of the whole retrieved set (trec_eval set_P).",
        aliases=("set_p",), trec_name="set_P", ranking=False,
        extract=_set_measure(lambda n, rel, hits: _ratio(hits, n)),
    ),
    measure(
        "set_recall", "num_rel_ret / num_rel: recall of the whole retrieved set (trec_eval set_recall).",
        trec_name="set_recall", ranking=False,
        extract=_set_measure(lambda n, rel, hits: _ratio(hits, rel)),
    ),
    measure(
        "set_f", "(beta + 1) P R / (beta P + R) of P = set_precision and R = set_recall, 0 when nothing relevant was "
        "retrieved (trec_eval set_F; beta 1 by default, set_f1: 2 P R / (P + R)).",
        params=(("beta", DEFAULT_BETA),), aliases=("set_f1", "set_f_{beta}"), trec_name="set_F", ranking=False,
        extract=_set_f,
    ),
    measure(
        "set_map", "set_precision * set_recall = num_rel_ret^2 / (num_ret num_rel) (trec_eval set_map).",
        trec_name="set_map", ranking=False,
        extract=_set_measure(lambda n, rel, hits: _ratio(hits * hits, n * rel)),
    ),
    measure(
        "set_relative_precision", "num_rel_ret / min(num_ret, num_rel) (trec_eval set_relative_P).",
        aliases=("set_relative_p",), trec_name="set_relative_P", ranking=False,
        extract=_set_measure(lambda n, rel, hits: _ratio(hits, np.minimum(n, rel))),
    ),
    measure(
        "num_ret", "Retrieved documents (after max_docs) (count).", rel=False, integer=True, bounds=non_negative,
        aliases=("numret",), trec_name="num_ret", aggregate="sum", extract=_scalar(kernel.NUM_RET),
    ),
    measure(
        "num_rel", "Judged documents with label >= rel (count).", integer=True, bounds=non_negative,
        aliases=("numrel",), trec_name="num_rel", aggregate="sum", extract=_scalar(kernel.NUM_REL),
    ),
    measure(
        "num_rel_ret", "Retrieved documents with label >= rel (count).", integer=True, bounds=non_negative,
        aliases=("numrelret",), trec_name="num_rel_ret", aggregate="sum",
        extract=_scalar(kernel.NUM_REL_RET),
    ),
    measure(
        "num_nonrel_judged_ret", "Retrieved documents judged non-relevant, 0 <= label < rel (count).", integer=True,
        bounds=non_negative, trec_name="num_nonrel_judged_ret", aggregate="sum",
        extract=_scalar(kernel.NUM_NONREL_JUDGED_RET),
    ),
    measure(
        "yaap", "Yet another average precision (Robertson): log((1 + s) / (1 + num_rel - s)), s the sum of precision "
        "at each relevant retrieved document (trec_eval yaap).",
        bounds=unbounded, trec_name="yaap", extract=_scalar(kernel.YAAP),
    ),
    measure(
        "bing", "Binary G: sum over relevant retrieved documents of 1 / log2(2 + documents not relevant above it), "
        "/ num_rel (trec_eval binG).",
        trec_name="binG", extract=_scalar(kernel.BING),
    ),
    measure(
        "unjudged", "Documents the qrels do not judge (not listed, or a negative label) in the top min(k, n), / k "
        "(trec_eval unj; its default cutoffs are 5, 10, 20).",
        cutoff=True, rel=False, higher_is_better=False, aliases=("unj", "unj_{k}", "unj.{k}"), trec_name="unj_{k}",
        extract=_at_k(kernel.UNJUDGED_AT),
    ),
    measure(
        "utility", "a (relevant retrieved) + b (non-relevant retrieved) + c (relevant not retrieved) + d (non-relevant "
        "not retrieved, from collection_size); trec_eval utility, coefficients 1, -1, 0, 0 by default.",
        params=tuple((key, default) for key, default in UTILITY_COEFFICIENTS), bounds=unbounded, trec_name="utility",
        ranking=False, extract=_utility,
    ),
)


def _passes(
    qrels: Qrels, ranked: JudgedRanks, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> Iterator[tuple[object, list[Metric]]]:
    """The walk over the judged documents once per relevance level, then the passes of trec_ranked."""
    below = next((metric for metric in metrics if relevance_level(metric) < 0), None)
    if below is not None:
        raise ConfigError(
            f"{below}: a relevance level below 0 is not supported by the TREC measures (trec_eval then counts documents "
            "outside the pool as relevant in some measures and not in others)"
        )
    if options.judged_only:
        ranked = ranked.judged_only(options.max_docs)
    inputs = TrecInputs(qrels, ranked, alignment, options)
    needs = [(metric, TREC.definition(metric).requires(metric)) for metric in metrics]
    yield from _main_passes(inputs, [(metric, need) for metric, need in needs if need[0] == MAIN])
    yield from trec_ranked.passes(inputs, [(metric, need) for metric, need in needs if need[0] != MAIN])


def _main_passes(inputs: TrecInputs, metrics: list[tuple[Metric, tuple]]) -> Iterator[tuple[TrecPass, list[Metric]]]:
    """One kernel pass per distinct relevance level, every measure and cutoff of that level at once."""
    cutoffs = np.array(sorted({m.k for m, _ in metrics if m.k is not None}), dtype=np.int64)
    collection_size = inputs.options.collection_size or 0
    for rel in sorted({relevance_level(m) for m, _ in metrics}):
        at_level = [(m, need) for m, need in metrics if relevance_level(m) == rel]
        levels = tuple(sorted({level for _, need in at_level for level in need[1:]}))
        scalars, at_k, iprec = kernel.trec_measures(
            *inputs.arguments(), *inputs.judgments(), rel, inputs.depth, inputs.stand_in, cutoffs,
            np.array(levels, dtype=np.float64), inputs.discounts,
        )
        output = TrecPass(scalars, at_k, iprec, cutoffs, levels, inputs.stand_ins, collection_size)
        yield output, [m for m, _ in at_level]


#: trec_eval orders equal scores by descending document id, averages over the queries both
#: judged and retrieved, and refuses a repeated document; its measures need only where the
#: judged documents rank.
TREC = Family(
    FAMILY, DEFINITIONS + trec_ranked.DEFINITIONS, ties="docid",
    conventions=Conventions(query_set="both", duplicates="raise"), join=JUDGED_RANKS, passes=_passes,
    title="trec_eval 10's measures (relevant: label >= -l; ties by descending doc id)",
)
