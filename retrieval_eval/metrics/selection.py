"""Which metrics an evaluation computes: names parsed into metrics, thresholds, and the reference's conventions."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ConfigError
from .families.document_retrieval import DOCUMENT_RETRIEVAL, default_metrics
from .names import Metric
from .options import Conventions
from .registry import REGISTRY
from .result import Threshold
from .spellings.peers import is_peer_only_name, measure_text, parse_peer, split_names
from .spellings.trec_eval import expand, is_trec_eval_name

#: Thresholds as given: ``{metric: value}``, or ``(metric, value)`` pairs (the command line's
#: repeated ``--threshold``, where a repeat must not vanish into a dict before it is seen).
Thresholds = Mapping[str | Metric, float] | Iterable[tuple[str | Metric, float]]


#: Metrics under the names they go by, in order: ``(name, metric)``.
NamedMetrics = list[tuple[str, Metric]]


def resolve_named_metrics(metrics: Iterable[object] | str | None, k: int, rel_level: int = 1) -> NamedMetrics:
    """Parse metric names into ``(name, metric)`` pairs, each name once, in the order given; None gives the default set at k.

    A metric goes by the name it was asked by: ``"P@5"`` stays ``P@5``, an ir_measures measure
    object by ir_measures' name for it, a :class:`Metric` by its canonical name. A name that means
    several metrics goes by theirs: trec_eval's names and nicknames expand as trec_eval expands
    them (``P`` is ``P_5``, ..., ``P_1000``; ``P.5,10``; ``official``), and k never replaces a
    cutoff they imply. A string may list several names separated by spaces, as ir_measures writes
    them (``"nDCG@10 P@5"``). Other names without a cutoff take k.

    Two names of one metric (``P@5`` and ``precision@5``) are two names of one computation: both
    are kept, with the same values.
    """
    if metrics is None:
        return [(str(metric), metric) for metric in default_metrics(k)]
    if isinstance(metrics, (str, Metric)) or measure_text(metrics) is not None:
        metrics = [metrics]
    if not isinstance(metrics, Iterable):
        raise ConfigError(f"metrics must be a name, a Metric or a list of them, got {type(metrics).__name__}")
    named: dict[str, Metric] = {}
    for item in metrics:
        for name, metric in _named(item, k, rel_level):
            if named.setdefault(name, metric) != metric:
                raise ConfigError(f"the name {name} stands for two metrics, {named[name]} and {metric}")
    if not named:
        raise ConfigError("no metrics given")
    return list(named.items())


def _named(item: object, k: int, rel_level: int) -> NamedMetrics:
    """The ``(name, metric)`` pairs one item of a metric list means (a name, a list of names, an object)."""
    if isinstance(item, Metric):
        metric = REGISTRY.parse(item)
        return [(str(metric), metric)]
    text = measure_text(item)
    if text is None:
        if not isinstance(item, str):
            raise ConfigError(f"a metric is a name (str), a Metric or an ir_measures measure, got {type(item).__name__} {item!r:.60}")
        text = item
    pairs: NamedMetrics = []
    for name in split_names(text):
        if is_trec_eval_name(name) and not is_peer_only_name(name):
            pairs.extend(expand(name, rel_level=rel_level))
        else:
            metric = parse_peer(name, rel_level=rel_level, default_k=k)
            metric = metric or REGISTRY.parse(name, default_k=k, defaults={"rel": rel_level})
            pairs.append((_with_default_cutoff(name, metric, rel_level), metric))
    return pairs


def _with_default_cutoff(name: str, metric: Metric, rel_level: int) -> str:
    """``name``, with ``@k`` added when the cutoff came from the default k (``xdcg`` at k=5 goes by ``xdcg@5``)."""
    if metric.k is None:
        return name
    try:
        parse_peer(name, rel_level=rel_level, default_k=None) or REGISTRY.parse(name, defaults={"rel": rel_level})
    except ConfigError:
        return f"{name.strip()}@{metric.k}"
    return name


def resolve_metrics(metrics: Iterable[object] | str | None, k: int, rel_level: int = 1) -> list[Metric]:
    """The distinct metrics of :func:`resolve_named_metrics`, in order (a list of metrics is a set)."""
    return list(dict.fromkeys(metric for _, metric in resolve_named_metrics(metrics, k, rel_level)))


def resolve_thresholds(thresholds: Thresholds | None, k: int, rel_level: int = 1) -> list[Threshold]:
    """Parse ``{metric: value}`` or ``(metric, value)`` pairs; values must be finite numbers.

    The rule for an option given twice: a metric may have one threshold. A second one for the
    same metric, under the same spelling or another (``P@5`` and ``precision@5``; ``ndcg_exp``
    and ``ndcg_exp@3`` when k is 3), is an error naming both, even when the values agree, so
    that no threshold silently replaces another.
    """
    resolved: dict[Metric, tuple[str, Threshold]] = {}
    for name, value in _threshold_pairs(thresholds):
        named = _named(name, k, rel_level)
        if len(named) != 1:
            # A threshold is for one metric: a trec_eval name of several (recall) means the registry's, at k.
            metric = REGISTRY.parse(name, default_k=k, defaults={"rel": rel_level})
            named = [(_with_default_cutoff(name, metric, rel_level), metric)]
        label, metric = named[0]
        # numpy numbers register as Real; a bool is no threshold.
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise ConfigError(f"threshold for {metric} must be a finite number, got {value!r}")
        if metric in resolved:
            spelling, first = resolved[metric]
            raise ConfigError(
                f"{metric} has two thresholds, {spelling}={first.value!r} and {name}={float(value)!r}: give it one"
            )
        resolved[metric] = (str(name), Threshold(metric, float(value), REGISTRY.definition(metric).higher_is_better, label))
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
    metrics: Iterable[object] | str | None,
    thresholds: Thresholds | None,
    k: int,
    rel_level: int = 1,
    objective: str | None = None,
) -> tuple[NamedMetrics, list[Threshold], tuple[str, Metric]]:
    """The metrics to compute under their names, the parsed thresholds and the objective under its name.

    The objective (:func:`resolve_objective`) not asked for comes after the metrics asked for, under
    its own name; then a thresholded metric not asked for, under its threshold's name.
    """
    named = resolve_named_metrics(metrics, k, rel_level)
    goal = resolve_objective(objective, named, k, rel_level)
    if goal not in named:
        named.append(goal)
    threshold_list = resolve_thresholds(thresholds, k, rel_level)
    asked = {metric for _, metric in named}
    named += [(threshold.name, threshold.metric) for threshold in threshold_list if threshold.metric not in asked]
    return named, threshold_list, goal


def resolve_objective(objective: str | None, named: NamedMetrics, k: int, rel_level: int = 1) -> tuple[str, Metric]:
    """The metric that ranks runs (a leaderboard's) under its name: the first of ``named`` by default; a metric of
    ``named`` (under any of its names) goes by its name there; another by its own name. One name of several
    metrics (trec_eval's ``P``) is a :class:`ConfigError`."""
    if objective is None:
        return named[0]
    by_name = dict(named)
    if objective in by_name:
        return objective, by_name[objective]
    asked = resolve_named_metrics([objective], k, rel_level)
    if len(asked) != 1:
        raise ConfigError(f"the objective is one metric, and {objective} means {len(asked)}: {', '.join(n for n, _ in asked)}")
    name, metric = asked[0]
    return next(((listed, metric) for listed, listed_metric in named if listed_metric == metric), (name, metric))


def conventions_for(metrics: Iterable[Metric]) -> Conventions:
    """trec_eval's conventions when any metric of a trec_eval family is asked for (the TREC measures,
    judgment groups, preferences: each family holds its reference's), azure-ai-evaluation's otherwise."""
    others = [family for family in map(REGISTRY.family, metrics) if family is not DOCUMENT_RETRIEVAL]
    return others[0].conventions if others else DOCUMENT_RETRIEVAL.conventions
