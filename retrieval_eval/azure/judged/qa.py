"""Drop-in for azure-ai-evaluation's ``QAEvaluator`` (1.18.10): groundedness, relevance, coherence, fluency,
similarity and F1 of one answer, each with its own threshold.

The output dict is the six evaluators' dicts one after another, in that order (the SDK runs them
in parallel and adds each dict as it finishes, so its key order varies from call to call; with
``_parallel=False`` it is this order). Groundedness is given the query, so it uses the prompt
that reads it. Thresholds must be ints or floats (the SDK's message otherwise).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ...judging.limits import Limits, RetryPolicy
from ..exceptions import EvaluationException
from ..f1_score import F1ScoreEvaluator
from .base import JudgedEvaluator
from .batch import BatchOutputs, merged_totals
from .grounding import GroundednessEvaluator
from .quality import CoherenceEvaluator, FluencyEvaluator, RelevanceEvaluator, SimilarityEvaluator

_JUDGED = (("groundedness", GroundednessEvaluator), ("relevance", RelevanceEvaluator),
           ("coherence", CoherenceEvaluator), ("fluency", FluencyEvaluator), ("similarity", SimilarityEvaluator))
_INPUTS = ("query", "response", "context", "ground_truth")


class QAEvaluator:
    """Six evaluators of one answer (``query``, ``response``, ``context``, ``ground_truth``); the SDK's constructor,
    call and keys. ``cache`` should be a directory here (one file per judge)."""

    id = "azureai://built-in/evaluators/qa"

    def __init__(
        self,
        model_config: Any,
        *,
        groundedness_threshold: float = 3,
        relevance_threshold: float = 3,
        coherence_threshold: float = 3,
        fluency_threshold: float = 3,
        similarity_threshold: float = 3,
        f1_score_threshold: float = 0.5,
        cache: str | os.PathLike[str] | None = None,
        cache_mode: str = "read-write",
        limits: Limits | None = None,
        retry: RetryPolicy | None = None,
        request_timeout: float = 600.0,
        **kwargs: Any,
    ) -> None:
        thresholds = {"groundedness": groundedness_threshold, "relevance": relevance_threshold,
                      "coherence": coherence_threshold, "fluency": fluency_threshold,
                      "similarity": similarity_threshold, "f1_score": f1_score_threshold}
        for name, value in thresholds.items():
            if not isinstance(value, (int, float)):
                raise EvaluationException(f"{name}_threshold must be an int or float, got {type(value)}")
        extras = {"cache": cache, "cache_mode": cache_mode, "limits": limits, "retry": retry,
                  "request_timeout": request_timeout, "is_reasoning_model": kwargs.get("is_reasoning_model", False)}
        self._parallel = kwargs.get("_parallel", True)
        self._judged: list[JudgedEvaluator] = [cls(model_config, threshold=thresholds[name], **extras)
                                               for name, cls in _JUDGED]
        self._f1 = F1ScoreEvaluator(threshold=f1_score_threshold)

    def __call__(self, *, query: Any = None, response: Any = None, context: Any = None, ground_truth: Any = None,
                 **kwargs: Any) -> dict[str, Any]:
        """The six evaluators' dicts, merged in their order."""
        values = {"query": query, "response": response, "context": context, "ground_truth": ground_truth}
        if kwargs.get("conversation") is not None:
            raise EvaluationException("QAEvaluator: conversations are not supported by this drop-in; give the inputs.")
        if any(value is None for value in values.values()):
            raise EvaluationException("QAEvaluator: Either 'conversation' or individual inputs must be provided.")
        if self._parallel:
            with ThreadPoolExecutor(max_workers=len(self._judged)) as pool:
                parts = list(pool.map(lambda evaluator: evaluator(**values), self._judged))
        else:
            parts = [evaluator(**values) for evaluator in self._judged]
        merged: dict[str, Any] = {}
        for part in parts + [self._f1(response=response, ground_truth=ground_truth)]:
            merged.update(part)
        return merged

    def evaluate_batch(self, rows: Sequence[Mapping[str, Any]]) -> BatchOutputs:
        """Judge every row (``query``, ``response``, ``context``, ``ground_truth``), each judge's rows concurrently."""
        batches = [evaluator.evaluate_batch([{name: row.get(name) for name in _INPUTS} for row in rows])
                   for evaluator in self._judged]
        outputs: list[dict[str, Any] | None] = []
        errors: dict[str, list[str]] = {}
        for index, row in enumerate(rows):
            key = str(index + 1)
            parts = [batch.outputs[index] for batch in batches]
            for batch in batches:
                errors.setdefault(key, []).extend(reason for name, reason in batch.errors if name == key)
            if any(value is None for value in (row.get(name) for name in _INPUTS)):
                errors[key] = ["QAEvaluator: Either 'conversation' or individual inputs must be provided."]
                outputs.append(None)
                continue
            if any(part is None for part in parts):
                outputs.append(None)
                continue
            merged: dict[str, Any] = {}
            for part in parts + [self._f1(response=row["response"], ground_truth=row["ground_truth"])]:
                merged.update(part)
            outputs.append(merged)
        listed = tuple((key, "; ".join(reasons)) for key, reasons in errors.items() if reasons)
        return BatchOutputs(tuple(outputs), listed, merged_totals([batch.totals for batch in batches], len(rows),
                                                                  len(listed)))
