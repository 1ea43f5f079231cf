"""Every judge request of a run sent as one batch: the chat requests in one run of the judge, the embeddings in another.

The judged evaluators describe what they need as :class:`Ask` objects (a prompt template and
its texts, or texts to embed, and how to read the reply); :func:`run_asks` sends all of them
through :meth:`~retrieval_eval.judging.settings.JudgeSettings.run`, so that they share its
concurrency, rate limits, retries, cache and budget: the wall time of a document is that of its
slowest requests, not the sum of its items. Each ask gets back a :class:`Answer`: its value, or
the one-line reason it has none (no reply after the retries, a reply that cannot be read).

The replies are read after the run (each ask has its own reader, where a judge has one parser),
and a reply that cannot be read is added to the run's ``errors`` count, so that the totals
printed count every ask without a value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ....judging.backends import Completion, embedding_body
from ....judging.judge import Judge, ReplyError
from ....judging.outcomes import Totals
from ....judging.settings import JudgeSettings
from ....judging.templates import PromptTemplate
from .prompts import PARAMS

#: ``read(completion) -> value``; raises ReplyError for a reply it cannot read.
Reader = Callable[[Completion], Any]


@dataclass(frozen=True)
class Ask:
    """One request: a chat prompt (``template`` filled with ``texts``), or ``embed`` (texts to embed, one request);
    ``read`` turns the reply into a value. ``key`` names it in errors and in the cache (``items[2]:Relevance``)."""

    key: str
    read: Reader
    template: PromptTemplate | None = None
    texts: Mapping[str, str] = field(default_factory=dict)
    embed: tuple[str, ...] | None = None

    def body(self) -> dict[str, Any]:
        if self.embed is not None:
            return embedding_body(self.embed)
        return {"messages": self.template.messages(self.texts, self.key), **PARAMS}


@dataclass(frozen=True)
class Answer:
    """An ask's ``value``, or its ``error`` (one line; then ``value`` is None)."""

    value: Any = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def run_asks(settings: JudgeSettings, asks: Sequence[Ask]) -> tuple[list[Answer], Totals]:
    """The answer of every ask, in order, and the totals of the runs (chat and embeddings, summed)."""
    chat = [index for index, ask in enumerate(asks) if ask.embed is None]
    embed = [index for index, ask in enumerate(asks) if ask.embed is not None]
    answers: list[Answer] = [Answer()] * len(asks)
    totals = Totals()
    for indices, judge in ((chat, _chat_judge), (embed, _embeddings_judge)):
        if not indices:
            continue
        run = settings.run(judge(settings), bodies=[asks[i].body() for i in indices], keys=[asks[i].key for i in indices])
        for index, judgment in zip(indices, run.items):
            answers[index] = _answer(asks[index], judgment.completion, judgment.error)
        run.totals.errors += sum(not answers[i].ok for i in indices) - len(run.errors)
        totals = add_totals(totals, run.totals)
    return answers, totals


def _answer(ask: Ask, completion: Completion | None, error: str | None) -> Answer:
    if error is not None:
        return Answer(error=error)
    try:
        return Answer(ask.read(completion))
    except ReplyError as failure:
        return Answer(error=f"item {ask.key}: {failure}")


def _raw(completion: Completion) -> Completion:
    return completion


def _chat_judge(settings: JudgeSettings) -> Judge:
    # The judge sends the bodies as built (each ask its own template); its parser keeps the reply for the ask's reader.
    return Judge(settings.chat_backend(), params=PARAMS, parse=_raw, parser_name="executions.judged")


def _embeddings_judge(settings: JudgeSettings) -> Judge:
    return Judge(settings.embeddings_backend(), parse=_raw, parser_name="executions.judged.embeddings")


def add_totals(first: Totals, second: Totals) -> Totals:
    """The field-wise sum of two runs' totals (``budget_stopped`` if either was)."""
    values = {}
    for item in fields(Totals):
        a, b = getattr(first, item.name), getattr(second, item.name)
        values[item.name] = (a or b) if isinstance(a, bool) else a + b
    return Totals(**values)
