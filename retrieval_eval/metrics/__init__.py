"""Metric registry, name grammar, evaluation and results."""

from .evaluate import evaluate
from .names import Metric
from .registry import REGISTRY, MetricDefinition
from .result import EvaluationResult, EvaluationSummary, Threshold

__all__ = ["REGISTRY", "EvaluationResult", "EvaluationSummary", "Metric", "MetricDefinition", "Threshold", "evaluate"]
