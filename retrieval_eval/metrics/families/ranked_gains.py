"""The ranked-gains family: ranx 0.3.21's measures that trec_eval lacks, and TREC DL's NCG@k, with trec_eval's ranking.

Every measure takes the relevance level ``rel`` (ranx's ``-lN``, default 1) and reads ranx's gain:
a judged label ``l >= rel`` gains ``l`` (linear) or ``2^l - 1`` (``_burges``), a lower label and
an unjudged document gain 0. Rank ``i`` (1-based) is discounted by ``log2(i + 1)``; ``@k`` cuts
the ranking (and the ideal one) at k, without it the whole ranking counts.

=========================  ======================================================  ==============
metric                     definition                                              ranx / other
=========================  ======================================================  ==============
``hits(rel)@k``            documents with label >= rel in the top k (a count)      ``hits@k-lN``
``dcg(rel)@k``             sum_{i<=k} g(l_i) / log2(i + 1), linear gain            ``dcg@k-lN``
``dcg_ranx(rel)``          the same over the whole ranking                         ``dcg-lN``
``dcg_burges(rel)[@k]``    the same with gain 2^l - 1                              ``dcg_burges``
``ndcg_ranx(rel)[@k]``     DCG / ideal DCG (the labels >= rel best first); the     ``ndcg-lN``
                           DCG itself when the ideal is 0, as ranx divides by 1
``ndcg_burges_ranx``       the same with gain 2^l - 1                              ``ndcg_burges``
``rbp_label(p, rel)``      (1 - p) sum_i l_i p^(i-1), l_i the label when >= rel    ``rbp.NN-lN``
``ncg(rel)@k``             sum_{i<=k} g(l_i) / the same of the best k judged       TREC DL NCG@k
                           labels, linear gain; 0 when that is 0
=========================  ======================================================  ==============

ranx's ``ndcg`` and ``ndcg_burges`` at levels 0 and 1 are the TREC family's ``ndcg`` and
``ndcg_burges`` (equal values); ``ndcg_ranx`` is for the other levels. NCG@k is the normalized
cumulative gain the TREC Deep Learning tracks report (NCG@100, after Rosset et al., SIGIR 2018):
nDCG without the discount; ``rel=2`` gives the passage task's reading of label 1 as not relevant.

The ranking is trec_eval's (score descending, equal scores by descending document id), and so
are the conventions: ``judged_only`` (``-J``) and ``max_docs`` (``-M``) apply, the queries are
those both judged and retrieved unless ``query_set`` says otherwise. ranx orders equal scores
its own way: ``ties="ranx"`` gives ranx's numbers on runs with ties too. Formulas:
:mod:`retrieval_eval.kernels.trec.ranked_gains`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...kernels.core.bundles import FoundArrays, IdealArrays, QueryPairs
from ...kernels.trec import ranked_gains as kernel
from ..definition import MetricDefinition, non_negative, unit_interval
from ..family import Family
from ..joins import JUDGED_RANKS
from ..names import Metric
from ..options import EvaluationOptions
from .trec import TREC

if TYPE_CHECKING:
    from ...data import JudgedRanks, Qrels
    from ...data.join import QueryAlignment

FAMILY = "ranked_gains"
_REL = (("rel", "1"),)
#: The cutoff of a measure read over the whole ranking.
WHOLE = np.iinfo(np.int64).max


@dataclass(frozen=True, eq=False)
class GainInputs:
    """What the family's kernels read: the queries, where their judged documents rank, their judged labels, the depth."""

    pairs: QueryPairs
    found: FoundArrays
    ideal: IdealArrays
    depth: int


def _rel(metric: Metric) -> int:
    return int(dict(metric.params).get("rel", "1"))


def _k(metric: Metric) -> int:
    return WHOLE if metric.k is None else metric.k


def _dcg(exponential: bool) -> Callable[[GainInputs, Metric], np.ndarray]:
    return lambda inputs, metric: kernel.dcg(inputs.pairs, inputs.found, inputs.depth, _rel(metric), exponential, _k(metric))


def _ndcg(exponential: bool) -> Callable[[GainInputs, Metric], np.ndarray]:
    return lambda inputs, metric: kernel.ndcg(
        inputs.pairs, inputs.found, inputs.ideal, inputs.depth, _rel(metric), exponential, _k(metric)
    )


def _hits(inputs: GainInputs, metric: Metric) -> np.ndarray:
    return kernel.hits(inputs.pairs, inputs.found, inputs.depth, _rel(metric), _k(metric))


