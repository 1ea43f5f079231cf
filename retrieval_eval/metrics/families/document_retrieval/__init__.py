"""The document-retrieval family: azure-ai-evaluation's DocumentRetrievalEvaluator metrics for any k.

Exponential gain (2^label - 1) throughout: ``ndcg_exp`` is not trec_eval's linear-gain ``ndcg``.
ndcg_exp, xdcg, the holes and the counts take float labels (their formulas hold for any real
label); fidelity (Azure's weights per whole grade m+1..M), top1_relevance and max_relevance
(Azure's values are the integer labels) need integers.
Ranking follows Azure: score descending, ties in input order, a repeated document keeps its
first position. Unjudged documents have label 0 whatever the label range.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ....errors import InputError
from ....kernels.core import docret
from ....kernels.core.bundles import IdealArrays, RankedArrays
from ...definition import MetricDefinition, non_negative, unit_interval
from ...family import Family, Passes
from ...joins import RANKED_RUN
from ...names import Metric
from ...options import Conventions, EvaluationOptions, LabelRange

if TYPE_CHECKING:
    from ....data import Qrels, RankedRun
    from ....data.join import QueryAlignment

FAMILY = "document_retrieval"
# 2^(label + 1) overflows float64 above this label.
MAX_SUPPORTED_LABEL = 1022


@dataclass(frozen=True, eq=False)
class DocumentRetrievalPass:
    """The output of the family's kernel: one ``(n_queries, N_COLUMNS)`` matrix per cutoff asked for.

    Metrics without a cutoff come out of any pass: they read the first one.
    """

    matrices: dict[int, np.ndarray]

    def column(self, column: int, k: int | None) -> np.ndarray:
        return self.matrices[next(iter(self.matrices)) if k is None else k][:, column]


def _column(column: int) -> Callable[[DocumentRetrievalPass, Metric], np.ndarray]:
    return lambda output, metric: output.column(column, metric.k)


DEFINITIONS = (
    MetricDefinition(
        "ndcg_exp", FAMILY,
        "nDCG@k with exponential gain: sum_{i<=k} g(r_i)/log2(i+1) over the same sum for the ideal "
        "ordering of all judged documents, g(l) = 2^l - 1 (Azure's ndcg@3) for l >= 0 and 0 for a label below 0 "
        "(not relevant, as label 0 and as in trec_eval; Azure's negative gains can leave [0, 1]), so the value "
        "lies in [0, 1]. 0 when no retrieved document has a nonzero label (every label 0, or nothing retrieved), "
        "as in Azure, and when no judged document has a label above 0.",
        higher_is_better=True, cutoff=True, bounds=unit_interval, azure_threshold=0.5, extract=_column(docret.NDCG_EXP), float_labels=True,
    ),
    MetricDefinition(
        "xdcg", FAMILY,
        "25 * sum_{i<=k} r_i 0.6^(i-1) / sum_{i<=k} 0.6^(i-1): position-weighted mean label scaled by 25 "
        "(0..100 for labels 0..4; Azure's xdcg@3).",
        higher_is_better=True, cutoff=True, bounds=lambda lo, hi: (0.0, 25.0 * hi), azure_threshold=50.0,
        extract=_column(docret.XDCG), float_labels=True,
    ),
    MetricDefinition(
        "fidelity", FAMILY,
        "Graded recall over all retrieved documents: sum of w(label) over retrieved documents with "
        "label > label_min, divided by the same sum over all judged documents; w(v) = 2^(v+1) - 1. "
        "0 when no retrieved document has a nonzero label, as in Azure; else NaN when no judged document "
        "is above label_min.",
        higher_is_better=True, bounds=unit_interval, azure_threshold=0.5, extract=_column(docret.FIDELITY),
    ),
    MetricDefinition(
        "top1_relevance", FAMILY, "Label of the top-ranked document (0 when unjudged, or when no retrieved document "
        "has a nonzero label, as in Azure).",
        higher_is_better=True, integer=True, bounds=lambda lo, hi: (0.0, float(hi)), azure_threshold=50.0,
        extract=_column(docret.TOP1_RELEVANCE),
    ),
    MetricDefinition(
        "max_relevance", FAMILY, "Highest label among the top k documents (Azure's top3_max_relevance).",
        higher_is_better=True, cutoff=True, integer=True, bounds=lambda lo, hi: (0.0, float(hi)),
        azure_threshold=50.0, aliases=("top{k}_max_relevance",), grows_with_k=True,
        extract=_column(docret.MAX_RELEVANCE),
    ),
    MetricDefinition(
        "holes", FAMILY, "Number of distinct retrieved documents without a judgment (count).",
        higher_is_better=False, integer=True, bounds=non_negative, azure_threshold=0, extract=_column(docret.HOLES), float_labels=True,
    ),
    MetricDefinition(
        "holes_ratio", FAMILY,
        "holes / number of retrieved rows (repeated documents count in the denominator, as in Azure).",
        higher_is_better=False, bounds=unit_interval, azure_threshold=0, extract=_column(docret.HOLES_RATIO),
        float_labels=True,
    ),
    MetricDefinition(
        "holes", FAMILY,
        "Share of the k top slots taken by unjudged documents: unjudged among the top min(k, n) / k "
        "(BEIR's Hole@k; not an Azure metric).",
        higher_is_better=False, cutoff=True, bounds=unit_interval, extract=_column(docret.HOLES_AT_K),
        float_labels=True,
    ),
    MetricDefinition(
        "total_retrieved_documents", FAMILY, "Retrieved rows for the query, repeated documents included (count).",
        higher_is_better=True, integer=True, bounds=non_negative, azure_threshold=50, extract=_column(docret.TOTAL_RETRIEVED),
        float_labels=True,
    ),
    MetricDefinition(
        "total_ground_truth_documents", FAMILY, "Judged rows for the query, repeated documents included (count).",
        higher_is_better=True, integer=True, bounds=non_negative, azure_threshold=50,
        extract=_column(docret.TOTAL_GROUND_TRUTH), float_labels=True,
    ),
)

def default_metrics(k: int) -> list[Metric]:
    """Azure's metrics at cutoff k, plus holes@k."""
    return [Metric(d.name, k if d.cutoff else None) for d in DEFINITIONS]


