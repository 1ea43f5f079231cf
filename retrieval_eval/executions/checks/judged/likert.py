"""Relevance, Coherence, Groundedness and Similarity: the LLM-judged evaluators of the Microsoft 365 Copilot evaluation CLI.

Upstream these are backed by the azure-ai-evaluation SDK; here by this project's own prompts
(:mod:`.prompts`) through the judge layer, with everything around the reply as upstream has it:
a score from 1 (worst) to 5 (best), ``pass`` when ``score >= threshold``, the threshold 3 unless
the evaluator's options set it (``{"threshold": t}``, a number from 1 to 5; no other option),
and the result under ``scores`` as the schema's ``EvalScore``: ``score``, ``result``,
``threshold``, ``reason``, ``evaluator``.

What each reads (an item lacking a text gives the errored record, never a score):

- Relevance: ``prompt`` and ``response`` (does the response address the question);
- Coherence: ``prompt`` and ``response``;
- Groundedness: ``prompt``, ``response`` and the context: the item's ``context`` and the
  extracts of its retrieved hits (every OK execution), or, with neither, its
  ``expected_response``, which stands for the documents as upstream's configuration names it;
- Similarity: ``prompt``, ``response`` and ``expected_response`` (meaning, not wording).

The reply is ``{"score": <integer 1-5>, "reason": <string>}``, read strictly (:mod:`.replies`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

from ....judging.backends import Completion
from ....judging.templates import PromptTemplate
from . import prompts, replies
from .base import JudgedEvaluator, Texts, context_text, required
from .batch import Ask

LOW, HIGH, DEFAULT_THRESHOLD = 1, 5, 3


class _LikertOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: Annotated[StrictInt | StrictFloat, Field(ge=LOW, le=HIGH)] = DEFAULT_THRESHOLD


def read_likert(completion: Completion) -> tuple[int, str]:
    """``(score, reason)`` of a 1-5 reply."""
    reply = replies.strict_object(completion)
    return replies.integer(reply, "score", LOW, HIGH), replies.text(reply, "reason")


class _Likert(JudgedEvaluator):
    """A 1-5 evaluator: one request per item, ``pass`` when the score is at least the threshold."""

    _options_model = _LikertOptions
    template: ClassVar[PromptTemplate]

    def __init__(self, *, threshold: float = DEFAULT_THRESHOLD) -> None:
        super().__init__(threshold=threshold)

    def texts(self, texts: Texts) -> dict[str, str]:
        return {"query": required(texts.prompt, "prompt", self.name), "response": required(texts.response, "response", self.name)}

    def asks(self, texts: Texts, key: str) -> list[Ask]:
        return [Ask(key, read_likert, self.template, self.texts(texts))]

    def score(self, values: Sequence[Any]) -> dict[str, Any]:
        (score, reason), = values
        threshold = self.options.threshold
        return {"score": float(score), "result": "pass" if score >= threshold else "fail", "threshold": threshold,
                "reason": reason, "evaluator": f"retrieval-eval-{self.name.lower()}"}


class Relevance(_Likert):
    """Does the response address the question? 1-5 (see the module docstring)."""

    name = "Relevance"
    template = prompts.RELEVANCE


class Coherence(_Likert):
    """Is the response one clear, logically ordered whole? 1-5."""

    name = "Coherence"
    template = prompts.COHERENCE


class Groundedness(_Likert):
    """Does the response claim nothing beyond its context (retrieved documents)? 1-5."""

    name = "Groundedness"
    template = prompts.GROUNDEDNESS

    def texts(self, texts: Texts) -> dict[str, str]:
        context = context_text(texts) or required(texts.expected_response, "context, retrieved extract or "
                                                  "expected_response", self.name)
        return {**super().texts(texts), "context": context}


class Similarity(_Likert):
    """How close in meaning is the response to the expected response? 1-5."""

    name = "Similarity"
    template = prompts.SIMILARITY

    def texts(self, texts: Texts) -> dict[str, str]:
        return {**super().texts(texts), "ground_truth": required(texts.expected_response, "expected_response", self.name)}


LIKERT = {evaluator.name: evaluator for evaluator in (Relevance, Coherence, Groundedness, Similarity)}
