"""The entailment matcher of RetrievalResult: is each expected "claim" supported by the retrieved evidence (schema 1.6.0)?

From schema 1.6.0 an expected item's ``retrievalExtract_contains`` is "a claim that an LLM
judge must find supported by the retrieved evidence (the content extracts within the scoped
capability and max_rank)". One request per claim: the claim and every candidate hit as a
numbered passage (its rank and extract texts). The judge answers ``{"supported": bool,
"evidence": [passage numbers], "reason": str}``; a supported claim must cite at least one
passage, and the reported hit is the best-ranked one cited (lowest ``rank``, then candidate
order: the rule of :func:`~..matching.extract_matcher`). The judge's reason goes into the
matched or missing item, as the schema has it.

So that a document's claims are judged in one batch, RetrievalResult is run twice per item:
first with :class:`RecordingMatcher`, which notes each (claim, candidates) it is asked about
and answers "not supported" (the check is cheap and deterministic, so the second run asks the
same questions in the same order); then, once the batch is judged, with
:class:`AnsweredMatcher`, which gives each question its judged verdict, or raises for a claim
whose judgment failed, so that the check's result is the errored record, never a score.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ....errors import InputError
from ....judging.backends import Completion
from ....judging.judge import ReplyError
from ...model.models import RetrievalHit
from ..matching import Verdict
from . import prompts, replies
from .batch import Answer, Ask

NAME = "entailment"


def evidence_text(candidates: Sequence[RetrievalHit]) -> str:
    """The candidates as numbered passages: ``[n] (rank r) extract text ... extract text``."""
    lines = []
    for number, hit in enumerate(candidates, 1):
        texts = " ... ".join(extract.text for extract in hit.extracts if extract.text) or "(no extract text)"
        lines.append(f"[{number}] (rank {hit.rank}) {texts}")
    return "\n".join(lines)


def read_entailment(passages: int) -> Callable[[Completion], tuple[bool, list[int], str]]:
    """The reader of an entailment reply over ``passages`` numbered passages."""

    def read(completion: Completion) -> tuple[bool, list[int], str]:
        reply = replies.strict_object(completion)
        supported = replies.boolean(reply, "supported")
        cited = replies.integers(reply, "evidence", 1, passages)
        if supported and not cited:
            raise ReplyError("a supported claim must cite the passages that support it ('evidence' is empty)")
        return supported, cited, replies.text(reply, "reason")

    return read


def entailment_ask(claim: str, candidates: Sequence[RetrievalHit], key: str) -> Ask:
    return Ask(key, read_entailment(len(candidates)), prompts.ENTAILMENT,
               {"claim": claim, "evidence": evidence_text(candidates)})


class RecordingMatcher:
    """Notes each (claim, candidates) asked, and answers "not supported" (the first run, see the module docstring)."""

    def __init__(self) -> None:
        self.questions: list[tuple[str, list[RetrievalHit]]] = []

    def __call__(self, snippet: str, candidates: Sequence[RetrievalHit]) -> Verdict:
        self.questions.append((snippet, list(candidates)))
        return Verdict(None)


class AnsweredMatcher:
    """Gives the questions of a :class:`RecordingMatcher`'s run their judged answers, in the same order."""

    def __init__(self, answers: Sequence[Answer]) -> None:
        self._answers = iter(answers)

    def __call__(self, snippet: str, candidates: Sequence[RetrievalHit]) -> Verdict:
        answer = next(self._answers, None)
        if answer is None:
            raise InputError(f"RetrievalResult: the entailment judge was not asked about the claim {snippet!r}")
        if not answer.ok:
            raise InputError(f"RetrievalResult: entailment judge: {answer.error}")
        supported, cited, reason = answer.value
        if not supported:
            return Verdict(None, reason)
        best = min(cited, key=lambda number: (candidates[number - 1].rank, number))
        return Verdict(candidates[best - 1], reason)


def questions_asks(questions: Sequence[tuple[str, Sequence[RetrievalHit]]], key: str) -> list[Ask]:
    """The asks of a recorded run, keyed ``<key>:<claim number>``."""
    return [entailment_ask(claim, candidates, f"{key}:{number}") for number, (claim, candidates) in enumerate(questions, 1)]


def annotate(score: dict[str, Any]) -> dict[str, Any]:
    """A retrievalResult score object marked as matched by the entailment judge (an errored record is left as it is)."""
    return score if score.get("result") == "error" else {**score, "matcher": NAME}
