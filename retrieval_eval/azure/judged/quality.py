"""Drop-ins for azure-ai-evaluation's judged answer-quality evaluators (1.18.10): relevance, coherence, fluency,
similarity and response completeness, each a 1-5 score from a model (higher is better, pass at ``threshold``).

Each takes the SDK's ``model_config`` (Azure OpenAI or OpenAI), ``threshold=3``, ``credential``,
``is_reasoning_model`` and the extras of :class:`~.base.JudgedEvaluator`, is called with the SDK's
keywords, and returns the SDK's dict (see :mod:`.base`, :mod:`.reply`, :mod:`.inputs`).
"""

from __future__ import annotations

from typing import Any

from ..exceptions import EvaluationException
from . import prompts
from .base import JudgedEvaluator


class RelevanceEvaluator(JudgedEvaluator):
    """How well ``response`` addresses ``query`` (or each turn of ``conversation=``), 1-5.

    Output keys: ``relevance``, ``relevance_score``, ``relevance_passed``, ``relevance_result``,
    ``relevance_reason``, ``relevance_status``, ``relevance_threshold``, ``relevance_properties``.
    """

    _RESULT_KEY = "relevance"
    _PROMPT = prompts.RELEVANCE
    _FIELDS = ("query", "response")
    _CALL_FIELDS = ("query", "response")
    _CHECKED = ("query", "response")
    _DIRECT = True
    id = "azureai://built-in/evaluators/relevance"


class CoherenceEvaluator(JudgedEvaluator):
    """How logically ``response`` (to ``query``) holds together, 1-5; keys ``coherence``, ``coherence_score``, ..."""

    _RESULT_KEY = "coherence"
    _PROMPT = prompts.COHERENCE
    _FIELDS = ("query", "response")
    _CALL_FIELDS = ("query", "response")
    _CHECKED = ("query", "response")
    id = "azureai://built-in/evaluators/coherence"


class FluencyEvaluator(JudgedEvaluator):
    """How well written ``response`` is, 1-5; keys ``fluency``, ``fluency_score``, ..."""

    _RESULT_KEY = "fluency"
    _PROMPT = prompts.FLUENCY
    _FIELDS = ("response",)
    _CALL_FIELDS = ("response",)
    _CHECKED = ("response",)
    id = "azureai://built-in/evaluators/fluency"


class SimilarityEvaluator(JudgedEvaluator):
    """How close in meaning ``response`` is to ``ground_truth`` as answers to ``query``, 1-5; keys ``similarity``, ...

    A text reply is read by its first digit (the SDK does not look for ``<S2>`` tags here).
    """

    _RESULT_KEY = "similarity"
    _PROMPT = prompts.SIMILARITY
    _FIELDS = ("query", "response", "ground_truth")
    _CALL_FIELDS = ("query", "response", "ground_truth")
    _TAGGED = False
    id = "azureai://built-in/evaluators/similarity"

    def _turns(self, values: dict[str, Any]) -> list[dict[str, Any]]:
        # The SDK's own check names the first missing input (and no class).
        if values.get("conversation") is None:
            for name in self._CALL_FIELDS:
                if values.get(name) is None:
                    raise EvaluationException(
                        f"Either 'conversation' or individual inputs must be provided. '{name}' is missing.")
        return super()._turns(values)


class ResponseCompletenessEvaluator(JudgedEvaluator):
    """How much of ``ground_truth`` ``response`` covers, 1-5 (experimental in the SDK); keys ``response_completeness``, ...

    Its requests carry ``seed: 123``.
    """

    _RESULT_KEY = "response_completeness"
    _PROMPT = prompts.RESPONSE_COMPLETENESS
    _FIELDS = ("response", "ground_truth")
    _CALL_FIELDS = ("ground_truth", "response")
    _SEED = 123
    _DIRECT = True
    id = "azureai://built-in/evaluators/response_completeness"
