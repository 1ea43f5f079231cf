"""The document-retrieval family: azure-ai-evaluation's DocumentRetrievalEvaluator metrics for any k.

Exponential gain (2^label - 1) throughout: ``ndcg_exp`` is not trec_eval's linear-gain ``ndcg``.
Ranking follows Azure: score descending, ties in input order, a repeated document keeps its
first position. Unjudged documents have label 0 whatever the label range.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..data import Qrels, RankedRun, rank_run
from ..data.join import QueryAlignment
from ..errors import ConfigError, InputError
from ..kernels import docret
from .names import Metric
from .definition import MetricDefinition

if TYPE_CHECKING:
    from .families import FamilyOptions

FAMILY = "document_retrieval"
#: azure-ai-evaluation keeps equal scores in input order.
TIES = "input"
#: The metrics read every ranked document's label (holes, fidelity, xdcg).
JOIN = rank_run
# 2^(label + 1) overflows float64 above this label.
MAX_SUPPORTED_LABEL = 1022


def _unit(label_min: int, label_max: int) -> tuple[float, float]:
    return (0.0, 1.0)


def _count(label_min: int, label_max: int) -> tuple[float, float]:
    return (0.0, math.inf)


DEFINITIONS = (
    MetricDefinition(
        "ndcg_exp", FAMILY,
        "nDCG@k with exponential gain: sum_{i<=k} (2^r_i - 1)/log2(i+1) over the same sum for the ideal "
        "ordering of all judged documents (Azure's ndcg@3). NaN when the ideal sum is 0.",
        higher_is_better=True, cutoff=True, bounds=_unit, azure_threshold=0.5,
    ),
    MetricDefinition(
        "xdcg", FAMILY,
        "25 * sum_{i<=k} r_i 0.6^(i-1) / sum_{i<=k} 0.6^(i-1): position-weighted mean label scaled by 25 "
        "(0..100 for labels 0..4; Azure's xdcg@3).",
        higher_is_better=True, cutoff=True, bounds=lambda lo, hi: (0.0, 25.0 * hi), azure_threshold=50.0,
    ),
    MetricDefinition(
        "fidelity", FAMILY,
        "Graded recall over all retrieved documents: sum of w(label) over retrieved documents with "
        "label > label_min, divided by the same sum over all judged documents; w(v) = 2^(v+1) - 1. "
        "NaN when no judged document is above label_min.",
        higher_is_better=True, bounds=_unit, azure_threshold=0.5,
    ),
    MetricDefinition(
        "top1_relevance", FAMILY, "Label of the top-ranked document (0 when unjudged).",
        higher_is_better=True, integer=True, bounds=lambda lo, hi: (0.0, float(hi)), azure_threshold=50.0,
    ),
    MetricDefinition(
        "max_relevance", FAMILY, "Highest label among the top k documents (Azure's top3_max_relevance).",
        higher_is_better=True, cutoff=True, integer=True, bounds=lambda lo, hi: (0.0, float(hi)),
        azure_threshold=50.0, aliases=("top{k}_max_relevance",), grows_with_k=True,
    ),
    MetricDefinition(
        "holes", FAMILY, "Number of distinct retrieved documents without a judgment (count).",
        higher_is_better=False, integer=True, bounds=_count, azure_threshold=0,
    ),
    MetricDefinition(
        "holes_ratio", FAMILY,
        "holes / number of retrieved rows (repeated documents count in the denominator, as in Azure).",
        higher_is_better=False, bounds=_unit, azure_threshold=0,
    ),
    MetricDefinition(
        "holes", FAMILY,
        "Share of the k top slots taken by unjudged documents: unjudged among the top min(k, n) / k "
        "(BEIR's Hole@k; not an Azure metric).",
        higher_is_better=False, cutoff=True, bounds=_unit,
    ),
    MetricDefinition(
        "total_retrieved_documents", FAMILY, "Retrieved rows for the query, repeated documents included (count).",
        higher_is_better=True, integer=True, bounds=_count, azure_threshold=50,
    ),
    MetricDefinition(
        "total_ground_truth_documents", FAMILY, "Judged rows for the query, repeated documents included (count).",
        higher_is_better=True, integer=True, bounds=_count, azure_threshold=50,
    ),
)

_COLUMNS = {
    ("ndcg_exp", True): docret.NDCG_EXP,
    ("xdcg", True): docret.XDCG,
    ("fidelity", False): docret.FIDELITY,
    ("top1_relevance", False): docret.TOP1_RELEVANCE,
    ("max_relevance", True): docret.MAX_RELEVANCE,
    ("holes", False): docret.HOLES,
    ("holes_ratio", False): docret.HOLES_RATIO,
    ("holes", True): docret.HOLES_AT_K,
    ("total_retrieved_documents", False): docret.TOTAL_RETRIEVED,
    ("total_ground_truth_documents", False): docret.TOTAL_GROUND_TRUTH,
}


def column_of(metric: Metric) -> int:
    """The column of ``metric`` in :func:`metric_matrix`'s output."""
    return _COLUMNS[(metric.name, metric.k is not None)]


