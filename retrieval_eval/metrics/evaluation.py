"""``evaluate()``: score one run against qrels."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..data import Qrels, Run
from ..data._table import duplicate_policy_code
from ..data.join import QUERY_SETS, TIE_ORDERS, QueryAlignment, align_queries
from ..errors import ConfigError
from . import document_retrieval, trec
from .document_retrieval import LabelRange
from .families import AZURE_CONVENTIONS, FAMILIES, TREC_CONVENTIONS, Conventions, FamilyOptions
from .names import Metric, parse_cutoff
from .registry import REGISTRY
from .result import EvaluationResult, Threshold, build_result

DEFAULT_K = 3
_TREC_CUTOFF_LIST = re.compile(r"^\s*(?P<base>[^@()]+?)\.(?P<cutoffs>\d+(?:,\d+)+)\s*$")


def evaluate(
    qrels: Any,
    run: Any,
    metrics: Iterable[str | Metric] | str | None = None,
    *,
    k: int = DEFAULT_K,
    thresholds: Mapping[str | Metric, float] | None = None,
    label_min: int = 0,
    label_max: int = 4,
    rel_level: int = 1,
    query_set: str | None = None,
    ties: str | None = None,
    max_docs: int | None = None,
    run_duplicates: str | None = None,
    qrels_duplicates: str | None = None,
) -> EvaluationResult:
    """Score ``run`` against ``qrels``: a per-query table and a summary.

    Options left at None follow the reference of the metrics asked for: trec_eval's when any
    TREC measure is asked for (``query_set="both"``, duplicates raise), azure-ai-evaluation's
    otherwise (``query_set="qrels"``, the last duplicate wins). Ties always follow each metric's
    own reference unless ``ties`` is given.

    Parameters
    ----------
    qrels, run
        A :class:`Qrels`/:class:`Run`, a path (TREC text, parquet, CSV/TSV, JSONL; optionally
        .gz), a pandas DataFrame, a pyarrow Table, or a list of row dicts.
    metrics
        Metric names (``"ndcg@10"``, ``"P_5"``, ``"ndcg_exp@10"``, ``"fidelity"``, ...); a name
        that needs a cutoff and has none takes ``k``. Default: Azure's document-retrieval metrics
        at ``k`` plus ``holes@k``.
    k
        Default cutoff (Azure's evaluator uses 3).
    thresholds
        ``{metric: value}``. Adds per-query ``<metric>_passed`` columns and a verdict; a metric
        passes when its mean is >= value (<= for lower-is-better metrics such as holes).
        Thresholded metrics are evaluated even when not listed in ``metrics``.
    label_min, label_max
        The label scale of the document-retrieval metrics (Azure's ground_truth_label_min/max);
        labels outside it are an error when such a metric is asked for. ``label_min`` is the
        irrelevant grade for fidelity.
    rel_level
        TREC measures: a document is relevant when its label is >= rel_level (trec_eval's
        ``-l``), unless the metric's name sets ``rel`` itself (``precision(rel=2)@10``).
    query_set
        ``"qrels"`` (every judged query; one the run lacks counts as retrieving nothing;
        trec_eval's ``-c``), ``"both"`` (only queries in both; trec_eval's default), ``"union"``
        (also the run's unjudged queries).
    ties
        How equal scores are ordered for every metric: ``"docid"`` (descending document id,
        trec_eval) or ``"input"`` (input order, azure-ai-evaluation and ranx).
    max_docs
        TREC measures: rank only the top max_docs documents of each query (trec_eval's ``-M``).
    run_duplicates, qrels_duplicates
        A document repeated within a query: which score/label counts, ``"last"``, ``"first"``,
        ``"max"``, or ``"raise"`` (an error naming the first repeated row).

    Examples
    --------
    >>> result = evaluate("data/qrels.trec", "data/run.trec", ["ndcg@10", "map", "ndcg_exp@10"])  # doctest: +SKIP
    >>> result.summary["mean"]  # doctest: +SKIP
    """
    plan = plan_evaluation(
        metrics,
        k=k,
        thresholds=thresholds,
        label_min=label_min,
        label_max=label_max,
        rel_level=rel_level,
        query_set=query_set,
        ties=ties,
        max_docs=max_docs,
        run_duplicates=run_duplicates,
        qrels_duplicates=qrels_duplicates,
    )
    qrels = Qrels.read(qrels, duplicates=plan.qrels_duplicates)
    run = Run.read(run)
    alignment = align_queries(qrels, run, plan.query_set)
    counts = {
        "evaluated": len(alignment.query_ids),
        "judged_only": alignment.n_judged_only,
        "retrieved_only": alignment.n_retrieved_only,
        "both": alignment.n_both,
    }
    return build_result(
        run.name,
        alignment.query_ids.to_pandas(),
        plan.score(qrels, run, alignment),
        plan.integer_metrics,
        list(plan.thresholds),
        counts,
        plan.geometric_metrics,
    )


@dataclass(frozen=True, eq=False)
class EvaluationPlan:
    """What an evaluation computes and by which rules, resolved once from the user's options.

    Every option left at None is settled here from the conventions of the metrics' reference
    (see :func:`evaluate`), so that each piece of a run scored apart (a chunk of a stream, a
    partition on a cluster) follows the same rules.
    """

    metrics: tuple[Metric, ...]
    thresholds: tuple[Threshold, ...]
    options: FamilyOptions
    query_set: str
    ties: str | None
    run_duplicates: str
    qrels_duplicates: str

    @property
    def integer_metrics(self) -> set[Metric]:
        return {m for m in self.metrics if REGISTRY.definition(m).integer}

    @property
    def geometric_metrics(self) -> set[Metric]:
        return {m for m in self.metrics if REGISTRY.definition(m).geometric}

    def score(self, qrels: Qrels, run: Run, alignment: QueryAlignment) -> dict[Metric, np.ndarray]:
        """Each metric's value for each query of ``alignment``, in ``self.metrics`` order."""
        by_family: dict[str, list[Metric]] = {}
        for metric in self.metrics:
            by_family.setdefault(REGISTRY.definition(metric).family, []).append(metric)
        joins: dict[tuple[Any, str], Any] = {}
        columns: dict[Metric, np.ndarray] = {}
        for family, family_metrics in by_family.items():
            module = FAMILIES[family]
            key = (module.JOIN, self.ties or module.TIES)
            if key not in joins:
                joins[key] = module.JOIN(qrels, run, duplicates=self.run_duplicates, ties=key[1])
            columns.update(module.compute(qrels, joins[key], alignment, family_metrics, self.options))
        return {metric: columns[metric] for metric in self.metrics}


def plan_evaluation(
    metrics: Iterable[str | Metric] | str | None = None,
    *,
    k: int = DEFAULT_K,
    thresholds: Mapping[str | Metric, float] | None = None,
    label_min: int = 0,
    label_max: int = 4,
    rel_level: int = 1,
    query_set: str | None = None,
    ties: str | None = None,
    max_docs: int | None = None,
    run_duplicates: str | None = None,
    qrels_duplicates: str | None = None,
) -> EvaluationPlan:
    """Check the options of :func:`evaluate` (same meaning) and settle the defaults."""
    k = _positive("the cutoff k", k)
    rel_level = _positive("rel_level", rel_level)
    if max_docs is not None:
        max_docs = _positive("max_docs", max_docs)
    metric_list, threshold_list = resolve_metrics_and_thresholds(metrics, thresholds, k, rel_level)
    conventions = conventions_for(metric_list)
    query_set = query_set or conventions.query_set
    if query_set not in QUERY_SETS:
        raise ConfigError(f"query_set must be one of {list(QUERY_SETS)}, got {query_set!r}")
    if ties is not None and ties not in TIE_ORDERS:
        raise ConfigError(f"ties must be one of {list(TIE_ORDERS)}, got {ties!r}")
    run_duplicates = run_duplicates or conventions.duplicates
    qrels_duplicates = qrels_duplicates or conventions.duplicates
    duplicate_policy_code(run_duplicates, what="run duplicates")
    duplicate_policy_code(qrels_duplicates, what="qrels duplicates")
    return EvaluationPlan(
        tuple(metric_list),
        tuple(threshold_list),
        FamilyOptions(LabelRange(label_min, label_max), max_docs),
        query_set,
        ties,
        run_duplicates,
        qrels_duplicates,
    )


def resolve_metrics_and_thresholds(
    metrics: Iterable[str | Metric] | str | None,
    thresholds: Mapping[str | Metric, float] | None,
    k: int,
    rel_level: int = 1,
) -> tuple[list[Metric], list[Threshold]]:
    """The metrics to compute (thresholded ones included) and the parsed thresholds."""
    metric_list = resolve_metrics(metrics, k, rel_level)
    threshold_list = resolve_thresholds(thresholds, k, rel_level)
    for threshold in threshold_list:
        if threshold.metric not in metric_list:
            metric_list.append(threshold.metric)
    return metric_list, threshold_list


def conventions_for(metrics: Iterable[Metric]) -> Conventions:
    """trec_eval's conventions when any TREC measure is asked for, else azure-ai-evaluation's."""
    families = {REGISTRY.definition(metric).family for metric in metrics}
    return TREC_CONVENTIONS if trec.FAMILY in families else AZURE_CONVENTIONS


def resolve_metrics(metrics: Iterable[str | Metric] | str | None, k: int, rel_level: int = 1) -> list[Metric]:
    """Parse metric names (duplicates removed, order kept); None gives the default set at k."""
    if metrics is None:
        return document_retrieval.default_metrics(k)
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    parsed: list[Metric] = []
    for name in (item for given in metrics for item in _cutoff_list(given)):
        metric = REGISTRY.parse(name, default_k=k, defaults={"rel": rel_level})
        if metric not in parsed:
            parsed.append(metric)
    if not parsed:
        raise ConfigError("no metrics given")
    return parsed


def resolve_thresholds(
    thresholds: Mapping[str | Metric, float] | None, k: int, rel_level: int = 1
) -> list[Threshold]:
    """Parse ``{metric: value}``; values must be finite numbers."""
    resolved = []
    for name, value in (thresholds or {}).items():
        metric = REGISTRY.parse(name, default_k=k, defaults={"rel": rel_level})
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
            raise ConfigError(f"threshold for {metric} must be a finite number, got {value!r}")
        resolved.append(Threshold(metric, float(value), REGISTRY.definition(metric).higher_is_better))
    return resolved


def _cutoff_list(name: str | Metric) -> list[str | Metric]:
    """trec_eval's measure lists: ``P.5,10`` is ``P.5`` and ``P.10``."""
    match = _TREC_CUTOFF_LIST.match(name) if isinstance(name, str) else None
    if match is None:
        return [name]
    return [f"{match['base']}.{cutoff}" for cutoff in match["cutoffs"].split(",")]


def _positive(name: str, value: Any) -> int:
    """A positive integer option (an int, or text such as "10")."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        try:
            return parse_cutoff(str(value))
        except ValueError:
            raise ConfigError(f"{name} must be a positive integer, got {value!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be a positive integer, got {value}")
    return int(value)
