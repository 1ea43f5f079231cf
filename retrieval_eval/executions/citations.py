"""Citations: does the response carry at least ``threshold`` distinct citation markers?

The deterministic Citations evaluator of the Microsoft 365 Copilot evaluation CLI, with the
marker formats of ``specs/m365-retrieval-checks.md`` (section 10). A *marker* is one
occurrence of a format's pattern; digits are ASCII ``0``-``9`` only:

- ``oai_unicode`` (the default): U+E200, ``cite``, U+E202, ``turn<digits>search<digits>``, U+E201;
- ``bracket``: ``[^<digits>^]``;
- ``markdown``: ``[N](url)``, N a positive integer written without leading zeros, url
  non-empty with no whitespace and no ``)`` (so a ``#fragment`` is part of it);
- ``mixed``: any of the three above (plain ``[N]`` is not included, as upstream);
- ``plain`` (our opt-in extra, unknown upstream): ``[N]``, N as for markdown, that does not
  begin a markdown marker; ``[1](https://a)`` is a markdown marker, not a plain one, so
  the formats never claim the same text.

Each format's markers are found left to right, the search resuming after each marker
found (so markers of one format never overlap). The count is the number of distinct
marker texts (exact text; a repeated marker counts once; ``[^1^]`` and ``[^01^]`` are
two). The check passes when ``count >= threshold``. Invalid options and a missing
response are handled as for every evaluator (:mod:`.evaluator`): ``run`` gives the
errored record.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from ..errors import InputError
from ._validation import known
from .evaluator import DeterministicEvaluator

_NUMBER = r"\[[1-9][0-9]*\]"
_LINK = r"\([^\s)]+\)"

# mixed has no pattern of its own: it is the union of MIXED, which also gives its per-format tallies.
PATTERNS: Mapping[str, re.Pattern[str]] = {
    "oai_unicode": re.compile("\ue200cite\ue202turn[0-9]+search[0-9]+\ue201"),
    "bracket": re.compile(r"\[\^[0-9]+\^\]"),
    "markdown": re.compile(_NUMBER + _LINK),
    "plain": re.compile(f"{_NUMBER}(?!{_LINK})"),
}
MIXED = ("oai_unicode", "bracket", "markdown")
CITATION_FORMATS = ("oai_unicode", "bracket", "markdown", "mixed", "plain")


class _Options(BaseModel):
    """The Citations options as the evaluation document spells them (no other keys)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: StrictInt = Field(default=1, ge=1)
    citation_format: StrictStr = "oai_unicode"

    @field_validator("citation_format")
    @classmethod
    def _known(cls, value: str) -> str:
        return known(value, CITATION_FORMATS, "citation format", "formats")


class Citations(DeterministicEvaluator):
    """Counts the distinct citation markers of one format in a response (see the module docstring).

    Output: ``count`` (distinct markers), ``result`` (``pass`` when ``count >= threshold``),
    ``threshold``, ``format`` (the configured format, not a detected one, as upstream) and
    ``reason`` (with the count of each format in ``mixed`` mode). An empty response has no
    markers (count 0); a missing one (None) is an InputError. The schema's optional
    ``citations`` list (index, text, source) is not produced: a marker names no source text.

    Departures from upstream 1.8.0: an unknown ``citation_format`` is a ConfigError listing
    the known formats (upstream silently falls back to ``oai_unicode``); ``markdown`` is our
    reading of the format CLI 1.13.0 added, whose exact pattern is not public; ``plain`` is
    our extension.
    """

    _options_model = _Options

    def __init__(self, *, threshold: int = 1, citation_format: str = "oai_unicode") -> None:
        self.options: _Options = self._parse({"threshold": threshold, "citation_format": citation_format})

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Citations:
        """The evaluator from its evaluation-document options (``threshold``, ``citation_format``)."""
        parsed = cls._parse(options)
        return cls(threshold=parsed.threshold, citation_format=parsed.citation_format)

    def __call__(self, response: str | None) -> dict[str, Any]:
        """The ``citations`` score object for this response (None: the agent gave no response)."""
        if response is None:
            raise InputError("Citations: no response to evaluate")
        if not isinstance(response, str):
            raise InputError(f"Citations: the response must be a string, got {type(response).__name__}")
        threshold, name = self.options.threshold, self.options.citation_format
        formats = MIXED if name == "mixed" else (name,)
        found = {fmt: set(PATTERNS[fmt].findall(response)) for fmt in formats}
        count = len(set().union(*found.values()))
        reason = f"Found {count} unique citation(s)"
        if name == "mixed":
            reason += " (" + ", ".join(f"{fmt}: {len(markers)}" for fmt, markers in found.items()) + ")"
        reason += f"; at least {threshold} required"
        return {
            "count": count,
            "result": "pass" if count >= threshold else "fail",
            "threshold": threshold,
            "format": name,
            "reason": reason,
        }
