"""Copilot Studio's model-judged test methods: GeneralQuality, CompareMeaning, TextSimilarity and Custom.

Their options are written as KeywordMatch's and ToolUse's are (no other keys; also in the
schema's custom-evaluator form, see :mod:`.base`):

- ``GeneralQuality`` (no options): the judge answers four criteria true or false. *relevance*:
  the response addresses the question; *groundedness*: it rests on the context (the item's
  ``context`` and its retrieved extracts); *completeness*: it covers every aspect of the
  question; *abstention*: the agent attempted an answer. ``pass`` only when every criterion
  holds. No expected answer is needed. Without any context, groundedness cannot be judged: it
  is reported as ``null`` and the verdict rests on the other three (the reason says so).
- ``CompareMeaning``: ``pass_score`` (0-100, default 50). The judge scores from 0 to 100 how
  well the response carries the intended meaning of the expected answer; ``pass`` when
  ``score >= pass_score``. No expected answer: an invalid result (the errored record).
- ``TextSimilarity``: ``pass_score`` (0-1, default 0.5, our choice: the reference gives none).
  The score is the cosine similarity of the embeddings of the response and of the expected
  answer (the judge's embedding model), clipped to [0, 1] (the raw value is ``cosine``);
  ``pass`` when ``score >= pass_score``. No expected answer: invalid.
- ``Custom``: ``instructions`` (what to check) and ``labels``: two or more, each ``{"name",
  "description", "result": "pass" | "fail"}``. The judge assigns one label by name; its
  ``result`` is the verdict. Names are unique (casefolded) and use letters and digits (ASCII),
  spaces and ``- _ / & + .`` only. The judge sees the names and descriptions, never the
  mapping to pass or fail. With an ``expected_response``, the judge sees it too.

A reply that cannot be read strictly (:mod:`.replies`; a Custom label that is not one of the
names, exactly) leaves the item without a score: the errored record.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, field_validator, model_validator

from ....judging.backends import Completion
from ....judging.judge import ReplyError
from . import prompts, replies
from .base import JudgedEvaluator, Texts, context_text, required
from .batch import Ask

CRITERIA = ("relevance", "groundedness", "completeness", "abstention")
LABEL_NAME = re.compile(r"^[A-Za-z0-9 \-_/&+.]+$")
_Text = Annotated[StrictStr, Field(min_length=1)]
_Number = StrictInt | StrictFloat
EXPECTED = "expected answer (expected_response)"


class _NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GeneralQuality(JudgedEvaluator):
    """Relevance, groundedness, completeness and abstention, all of which must hold (see the module docstring)."""

    name = "GeneralQuality"
    _options_model = _NoOptions
    _custom_form = True

    def asks(self, texts: Texts, key: str) -> list[Ask]:
        query, response = required(texts.prompt, "prompt", self.name), required(texts.response, "response", self.name)
        context = context_text(texts)
        if context is None:
            return [Ask(key, _read_quality(grounded=False), prompts.GENERAL_QUALITY_NO_CONTEXT,
                        {"query": query, "response": response})]
        return [Ask(key, _read_quality(grounded=True), prompts.GENERAL_QUALITY,
                    {"query": query, "response": response, "context": context})]

    def score(self, values: Sequence[Any]) -> dict[str, Any]:
        (criteria, reason), = values
        failed = [name for name in CRITERIA if criteria[name] is False]
        note = "" if criteria["groundedness"] is not None else " (groundedness not judged: no context)"
        return {"result": "fail" if failed else "pass", "reason": reason + note, "criteria": criteria,
                "failed_criteria": failed}


def _read_quality(grounded: bool):
    def read(completion: Completion) -> tuple[dict[str, bool | None], str]:
        reply = replies.strict_object(completion)
        criteria = {name: (replies.boolean(reply, name) if name != "groundedness" or grounded else None)
                    for name in CRITERIA}
        return criteria, replies.text(reply, "reason")

    return read


class _MeaningOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pass_score: Annotated[_Number, Field(ge=0, le=100)] = 50


def read_meaning(completion: Completion) -> tuple[int, str]:
    reply = replies.strict_object(completion)
    return replies.integer(reply, "score", 0, 100), replies.text(reply, "reason")


class CompareMeaning(JudgedEvaluator):
    """How well the response carries the expected answer's meaning, 0-100; pass at ``pass_score`` (default 50)."""

    name = "CompareMeaning"
    _options_model = _MeaningOptions
    _custom_form = True
    _custom_threshold = "pass_score"

    def asks(self, texts: Texts, key: str) -> list[Ask]:
        expected = required(texts.expected_response, EXPECTED, self.name, invalid=True)
        query, response = required(texts.prompt, "prompt", self.name), required(texts.response, "response", self.name)
        return [Ask(key, read_meaning, prompts.COMPARE_MEANING, {"query": query, "response": response, "expected": expected})]

    def score(self, values: Sequence[Any]) -> dict[str, Any]:
        (score, reason), = values
        threshold = self.options.pass_score
        return {"score": score, "result": "pass" if score >= threshold else "fail", "threshold": threshold, "reason": reason}


