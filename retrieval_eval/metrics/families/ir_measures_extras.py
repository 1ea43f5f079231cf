"""ir_measures 0.4.3's own measures, as its compat and accuracy providers compute them: Compat and Accuracy.

``compat(p=0.95,normalize=true)`` is the compatibility of Clarke, Vtyurina and Smucker (TOIS
2021): the rank-biased overlap of the ranking with the ideal one (the documents with a label > 0,
by label, then by the run's score, then in qrels order), persistence p, normalized by the ideal's
own unless ``normalize=false``. Its ranking is ir_measures': equal scores by ascending document id
(the reverse of trec_eval's; integer ids compare as their decimal text). ``accuracy(rel=1)[@k]``
is the share of (relevant, non-relevant) pairs of the top k (all without @k) that rank the
relevant one first; NaN where ir_measures reports no value (no relevant or no non-relevant
document ranked, where its provider divides by zero; a query on one side only), and a mean
leaves NaN out, as ir_measures' mean over the queries it reports. Its ranking keeps equal scores
in input order, as ir_measures' stable sort. Formulas: :mod:`retrieval_eval.kernels.core.compat_accuracy`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...kernels.core import compat_accuracy as kernel
from ..definition import MetricDefinition, unit_interval
from ..family import Family
from ..joins import RANKED_RUN, JoinKind
from ..names import Metric
from ..options import Conventions, EvaluationOptions

if TYPE_CHECKING:
    from ...data import Qrels, RankedRun, Run
    from ...data.join import QueryAlignment
    from ...data.ranked_documents import RankedDocuments

COMPAT_FAMILY, ACCURACY_FAMILY = "compat", "accuracy"
#: The queries both sides have (ir_measures gives a judged query the run lacks Compat's default, 0, in its
#: provider); a repeated document is an error, as trec_eval's (ir_measures keeps the last).
CONVENTIONS = Conventions(query_set="both", duplicates="raise")


def _column(output: dict[Metric, np.ndarray], metric: Metric) -> np.ndarray:
    """Each pass gives its metrics' columns by metric."""
    return output[metric]


def _compat(documents: RankedDocuments, metric: Metric, qrels: Qrels, alignment: QueryAlignment) -> np.ndarray:
    params = dict(metric.params)
    rank = documents.rank
    if documents.ties == "docid":
        # ir_measures sorts by ascending id, then by score: trec_eval's order of ties reversed.
        rank = documents.tie_start + documents.tie_end - 1 - rank
    return kernel.compat(
        alignment.pairs, documents.n_ranked, documents.query, rank, documents.slot, documents.score, qrels.judgment_arrays,
        float(params.get("p", "0.95")), params.get("normalize", "true") == "true",
    )


COMPAT_DEFINITIONS = (
    MetricDefinition(
        "compat", COMPAT_FAMILY,
        "ir_measures' Compat (Clarke, Vtyurina and Smucker 2021): RBO(R, I) = sum_{i<D} p^i |R_{i+1} & I_{i+1}| / (i+1) "
        "/ sum_{i<D} p^i, D = max(|R|, |I|), I the documents with label > 0 by label, run score (0 when not retrieved) "
        "and qrels order; divided by RBO(I, I) when normalize and that is > 0. p = 0.95.",
        higher_is_better=True, bounds=unit_interval, params=(("p", "0.95"), ("normalize", "true")),
        extract=_column,
    ),
)
ACCURACY_DEFINITIONS = tuple(
    MetricDefinition(
        "accuracy", ACCURACY_FAMILY,
        "ir_measures' Accuracy: 1 - sum_j c_j / (N R) over the top k (the whole ranking without @k), R documents with "
        "label >= rel, N the others, c_j the others above the j-th relevant one; NaN (left out of the mean) when R or "
        "N is 0, as ir_measures reports nothing there.",
        higher_is_better=True, bounds=unit_interval, cutoff=cutoff, params=(("rel", "1"),),
        extract=_column,
    )
    for cutoff in (False, True)
)


def _compat_join(qrels: Qrels, run: Run, duplicates: str, ties: str) -> RankedDocuments:
    # The data layer (pyarrow) loads when a join runs, not when the registry is read (``--help``, listings).
    from ...data.join import check_tie_order
    from ...data.ranked_documents import rank_documents

    check_tie_order(ties, family_ranx_lacks="Compat")
    return rank_documents(qrels, run, duplicates=duplicates, ties=ties)


#: Each query's documents ranked, as Compat reads them (:class:`~retrieval_eval.data.ranked_documents.RankedDocuments`);
#: ranx has no Compat, so no ranx order of ties.
RANKED_DOCUMENTS = JoinKind("ranked documents", _compat_join)


def _compat_passes(
    qrels: Qrels, documents: RankedDocuments, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> Iterator[tuple[dict[Metric, np.ndarray], Sequence[Metric]]]:
    yield {metric: _compat(documents, metric, qrels, alignment) for metric in metrics}, metrics


def _accuracy_passes(
    qrels: Qrels, ranked: RankedRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> Iterator[tuple[dict[Metric, np.ndarray], Sequence[Metric]]]:
    values = {
        metric: kernel.accuracy(
            alignment.pairs, ranked.offsets, ranked.n_ranked, ranked.labels, int(dict(metric.params).get("rel", "1")),
            np.iinfo(np.int64).max if metric.k is None else metric.k,
        )
        for metric in metrics
    }
    yield values, metrics


COMPAT = Family(
    COMPAT_FAMILY, COMPAT_DEFINITIONS, ties="docid", conventions=CONVENTIONS, join=RANKED_DOCUMENTS,
    passes=_compat_passes,
    title="ir_measures' Compat (RBO with the ideal ranking; ties by ascending doc id)",
)
ACCURACY = Family(
    ACCURACY_FAMILY, ACCURACY_DEFINITIONS, ties="input", conventions=CONVENTIONS, join=RANKED_RUN,
    passes=_accuracy_passes, title="ir_measures' Accuracy (ordered relevant/non-relevant pairs; ties in input order)",
)
