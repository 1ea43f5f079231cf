"""Which metrics an evaluation computes: names parsed into metrics, thresholds, and the reference's conventions."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ConfigError
from .document_retrieval import DOCUMENT_RETRIEVAL, default_metrics
from .names import Metric
from .options import Conventions
from .registry import REGISTRY
from .result import Threshold
from .trec_eval_measures import expand

#: Thresholds as given: ``{metric: value}``, or ``(metric, value)`` pairs (the command line's
#: repeated ``--threshold``, where a repeat must not vanish into a dict before it is seen).
Thresholds = Mapping[str | Metric, float] | Iterable[tuple[str | Metric, float]]


def resolve_metrics(metrics: Iterable[str | Metric] | str | None, k: int, rel_level: int = 1) -> list[Metric]:
    """Parse metric names (duplicates removed, order kept); None gives the default set at k.

    trec_eval's measure names and nicknames expand as trec_eval expands them (``P`` is P at 5,
    10, ..., 1000; ``P.5,10`` at 5 and 10; ``official``, ``all_trec``): k never replaces a cutoff
    they imply. Other names without a cutoff take k.

    A metric listed twice (``P@5`` and ``precision@5``) is computed once: a list of metrics is a set.
    """
    if metrics is None:
        return default_metrics(k)
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if not isinstance(metrics, Iterable):
        raise ConfigError(f"metrics must be a name, a Metric or a list of them, got {type(metrics).__name__}")
    parsed = expand(metrics, rel_level=rel_level, default_k=k)
    if not parsed:
        raise ConfigError("no metrics given")
    return parsed


def resolve_thresholds(thresholds: Thresholds | None, k: int, rel_level: int = 1) -> list[Threshold]:
    """Parse ``{metric: value}`` or ``(metric, value)`` pairs; values must be finite numbers.

    The rule for an option given twice: a metric may have one threshold. A second one for the
    same metric, under the same spelling or another (``P@5`` and ``precision@5``; ``ndcg_exp``
    and ``ndcg_exp@3`` when k is 3), is an error naming both, even when the values agree, so
    that no threshold silently replaces another.
    """
    resolved: dict[Metric, tuple[str, Threshold]] = {}
    for name, value in _threshold_pairs(thresholds):
        metric = REGISTRY.parse(name, default_k=k, defaults={"rel": rel_level})
        # numpy numbers register as Real; a bool is no threshold.
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise ConfigError(f"threshold for {metric} must be a finite number, got {value!r}")
        if metric in resolved:
            spelling, first = resolved[metric]
            raise ConfigError(
                f"{metric} has two thresholds, {spelling}={first.value!r} and {name}={float(value)!r}: give it one"
            )
        resolved[metric] = (str(name), Threshold(metric, float(value), REGISTRY.definition(metric).higher_is_better))
    return [threshold for _, threshold in resolved.values()]


def _threshold_pairs(thresholds: Thresholds | None) -> list[tuple[str | Metric, Any]]:
    """The (metric, value) pairs of ``thresholds`` as given, in order, repeats kept."""
    if thresholds is None:
        return []
    if isinstance(thresholds, Mapping):
        return list(thresholds.items())
    if isinstance(thresholds, (str, bytes)) or not isinstance(thresholds, Iterable):
        raise ConfigError(f"thresholds are {{metric: value}} or (metric, value) pairs, got {type(thresholds).__name__}")
    pairs = [tuple(pair) if isinstance(pair, (tuple, list)) else pair for pair in thresholds]
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise ConfigError(f"thresholds are {{metric: value}} or (metric, value) pairs, got the item {pair!r:.60}")
    return pairs


def resolve_metrics_and_thresholds(
    metrics: Iterable[str | Metric] | str | None,
    thresholds: Thresholds | None,
    k: int,
    rel_level: int = 1,
) -> tuple[list[Metric], list[Threshold]]:
    """The metrics to compute (thresholded ones included, after those asked for) and the parsed thresholds."""
    metric_list = resolve_metrics(metrics, k, rel_level)
    threshold_list = resolve_thresholds(thresholds, k, rel_level)
    for threshold in threshold_list:
        if threshold.metric not in metric_list:
            metric_list.append(threshold.metric)
    return metric_list, threshold_list


def conventions_for(metrics: Iterable[Metric]) -> Conventions:
    """trec_eval's conventions when any metric of a trec_eval family is asked for (the TREC measures,
    judgment groups, preferences: each family holds its reference's), azure-ai-evaluation's otherwise."""
    others = [family for family in map(REGISTRY.family, metrics) if family is not DOCUMENT_RETRIEVAL]
    return others[0].conventions if others else DOCUMENT_RETRIEVAL.conventions
