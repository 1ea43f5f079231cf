"""Metric registry, name grammar, options, the Evaluator and results (each loaded on first use)."""

from __future__ import annotations

from .._lazy import lazy_attributes

_EXPORTS = {
    "REGISTRY": ".registry",
    "MetricDefinition": ".definition",
    "Metric": ".names",
    "EvaluationOptions": ".options",
    "Evaluator": ".evaluator",
    "EvaluationPlan": ".evaluator",
    "NoSharedQueriesWarning": ".evaluator",
    "evaluate": ".evaluation",
    "EvaluationResult": ".result",
    "EvaluationSummary": ".result",
    "Threshold": ".result",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
