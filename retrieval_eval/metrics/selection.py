"""Which metrics an evaluation computes: names parsed into metrics, thresholds, and the reference's conventions."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Mapping

from ..errors import ConfigError
from .document_retrieval import DOCUMENT_RETRIEVAL, default_metrics
from .names import Metric
from .options import Conventions
from .registry import REGISTRY
from .result import Threshold
from .trec import TREC

_TREC_CUTOFF_LIST = re.compile(r"^\s*(?P<base>[^@()]+?)\.(?P<cutoffs>\d+(?:,\d+)+)\s*$")


def resolve_metrics(metrics: Iterable[str | Metric] | str | None, k: int, rel_level: int = 1) -> list[Metric]:
    """Parse metric names (duplicates removed, order kept); None gives the default set at k."""
    if metrics is None:
        return default_metrics(k)
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
        # numpy numbers register as Real; a bool is no threshold.
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise ConfigError(f"threshold for {metric} must be a finite number, got {value!r}")
        resolved.append(Threshold(metric, float(value), REGISTRY.definition(metric).higher_is_better))
    return resolved


def resolve_metrics_and_thresholds(
    metrics: Iterable[str | Metric] | str | None,
    thresholds: Mapping[str | Metric, float] | None,
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
    """trec_eval's conventions when any TREC measure is asked for, else azure-ai-evaluation's."""
    families = {REGISTRY.family(metric) for metric in metrics}
    return TREC.conventions if TREC in families else DOCUMENT_RETRIEVAL.conventions


def _cutoff_list(name: str | Metric) -> list[str | Metric]:
    """trec_eval's measure lists: ``P.5,10`` is ``P.5`` and ``P.10``."""
    match = _TREC_CUTOFF_LIST.match(name) if isinstance(name, str) else None
    if match is None:
        return [name]
    return [f"{match['base']}.{cutoff}" for cutoff in match["cutoffs"].split(",")]