def default_metrics(k: int) -> list[Metric]:
    """Azure's metrics at cutoff k, plus holes@k."""
    return [Metric(d.name, k if d.cutoff else None) for d in DEFINITIONS]


@dataclass(frozen=True)
class LabelRange:
    """The configured label scale ``[label_min, label_max]`` (Azure's ground_truth_label_min/max).

    ``label_min`` is the "irrelevant" grade: fidelity counts only labels above it.
    """

    label_min: int = 0
    label_max: int = 4

    def __post_init__(self) -> None:
        for name in ("label_min", "label_max"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise ConfigError(f"{name} must be an integer, got {value!r}")
        if self.label_min >= self.label_max:
            raise ConfigError(f"label_max ({self.label_max}) must be greater than label_min ({self.label_min})")

    def check(self, qrels: Qrels) -> None:
        """Every label must lie in the range, and below the float64 limit of exponential gain."""
        qrels.check_label_range(self.label_min, self.label_max, option="label range (label_min, label_max)")
        if len(qrels) and int(qrels.labels.max()) > MAX_SUPPORTED_LABEL:
            row = int(np.argmax(qrels.labels))
            raise InputError(
                f"label {int(qrels.labels[row])} is too large: exponential gain 2^(label+1) overflows "
                f"float64 above {MAX_SUPPORTED_LABEL}",
                source=qrels.source, row=row + 1, field="relevance",
            )


def metric_matrix(ranked: RankedRun, qrels: Qrels, alignment: QueryAlignment, k: int, labels: LabelRange) -> np.ndarray:
    """Every metric of the family at cutoff k for the aligned queries: float64 ``(n_queries, N_COLUMNS)``."""
    log2_discounts, xdcg_weights, xdcg_norm = docret.discount_tables(k)
    return docret.document_retrieval_metrics(
        alignment.run_query,
        ranked.offsets,
        ranked.n_ranked,
        ranked.labels,
        ranked.judged,
        ranked.retrieved_rows,
        alignment.qrels_query,
        qrels.queries.offsets,
        qrels.n_judged,
        qrels.ideal_labels,
        qrels.queries.rows_per_query,
        k,
        labels.label_min,
        log2_discounts,
        xdcg_weights,
        xdcg_norm,
    )


def compute(
    qrels: Qrels, ranked: RankedRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: FamilyOptions
) -> dict[Metric, np.ndarray]:
    """Per-query values of ``metrics`` (all of this family): one kernel pass per distinct k."""
    labels = options.labels
    labels.check(qrels)
    # Metrics without a cutoff come out of any pass; use the first k asked for (or 1).
    cutoffs = sorted({m.k for m in metrics if m.k is not None}) or [1]
    matrices = {k: metric_matrix(ranked, qrels, alignment, k, labels) for k in cutoffs}
    return {m: matrices[m.k if m.k is not None else cutoffs[0]][:, column_of(m)] for m in metrics}
