"""The diversity family: ndeval's intent-aware measures of the TREC Web track (version 4.5, as pyndeval 0.0.8 wraps it).

The qrels give a label per (query, subtopic, document): ``topic subtopic docno judgment``, the
subtopic in the TREC qrels' second column (ir_measures' ``iteration``), read in the ``qrels_jg``
layout. A document is relevant to a subtopic when its label there is >= ``rel`` (ndeval: >= 1).
``alpha`` (redundancy intolerance) and ``beta`` (patience) default to ndeval's 0.5. Formulas,
ndeval's "ideal ideal" normalisation of alpha-DCG and ERR-IA (reproduced as ndeval computes it,
not fixed) and its greedy ideal ranking: :mod:`retrieval_eval.kernels.trec.diversity`.

Conventions are ndeval's: the queries both judged and retrieved (``query_set="qrels"`` is its
``-c``: a judged query the run lacks scores 0), a repeated document an error, ``max_docs`` its
``-M``. Ranking is ndeval's ``-traditional`` order (score descending, equal scores by descending
document id), trec_eval's: the rank column of a run is not read here, so ndeval's default order by
that column is not (``retrieval-eval ndeval``, :mod:`retrieval_eval.frontends.ndeval`, reads it
and ranks by it), and pyndeval's (equal scores by ascending id) differs on ties.
``judged_only`` (ir_measures' ``judged_only``, trec_eval's ``-J``) drops the unjudged documents first.
Cutoffs go up to ndeval's depth, 20 (pyndeval refuses more too): past it the ideal ideal
normalisation of alpha = 0 grows without end.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...errors import ConfigError
from ...kernels.core.segments import segments
from ...kernels.trec.diversity import DiversityValues, diversity_measures
from ..definition import MetricDefinition, non_negative, unit_interval
from ..family import Family
from ..joins import JoinKind
from ..names import Metric
from ..options import Conventions, EvaluationOptions

if TYPE_CHECKING:
    from ...data import Qrels, Run
    from ...data.join import QueryAlignment
    from ...data.subtopic_join import SubtopicRun

FAMILY = "diversity"
_REL = ("rel", "1")
_ALPHA = ("alpha", "0.5")
_BETA = ("beta", "0.5")
#: ndeval's DEPTH: the deepest cutoff it computes.
DEPTH = 20


@dataclass(frozen=True, eq=False)
class DiversityPass:
    """One kernel pass's values (one alpha, beta and rel)."""

    values: DiversityValues


def _column(field: str):
    return lambda output, metric: getattr(output.values, field)[:, metric.k - 1]


def _scalar(field: str):
    return lambda output, metric: getattr(output.values, field)


def _measure(name: str, ndeval: str, definition: str, *, params: tuple, field: str, cutoff: bool = True,
             bounds=unit_interval, aliases: tuple[str, ...] = ()) -> MetricDefinition:
    return MetricDefinition(
        name, FAMILY, f"{definition} (ndeval {ndeval}).", higher_is_better=True, cutoff=cutoff, bounds=bounds,
        params=params, aliases=aliases, extract=(_column if cutoff else _scalar)(field),
    )


DEFINITIONS = (
    _measure("alpha_dcg", "alpha-DCG@k", "sum_{r<=k} g_r / log2(r + 1) over the same sum for an ideal ideal "
             "ranking where every rank covers all S subtopics, g_r = sum_j rel_j(r) (1 - alpha)^(documents above r "
             "relevant to j); ndeval's collection-independent normalisation, not applied at k = 1",
             params=(_ALPHA, _REL), field="dcg", bounds=non_negative),
    _measure("alpha_ndcg", "alpha-nDCG@k", "alpha_dcg@k over alpha_dcg@k of ndeval's greedy ideal ranking (equal "
             "gains to the greatest document id), 0 when alpha_dcg@k is 0", params=(_ALPHA, _REL), field="ndcg"),
    _measure("err_ia", "ERR-IA@k", "sum_{r<=k} g_r / r over the same sum for the ideal ideal ranking (ndeval's "
             "\"ideal ideal\" normalisation, reproduced and not fixed: not applied at k = 1)",
             params=(_ALPHA, _REL), field="err", bounds=non_negative),
    _measure("nerr_ia", "nERR-IA@k", "err_ia@k over err_ia@k of ndeval's greedy ideal ranking, 0 when alpha_dcg@k is 0",
             params=(_ALPHA, _REL), field="nerr"),
    _measure("nrbp", "NRBP", "(1 - (1 - alpha) beta) / S * sum_r g_r beta^(r-1) over the whole ranking",
             params=(_ALPHA, _BETA, _REL), field="nrbp", cutoff=False),
    _measure("nnrbp", "nNRBP", "nrbp over nrbp of ndeval's greedy ideal ranking (NaN for a query without relevant "
             "documents, 0 / 0 as in ndeval)", params=(_ALPHA, _BETA, _REL), field="nnrbp", cutoff=False),
    _measure("map_ia", "MAP-IA", "the mean over the S subtopics with relevant documents of each one's average "
             "precision", params=(_REL,), field="map_ia", cutoff=False, aliases=("ap_ia",)),
    _measure("p_ia", "P-IA@k", "(relevant (document, subtopic) pairs in the top k) / (k S)", params=(_REL,),
             field="precision"),
    _measure("strec", "strec@k", "subtopic recall: subtopics with a relevant document in the top k / S",
             params=(_REL,), field="strec", aliases=("subtopic_recall",)),
)