def _rbp(inputs: GainInputs, metric: Metric) -> np.ndarray:
    return kernel.rank_biased_precision(inputs.pairs, inputs.found, inputs.depth, _rel(metric), float(dict(metric.params)["p"]))


def _ncg(inputs: GainInputs, metric: Metric) -> np.ndarray:
    return kernel.normalized_cumulative_gain(inputs.pairs, inputs.found, inputs.ideal, inputs.depth, _rel(metric), _k(metric))


def _measure(name: str, definition: str, extract: Callable, **extra: object) -> MetricDefinition:
    extra.setdefault("params", _REL)
    extra.setdefault("bounds", non_negative)
    return MetricDefinition(name, FAMILY, definition, higher_is_better=True, extract=extract, **extra)


def _both(name: str, definition: str, extract: Callable, **extra: object) -> tuple[MetricDefinition, MetricDefinition]:
    """A measure over the whole ranking and at a cutoff."""
    return (
        _measure(name, definition, extract, **extra),
        _measure(name, definition + " Cut at rank k (and the ideal ranking at k).", extract, cutoff=True, **extra),
    )


DEFINITIONS = (
    _measure(
        "hits", "ranx's hits@k: documents with a label >= rel in the top k (a count; ranx hits@k-lN). Without @k "
        "ranx's hits is num_rel_ret.", _hits, cutoff=True, integer=True, grows_with_k=True,
    ),
    _measure(
        "dcg", "ranx's dcg@k: sum_{i<=k} g(l_i)/log2(i+1), g(l) = l for l >= rel, else 0 (ranx dcg@k-lN). Without "
        "@k, trec_eval's dcg.", _dcg(False), cutoff=True,
    ),
    _measure(
        "dcg_ranx", "ranx's dcg over the whole ranking at relevance level rel (ranx dcg-lN): sum_i g(l_i)/log2(i+1), "
        "g(l) = l for l >= rel, else 0 (dcg without @k is trec_eval's, which has no relevance level).", _dcg(False),
    ),
    *_both(
        "dcg_burges", "ranx's dcg_burges: sum_i g(l_i)/log2(i+1), g(l) = 2^l - 1 for l >= rel, else 0.", _dcg(True),
    ),
    *_both(
        "ndcg_ranx", "ranx's ndcg at relevance level rel (ranx ndcg-lN): DCG with g(l) = l for l >= rel, else 0, over "
        "the same of the judged labels >= rel best first; the DCG itself when that is 0.", _ndcg(False),
        bounds=unit_interval,
    ),
    *_both(
        "ndcg_burges_ranx", "ranx's ndcg_burges at relevance level rel (ranx ndcg_burges-lN): ndcg_ranx with "
        "g(l) = 2^l - 1.", _ndcg(True), bounds=unit_interval,
    ),
    _measure(
        "rbp_label", "ranx's rank-biased precision (ranx rbp.NN-lN): (1 - p) sum_i l_i p^(i-1) over the whole ranking, "
        "l_i the label when >= rel, else 0 (each relevant document weighed by its label; trec_eval's rbp scales the "
        "gains to [0, 1] instead).", _rbp, params=(("p", None), *_REL),
    ),
    _measure(
        "ncg", "Normalized cumulative gain (TREC Deep Learning's NCG@k): sum_{i<=k} g(l_i) over the same of the best k "
        "judged labels, g(l) = l for l >= rel, else 0; 0 when no label reaches rel.", _ncg, cutoff=True,
        bounds=unit_interval,
    ),
)


def _passes(
    qrels: Qrels, ranked: JudgedRanks, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> Iterator[tuple[GainInputs, Sequence[Metric]]]:
    """One pass: each measure is its own whole-array kernel over the same inputs."""
    if options.judged_only:
        ranked = ranked.judged_only(options.max_docs)
    depth = WHOLE if options.max_docs is None else options.max_docs
    found = FoundArrays(ranked.offsets, ranked.n_found, ranked.ranks, ranked.labels, ranked.n_ranked)
    ideal = IdealArrays(qrels.queries.offsets, qrels.n_judged, qrels.ideal_labels)
    yield GainInputs(alignment.pairs, found, ideal, depth), metrics


#: The TREC family's join, tie order and conventions (its join is built once for both).
RANKED_GAINS = Family(
    FAMILY, DEFINITIONS, ties=TREC.ties, conventions=TREC.conventions, join=JUDGED_RANKS, passes=_passes,
    title="ranx's hits@k, dcg@k, dcg_burges, nDCG at a level, RBP, and TREC DL's NCG@k (ties by descending doc id)",
)