def check_labels(qrels: Qrels, labels: LabelRange) -> None:
    """Every label must lie in the range, and below the float64 limit of exponential gain."""
    qrels.check_label_range(labels.label_min, labels.label_max, option="label range (label_min, label_max)")
    if len(qrels) and qrels.labels.max() > MAX_SUPPORTED_LABEL:
        row = int(np.argmax(qrels.labels))
        raise InputError(
            f"label {qrels.describe_label(row)} is too large: exponential gain 2^(label+1) overflows "
            f"float64 above {MAX_SUPPORTED_LABEL}",
            source=qrels.source, row=row + 1, field="relevance",
        )


def metric_matrix(
    ranked: RankedRun, qrels: Qrels, alignment: QueryAlignment, k: int, labels: LabelRange, *, azure_gains: bool = False
) -> np.ndarray:
    """Every metric of the family at cutoff k for the aligned queries: float64 ``(n_queries, N_COLUMNS)``.

    ``azure_gains``: ndcg_exp with azure-ai-evaluation's gains, negative for a negative label (the
    drop-in keeps the SDK's values); by default a label below 0 has gain 0 and ndcg_exp lies in [0, 1].
    """
    # The tables go as deep as the longest list read, whatever k (holes@100000000 on a short run).
    longest = max(int(ranked.n_ranked.max(initial=0)), int(qrels.n_judged.max(initial=0)))
    log2_discounts, xdcg_weights, xdcg_norm = docret.discount_tables(k, longest)
    return docret.document_retrieval_metrics(
        alignment.pairs,
        RankedArrays(ranked.offsets, ranked.n_ranked, ranked.labels, ranked.judged, ranked.retrieved_rows),
        IdealArrays(qrels.queries.offsets, qrels.n_judged, qrels.ideal_labels),
        qrels.queries.rows_per_query,
        k,
        labels.label_min,
        azure_gains,
        log2_discounts,
        xdcg_weights,
        xdcg_norm,
    )


def passes(*, azure_gains: bool) -> Passes:
    """The family's passes: one kernel pass per distinct k, every metric of the family at once.

    ``azure_gains``: ndcg_exp with azure-ai-evaluation's gains (:func:`metric_matrix`); the
    registered family's are False, the Azure drop-in's family variant's True.
    """

    def document_retrieval_passes(
        qrels: Qrels, ranked: RankedRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
    ) -> Iterator[tuple[DocumentRetrievalPass, Sequence[Metric]]]:
        labels = options.labels
        check_labels(qrels, labels)
        # Metrics without a cutoff come out of any pass; use the first k asked for (or 1).
        cutoffs = sorted({m.k for m in metrics if m.k is not None}) or [1]
        matrices = {k: metric_matrix(ranked, qrels, alignment, k, labels, azure_gains=azure_gains) for k in cutoffs}
        yield DocumentRetrievalPass(matrices), metrics

    return document_retrieval_passes


#: azure-ai-evaluation keeps equal scores in input order, scores every judged query, and the last
#: of repeated rows wins; holes, fidelity and xdcg read every ranked document's label.
DOCUMENT_RETRIEVAL = Family(
    FAMILY, DEFINITIONS, ties="input", conventions=Conventions(query_set="qrels", duplicates="last"),
    join=RANKED_RUN, passes=passes(azure_gains=False), title="azure-ai-evaluation's document retrieval, at any cutoff (graded labels)",
)
