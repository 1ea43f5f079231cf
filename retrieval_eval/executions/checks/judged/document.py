"""The judged evaluators of a whole evaluation document, planned item by item and judged in one batch.

:func:`judge_document` takes every unit (single-turn item or turn) with its configured
evaluators and texts, asks each judged evaluator what it needs (:meth:`~.base.JudgedEvaluator.asks`),
sends every request of the document at once (:func:`~.batch.run_asks`), and gives back each
(unit, evaluator)'s score object: the evaluator's score, or the errored record naming the
item when its options are invalid, the item lacks a text, or a judgment failed (no reply after
the retries, a reply that cannot be read). With ``entailment``, RetrievalResult's claims are
judged in the same batch (:mod:`.entailment`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ....errors import ConfigError, RetrievalEvalError
from ....judging.outcomes import Totals
from ....judging.settings import JudgeSettings
from ..evaluator import errored
from ..retrieval import RetrievalResult
from .base import JudgedEvaluator, Texts
from .batch import Answer, Ask, run_asks
from .entailment import AnsweredMatcher, RecordingMatcher, annotate, questions_asks
from .likert import LIKERT
from .studio import STUDIO

#: Every judged evaluator by its name in a document.
JUDGED: dict[str, type[JudgedEvaluator]] = {**LIKERT, **STUDIO}
Slot = tuple[str, str]  # (unit path, evaluator name)


@dataclass(frozen=True)
class UnitToJudge:
    """One unit: ``path`` (``items[2].turns[0]``), its configured ``evaluators`` (name -> options) and ``texts``."""

    path: str
    evaluators: Mapping[str, Any]
    texts: Texts


@dataclass(frozen=True)
class JudgedScores:
    """``scores`` by (unit path, evaluator name); ``totals`` of the judge's runs (None: nothing was sent)."""

    scores: dict[Slot, dict[str, Any]]
    totals: Totals | None


Finish = Callable[[list[Answer]], dict[str, Any]]


def judge_document(settings: JudgeSettings, units: Sequence[UnitToJudge], *, entailment: bool) -> JudgedScores:
    """Score every judged evaluator of ``units`` (and RetrievalResult by entailment when ``entailment``) in one batch."""
    asks: list[Ask] = []
    pending: list[tuple[Slot, int, int, Finish]] = []
    scores: dict[Slot, dict[str, Any]] = {}
    for unit in units:
        for name, options in unit.evaluators.items():
            slot, key = (unit.path, name), f"{unit.path}:{name}"
            try:
                planned = _plan(name, options, unit.texts, key, entailment)
                if planned is None:
                    continue
                unit_asks, finish = planned
                for ask in unit_asks:
                    if ask.embed is not None and not (settings.endpoint is not None and settings.embedding_model):
                        raise ConfigError(f"{name}: similarity by embeddings needs an endpoint and an embedding "
                                          "model (--embedding-model, or embedding_model= of JudgeSettings)")
                    ask.body()  # a text the template cannot take fails here, for this item only
            except RetrievalEvalError as error:
                scores[slot] = errored(f"{error} ({unit.path})")
                continue
            pending.append((slot, len(asks), len(asks) + len(unit_asks), finish))
            asks.extend(unit_asks)
    if not asks:
        return JudgedScores({**scores, **{slot: finish([]) for slot, _, _, finish in pending}}, None)
    answers, totals = run_asks(settings, asks)
    for slot, start, stop, finish in pending:
        scores[slot] = finish(answers[start:stop])
    return JudgedScores(scores, totals)


def _plan(name: str, options: Any, texts: Texts, key: str, entailment: bool) -> tuple[list[Ask], Finish] | None:
    if name == "RetrievalResult":
        return _plan_entailment(options, texts, key) if entailment else None
    kind = JUDGED.get(name)
    if kind is None:
        return None
    evaluator = kind.from_options(options)
    return evaluator.asks(texts, key), _finisher(evaluator, texts, key)


def _finisher(evaluator: JudgedEvaluator, texts: Texts, key: str) -> Finish:
    where = key.rpartition(":")[0]

    def finish(answers: list[Answer]) -> dict[str, Any]:
        failed = next((answer for answer in answers if not answer.ok), None)
        if failed is not None:
            return errored(f"{evaluator.name}: judge: {failed.error}")
        try:
            return evaluator.score([answer.value for answer in answers])
        except RetrievalEvalError as error:
            return errored(f"{error} ({where})")

    return finish


def _plan_entailment(options: Any, texts: Texts, key: str) -> tuple[list[Ask], Finish]:
    recorder = RecordingMatcher()
    RetrievalResult.run(options, texts.telemetry, matcher=recorder)

    def finish(answers: list[Answer]) -> dict[str, Any]:
        return annotate(RetrievalResult.run(options, texts.telemetry, matcher=AnsweredMatcher(answers)))

    return questions_asks(recorder.questions, key), finish