def _number(metric: Metric, key: str, default: str) -> float:
    return float(dict(metric.params).get(key, default))


def _join(qrels: Qrels, run: Run, duplicates: str, ties: str) -> SubtopicRun:
    from ...data.subtopic_join import subtopic_run

    return subtopic_run(qrels, run, duplicates, ties)


#: The ranked run against the subtopic pool (:class:`~retrieval_eval.data.subtopic_join.SubtopicRun`).
SUBTOPIC_RUN = JoinKind("subtopic run", _join)


def _ranked_pool(joined: SubtopicRun, run_query: np.ndarray, options: EvaluationOptions) -> tuple:
    """Each evaluated query's ranked pool documents (-1: not judged), cut at max_docs, judged only if asked."""
    ranked = joined.ranked
    present = run_query >= 0
    n = np.where(present, ranked.n_ranked[np.maximum(run_query, 0)], 0)
    if options.max_docs is not None:
        n = np.minimum(n, options.max_docs)
    seg, pos, starts = segments(np.where(present, ranked.offsets[np.maximum(run_query, 0)], 0), n)
    pool = ranked.labels[starts + pos] - 1
    if options.judged_only:
        keep = pool >= 0
        seg, pool = seg[keep], pool[keep]
        n = np.bincount(seg, minlength=run_query.shape[0])
    offsets = np.cumsum(n) - n
    return offsets.astype(np.int64), n.astype(np.int64), pool.astype(np.int64)


def _passes(
    qrels: Qrels, joined: SubtopicRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> Iterator[tuple[DiversityPass, list[Metric]]]:
    """One kernel pass per (alpha, beta, rel), every cutoff of it at once."""
    pairs = alignment.pairs
    offsets, n, pool = _ranked_pool(joined, pairs.run_query, options)
    keys = {}
    for metric in metrics:
        key = (_number(metric, "alpha", "0.5"), _number(metric, "beta", "0.5"), int(dict(metric.params).get("rel", "1")))
        for name, value in zip(("alpha", "beta"), key[:2]):
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"{metric}: {name} must be from 0 to 1 (as ndeval's -{name}), got {value!r}")
        if metric.k is not None and metric.k > DEPTH:
            raise ConfigError(f"{metric}: ndeval computes its measures down to rank {DEPTH}, so k must be at most {DEPTH}")
        keys.setdefault(key, []).append(metric)
    for (alpha, beta, rel), group in keys.items():
        depth = max([m.k for m in group if m.k is not None] or [1])
        values = diversity_measures(
            joined.pool.judgments, pairs.qrels_query, offsets, n, pool, joined.pool.labels >= rel, alpha, beta, depth
        )
        yield DiversityPass(values), group


#: ndeval's conventions (the queries both judged and retrieved, a repeated document an error), its
#: -traditional order of ties (trec_eval's); the qrels in the ``qrels_jg`` layout, subtopics as groups.
DIVERSITY = Family(
    FAMILY, DEFINITIONS, ties="docid", conventions=Conventions(query_set="both", duplicates="raise"),
    join=SUBTOPIC_RUN, passes=_passes, judgments=("qrels_jg",), title="ndeval's diversity measures (subtopic qrels, -R qrels_jg)",
)