class _SimilarityOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pass_score: Annotated[_Number, Field(ge=0, le=1)] = 0.5


def cosine(completion: Completion) -> float:
    """The cosine similarity of the two vectors of an embeddings reply; ReplyError for anything but two usable vectors."""
    vectors = completion.vectors
    if vectors is None or len(vectors) != 2:
        raise ReplyError(f"expected 2 embedding vectors, got {0 if vectors is None else len(vectors)}")
    first, second = vectors
    if not first or len(first) != len(second):
        raise ReplyError(f"the embedding vectors have lengths {len(first)} and {len(second)}")
    if not all(math.isfinite(x) for x in (*first, *second)):
        raise ReplyError("an embedding vector holds a value that is not a finite number")
    norms = math.sqrt(math.fsum(x * x for x in first)) * math.sqrt(math.fsum(x * x for x in second))
    if norms == 0:
        raise ReplyError("an embedding vector is all zeros")
    return math.fsum(a * b for a, b in zip(first, second)) / norms


class TextSimilarity(JudgedEvaluator):
    """Cosine similarity of the embeddings of the response and the expected answer, 0-1; pass at ``pass_score``."""

    name = "TextSimilarity"
    _options_model = _SimilarityOptions
    _custom_form = True
    _custom_threshold = "pass_score"

    def asks(self, texts: Texts, key: str) -> list[Ask]:
        expected = required(texts.expected_response, EXPECTED, self.name, invalid=True)
        response = required(texts.response, "response", self.name)
        return [Ask(key, cosine, embed=(response, expected))]

    def score(self, values: Sequence[Any]) -> dict[str, Any]:
        raw, = values
        score, threshold = min(1.0, max(0.0, raw)), self.options.pass_score
        verdict = "pass" if score >= threshold else "fail"
        return {"score": score, "result": verdict, "threshold": threshold, "cosine": raw,
                "reason": f"cosine similarity {score:.3f} of the embeddings of the response and the expected answer "
                          f"({verdict} at {threshold:g})"}


class _Label(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: _Text
    description: _Text
    result: Literal["pass", "fail"]

    @field_validator("name")
    @classmethod
    def _title(cls, value: str) -> str:
        if not LABEL_NAME.match(value) or not value.strip():
            raise ValueError(f"label name {value!r} may use letters, digits, spaces and - _ / & + . only")
        return value


class _CustomOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    instructions: _Text
    labels: tuple[_Label, ...] = Field(min_length=2)

    @model_validator(mode="after")
    def _unique(self) -> Self:
        seen: set[str] = set()
        for label in self.labels:
            folded = label.name.strip().casefold()
            if folded in seen:
                raise ValueError(f"two labels are named {label.name!r} (names are compared casefolded)")
            seen.add(folded)
        return self


class Custom(JudgedEvaluator):
    """The judge assigns one of the configured labels; the label's ``result`` is the verdict."""

    name = "Custom"
    _options_model = _CustomOptions
    _custom_form = True

    def asks(self, texts: Texts, key: str) -> list[Ask]:
        options = self.options
        fields = {"instructions": options.instructions, "query": required(texts.prompt, "prompt", self.name),
                  "response": required(texts.response, "response", self.name),
                  "labels": "\n".join(f"- {label.name}: {label.description}" for label in options.labels)}
        if isinstance(texts.expected_response, str) and texts.expected_response.strip():
            return [Ask(key, self._read, prompts.CUSTOM_EXPECTED, {**fields, "expected": texts.expected_response})]
        return [Ask(key, self._read, prompts.CUSTOM, fields)]

    def _read(self, completion: Completion) -> tuple[str, str]:
        reply = replies.strict_object(completion)
        label = replies.text(reply, "label").strip()
        names = [item.name for item in self.options.labels]
        if label not in names:
            raise ReplyError(f"'label' {label!r} is not one of the labels {names}")
        return label, replies.text(reply, "reason")

    def score(self, values: Sequence[Any]) -> dict[str, Any]:
        (label, reason), = values
        result = next(item.result for item in self.options.labels if item.name == label)
        return {"result": result, "label": label, "reason": reason}


STUDIO = {evaluator.name: evaluator for evaluator in (GeneralQuality, CompareMeaning, TextSimilarity, Custom)}
