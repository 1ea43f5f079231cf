"""Reading a judge's reply: the JSON object it was asked for, and a label on the judge's scale.

A reply is read as a JSON object: the whole text, or the first ``{...}`` in it (a model that
wraps its object in a code fence or a sentence is still read). The label is the object's field
(``label`` by default); it must be an integer (``2`` or ``2.0``, not ``2.5``, ``"2"`` or
``true``) within the scale. Anything else is a :class:`~.judge.ReplyError` naming what was
wrong: the item stays unjudged, never scored.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from .backends import Completion
from .judge import ReplyError, content_of


def json_object(text: str) -> dict[str, Any]:
    """The JSON object of a reply: the whole text, else the span from its first ``{`` to its last ``}``."""
    candidates = [text.strip()]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start:end + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    raise ReplyError(f"the reply is not a JSON object: {_excerpt(text)}")


@dataclass(frozen=True)
class LabelParser:
    """Reads ``field`` of the reply's JSON object as an integer label in ``[low, high]``."""

    field: str = "label"
    low: int = 0
    high: int = 3

    @property
    def name(self) -> str:
        """The parser's name in the judge's fingerprint."""
        return f"label:{self.field}:{self.low}-{self.high}"

    def __call__(self, completion: Completion) -> int:
        reply = json_object(content_of(completion))
        if self.field not in reply:
            raise ReplyError(f"the reply's JSON has no {self.field!r} field (fields: {', '.join(map(str, reply)) or 'none'})")
        value = reply[self.field]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value != int(value):
            raise ReplyError(f"{self.field!r} must be an integer from {self.low} to {self.high}, got {value!r}")
        if not self.low <= value <= self.high:
            raise ReplyError(f"{self.field!r} = {int(value)} is outside the scale {self.low}..{self.high}")
        return int(value)


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return repr(text[:100] + ("..." if len(text) > 100 else ""))
