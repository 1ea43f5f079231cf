"""Reading the judges' replies strictly: one JSON object whose fields have exactly the asked-for types.

Strict means: the reply's whole text is one JSON object (a single Markdown code fence around it
is allowed, since models add one even when told not to), never "the first ``{...}`` in a
sentence"; a required field missing or of another type, an integer that is fractional, a bool
where a number is asked (JSON ``true`` is not 1), or a value off the scale is a
:class:`~retrieval_eval.judging.judge.ReplyError`. An item whose reply fails so is an error,
never a score. Fields that were not asked for are ignored.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ....judging.backends import Completion
from ....judging.judge import ReplyError, content_of


def strict_object(completion: Completion) -> dict[str, Any]:
    """The JSON object that is the reply's whole content (optionally inside one ```` ``` ```` fence)."""
    text = content_of(completion).strip()
    if text.startswith("```") and text.endswith("```") and text.count("```") == 2:
        text = text[3:-3].strip()
        text = text[4:].lstrip() if text[:4].lower() == "json" else text
    try:
        value = json.loads(text)
    except ValueError:
        raise ReplyError(f"the reply is not a JSON object: {_excerpt(text)}") from None
    if not isinstance(value, dict):
        raise ReplyError(f"the reply is JSON but not an object: {_excerpt(text)}")
    return value


def _field(reply: dict[str, Any], name: str) -> Any:
    if name not in reply:
        raise ReplyError(f"the reply has no {name!r} field (fields: {', '.join(map(str, reply)) or 'none'})")
    return reply[name]


def integer(reply: dict[str, Any], name: str, low: int, high: int) -> int:
    """Field ``name`` as an integer in ``[low, high]`` (``4`` or ``4.0``; not ``4.5``, ``"4"`` or ``true``)."""
    value = _field(reply, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value != int(value):
        raise ReplyError(f"{name!r} must be an integer from {low} to {high}, got {value!r}")
    if not low <= value <= high:
        raise ReplyError(f"{name!r} = {int(value)} is outside the scale {low}..{high}")
    return int(value)


def boolean(reply: dict[str, Any], name: str) -> bool:
    """Field ``name`` as a JSON boolean (not 0/1, not ``"true"``)."""
    value = _field(reply, name)
    if not isinstance(value, bool):
        raise ReplyError(f"{name!r} must be true or false, got {value!r}")
    return value


def text(reply: dict[str, Any], name: str) -> str:
    """Field ``name`` as a string."""
    value = _field(reply, name)
    if not isinstance(value, str):
        raise ReplyError(f"{name!r} must be a string, got {type(value).__name__}")
    return value


def integers(reply: dict[str, Any], name: str, low: int, high: int) -> list[int]:
    """Field ``name`` as a list of integers each in ``[low, high]``."""
    value = _field(reply, name)
    if not isinstance(value, list):
        raise ReplyError(f"{name!r} must be a list of integers from {low} to {high}, got {type(value).__name__}")
    return [integer({name: element}, name, low, high) for element in value]


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return repr(text[:100] + ("..." if len(text) > 100 else ""))
