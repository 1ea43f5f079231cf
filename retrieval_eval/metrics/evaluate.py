"""``evaluate()``: score one run against qrels."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..data import Qrels, Run
from ..data.join import align_queries
from ..errors import ConfigError
from . import document_retrieval
from .document_retrieval import LabelRange
from .names import Metric, parse_cutoff
from .registry import REGISTRY
from .result import EvaluationResult, Threshold, build_result

DEFAULT_K = 3


def evaluate(
    qrels: Any,
    run: Any,
    metrics: Iterable[str | Metric] | str | None = None,
    *,
    k: int = DEFAULT_K,
    thresholds: Mapping[str | Metric, float] | None = None,
    label_min: int = 0,
    label_max: int = 4,
    query_set: str = "qrels",
    run_duplicates: str = "last",
    qrels_duplicates: str = "last",
) -> EvaluationResult:
    """Score ``run`` against ``qrels``: a per-query table and a summary.

    Parameters
    ----------
    qrels, run
        A :class:`Qrels`/:class:`Run`, a path (TREC text, parquet, CSV/TSV, JSONL; optionally
        .gz), a pandas DataFrame, a pyarrow Table, or a list of row dicts.
    metrics
        Metric names (``"ndcg_exp@10"``, ``"fidelity"``, ...); a name that needs a cutoff and has
        none takes ``k``. Default: Azure's document-retrieval metrics at ``k`` plus ``holes@k``.
    k
        Default cutoff (Azure's evaluator uses 3).
    thresholds
        ``{metric: value}``. Adds per-query ``<metric>_passed`` columns and a verdict; a metric
        passes when its mean is >= value (<= for lower-is-better metrics such as holes).
        Thresholded metrics are evaluated even when not listed in ``metrics``.
    label_min, label_max
        The label scale (Azure's ground_truth_label_min/max); labels outside it are an error.
        ``label_min`` is the irrelevant grade for fidelity.
    query_set
        ``"qrels"`` (every judged query; one the run lacks counts as retrieving nothing),
        ``"both"`` (only queries in both), ``"union"`` (also the run's unjudged queries).
    run_duplicates, qrels_duplicates
        A document repeated within a query: which score/label counts, ``"last"`` (Azure),
        ``"first"``, ``"max"``, or ``"raise"``.

    Examples
    --------
    >>> result = evaluate("data/qrels.trec", "data/run.trec", ["ndcg_exp@10", "holes@10"])  # doctest: +SKIP
    >>> result.summary["mean"]  # doctest: +SKIP
    """
    k = _check_k(k)
    labels = LabelRange(label_min, label_max)
    metric_list = resolve_metrics(metrics, k)
    threshold_list = resolve_thresholds(thresholds, k)
    for threshold in threshold_list:
        if threshold.metric not in metric_list:
            metric_list.append(threshold.metric)
    qrels = Qrels.read(qrels, duplicates=qrels_duplicates)
    run = Run.read(run)
    alignment = align_queries(qrels, run, query_set)
    columns = document_retrieval.compute(qrels, run, alignment, metric_list, labels=labels, run_duplicates=run_duplicates)
    integer_metrics = {m for m in metric_list if REGISTRY.definition(m).integer}
    counts = {
        "evaluated": len(alignment.query_ids),
        "judged_only": alignment.n_judged_only,
        "retrieved_only": alignment.n_retrieved_only,
        "both": alignment.n_both,
    }
    return build_result(
        run.name, alignment.query_ids.to_pandas(), {m: columns[m] for m in metric_list}, integer_metrics, threshold_list, counts
    )


def resolve_metrics(metrics: Iterable[str | Metric] | str | None, k: int) -> list[Metric]:
    """Parse metric names (duplicates removed, order kept); None gives the default set at k."""
    if metrics is None:
        return document_retrieval.default_metrics(k)
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    parsed: list[Metric] = []
    for name in metrics:
        metric = REGISTRY.parse(name, default_k=k)
        if metric not in parsed:
            parsed.append(metric)
    if not parsed:
        raise ConfigError("no metrics given")
    return parsed


def resolve_thresholds(thresholds: Mapping[str | Metric, float] | None, k: int) -> list[Threshold]:
    """Parse ``{metric: value}``; values must be finite numbers."""
    resolved = []
    for name, value in (thresholds or {}).items():
        metric = REGISTRY.parse(name, default_k=k)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
            raise ConfigError(f"threshold for {metric} must be a finite number, got {value!r}")
        resolved.append(Threshold(metric, float(value), REGISTRY.definition(metric).higher_is_better))
    return resolved


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        try:
            return parse_cutoff(str(k))
        except ValueError as error:
            raise ConfigError(str(error)) from None
    if k <= 0:
        raise ConfigError(f"the cutoff k must be a positive integer, got {k}")
    return int(k)
