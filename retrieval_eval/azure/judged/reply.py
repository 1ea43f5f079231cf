"""Reading a judge's reply as azure-ai-evaluation 1.18.10 does, and the output dict of one turn.

The SDK asks for ``response_format: json_object`` and decodes the reply's text with
``json.loads`` (Python's: ``NaN``, ``Infinity`` and integers of any size are accepted). A text that
is not JSON, or no text (a refusal), is an error there (a raw ``JSONDecodeError`` or
``TypeError``); here an :class:`~retrieval_eval.azure.EvaluationException` saying so. The decoded
value is then read one of two ways:

``direct`` (Relevance, ResponseCompleteness)
    A JSON object: ``status == "skipped"`` gives the *not applicable* dict; else the score is
    ``float(reply.get("score", NaN))`` (``"4"`` and ``"3.5"`` are read, ``true`` is 1.0; ``null``, a
    list, ``"four"`` or an integer too large for a float are errors), the reason
    ``reply.get("reason", "")`` as it is (any JSON type), the properties the reply's
    ``properties`` object (if any) updated with the reply's metadata. Anything but an object:
    ``"Evaluator returned invalid output."``.
``strategy`` (Retrieval, Groundedness, Coherence, Fluency, Similarity)
    A JSON string is decoded once more, kept if it gives a non-empty object. A non-empty object is
    read as above, except that ``null`` is a missing score. A string is searched: for every one
    but Similarity, ``<S2>\\D*?([1-5]).*?</S2>`` gives the score (its first digit from 1 to 5) and
    ``<S1>(.*?)</S1>`` the reason (stripped); for Similarity the first digit anywhere. Anything
    else (an empty object, a number, a list, ``null``) has no score.

A missing score is NaN, whose result is ``"unknown"`` and ``passed`` False. The score is not
checked against the 1-5 scale: 0, 6 or -1 pass or fail against the threshold like any number.
A score passes when ``score >= threshold``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from ...judging.backends import Completion
from ...judging.judge import ReplyError

INVALID_OUTPUT = "Evaluator returned invalid output."
_TAGGED_SCORE = re.compile(r"<S2>\D*?([1-5]).*?</S2>", re.DOTALL)
_TAGGED_REASON = re.compile(r"<S1>(.*?)</S1>", re.DOTALL)
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Reading:
    """What a reply says: ``score`` (None when skipped; NaN when unreadable), ``reason``, ``properties`` (the
    reply's own, before the metadata), ``skipped`` (the model declined the inputs)."""

    score: float | None
    reason: Any
    properties: dict[str, Any] | None = field(default_factory=dict)
    skipped: bool = False


def decode(completion: Completion) -> Any:
    """The reply's JSON value (``json.loads`` of its text); no text, or text that is not JSON, is a ReplyError."""
    if completion.content is None:
        refused = f": the model refused ({completion.refusal[:120]!r})" if completion.refusal else ""
        raise ReplyError(f"the judge's reply has no text{refused}")
    try:
        return json.loads(completion.content)
    except ValueError:
        text = " ".join(completion.content.split())
        excerpt = repr(text[:80] + ("..." if len(text) > 80 else ""))
        raise ReplyError(f"the judge's reply is not JSON: {excerpt}") from None


def _float(score: Any) -> float:
    """``float(score)`` as the SDK takes it, its failures as one line."""
    try:
        return float(score)
    except (TypeError, ValueError, OverflowError):
        raise ReplyError(f"the judge's score {str(score)[:40]!r} is not a number") from None


def _reply_properties(value: Any) -> dict[str, Any]:
    properties = value or {}
    if not isinstance(properties, dict):
        raise ReplyError(f"the judge's 'properties' must be an object, got {type(properties).__name__}")
    return dict(properties)


def read_direct(completion: Completion) -> Reading:
    """The reading of Relevance and ResponseCompleteness (see the module)."""
    reply = decode(completion)
    if not isinstance(reply, dict):
        raise ReplyError(INVALID_OUTPUT)
    if reply.get("status", "completed") == "skipped":
        return Reading(None, reply.get("reason", ""), None, skipped=True)
    score = _float(reply.get("score", math.nan))
    return Reading(score, reply.get("reason", ""), _reply_properties(reply.get("properties", {})))


def read_strategy(completion: Completion, *, tagged: bool) -> Reading:
    """The reading of the other evaluators; ``tagged``: a text reply is searched for ``<S2>`` (else for a digit)."""
    answer = decode(completion)
    if isinstance(answer, str):
        try:
            again = json.loads(answer)
        except ValueError:
            again = None
        if isinstance(again, dict) and again:
            answer = again
    score: Any = math.nan
    reason: Any = ""
    properties: dict[str, Any] = {}
    if isinstance(answer, dict) and answer:
        if answer.get("status", "completed") == "skipped":
            return Reading(None, f"Not applicable: {answer.get('reason', '')}",
                           _reply_properties(answer.get("properties", {})), skipped=True)
        score = answer.get("score", math.nan)
        reason = answer.get("reason", "")
        properties = _reply_properties(answer.get("properties", {}))
    elif isinstance(answer, str) and tagged:
        found_score, found_reason = _TAGGED_SCORE.findall(answer), _TAGGED_REASON.findall(answer)
        score = float(found_score[0].strip()) if found_score else math.nan
        reason = found_reason[0].strip() if found_reason else ""
    elif isinstance(answer, str):
        digit = _DIGIT.search(answer)
        score = float(digit.group()) if digit else math.nan
    return Reading(_float(score) if score is not None else math.nan, reason, properties)


def metadata(completion: Completion, inputs: dict[str, str]) -> dict[str, Any]:
    """The reply's metadata as the SDK reports it: tokens (0 when the reply has no usage), finish reason, model,
    and the sample input (the JSON of the inputs as a user message) and output (the reply as an assistant message)."""
    usage = completion.usage
    sample_output = [{"role": "assistant", "content": completion.content}] if completion.content else []
    sample_input = json.dumps([{"role": "user", "content": json.dumps(inputs)}]) if inputs else ""
    return {
        "prompt_tokens": usage.prompt if usage else 0,
        "completion_tokens": usage.completion if usage else 0,
        # The SDK reports the reply's total_tokens; our Usage keeps prompt + completion, the same for every
        # server that adds them up (OpenAI, Azure, vLLM, Ollama).
        "total_tokens": usage.total if usage else 0,
        "finish_reason": completion.finish_reason or "",
        "model": completion.model or "",
        "sample_input": sample_input,
        "sample_output": json.dumps(sample_output),
    }


def turn_output(key: str, reading: Reading, threshold: Any, properties: dict[str, Any] | None, *,
                direct: bool) -> dict[str, Any]:
    """The output dict of one turn: ``key``, ``key_score``, ``_passed``, ``_result``, ``_reason``, ``_status``,
    ``_threshold``, ``_properties``. A skipped turn read ``direct`` has no properties and its reason is prefixed
    with ``"Not applicable: "`` here (the strategy prefixes it when reading)."""
    if reading.skipped:
        return {key: None, f"{key}_score": None, f"{key}_passed": None, f"{key}_result": "not_applicable",
                f"{key}_reason": f"Not applicable: {reading.reason}" if direct else reading.reason,
                f"{key}_status": "skipped", f"{key}_threshold": threshold,
                f"{key}_properties": None if direct else properties}
    score = reading.score
    verdict = "unknown" if math.isnan(score) else ("pass" if score >= threshold else "fail")
    return {key: score, f"{key}_score": score, f"{key}_passed": verdict == "pass", f"{key}_result": verdict,
            f"{key}_reason": reading.reason, f"{key}_status": "completed", f"{key}_threshold": threshold,
            f"{key}_properties": properties}
