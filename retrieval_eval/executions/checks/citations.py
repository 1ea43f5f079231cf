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

The search takes time linear in the length of the response, whatever it holds. A url may
hold other ``[N](`` starts, so a regular expression for ``[N](url)`` retries the same url
from each of them (quadratic: 200 KB of ``[1](`` took 30 s). Instead every ``[N]`` is found
once, and the end of each url is the first whitespace or ``)`` after its ``(``: starts
only move right, so one search serves every start up to the stop it found, and no
character is searched twice. The oai_unicode and bracket patterns are linear as regular
expressions: their only repeats are digit runs, and no digit can begin a marker, so the
runs read from different starts never overlap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from ...errors import ConfigError, InputError
from ..model.validation import known
from .evaluator import DeterministicEvaluator

# A [N] (N positive, no leading zero) cannot begin inside another one, so finditer finds them all.
_NUMBER = re.compile(r"\[[1-9][0-9]*\]")
_URL_STOP = re.compile(r"[\s)]")
PATTERNS: Mapping[str, re.Pattern[str]] = {
    "oai_unicode": re.compile("\ue200cite\ue202turn[0-9]+search[0-9]+\ue201"),
    "bracket": re.compile(r"\[\^[0-9]+\^\]"),
}
# mixed has no markers of its own: it is the union of MIXED's, which also gives its per-format tallies.
MIXED = ("oai_unicode", "bracket", "markdown")
CITATION_FORMATS = ("oai_unicode", "bracket", "markdown", "mixed", "plain")


def markers(text: str, citation_format: str) -> set[str]:
    """The distinct marker texts of ``citation_format`` in ``text`` (``mixed``: of its three), in linear time."""
    if citation_format not in CITATION_FORMATS:
        raise ConfigError(f"unknown citation format {citation_format!r}; known formats: {', '.join(CITATION_FORMATS)}")
    if citation_format == "mixed":
        return set().union(*(markers(text, fmt) for fmt in MIXED))
    if citation_format in PATTERNS:
        return set(PATTERNS[citation_format].findall(text))
    markdown, plain = _numbered(text)
    return markdown if citation_format == "markdown" else plain


def _numbered(text: str) -> tuple[set[str], set[str]]:
    """The markdown and the plain markers of ``text`` (see the module docstring for why this is linear)."""
    markdown: set[str] = set()
    plain: set[str] = set()
    resume = 0  # the end of the last markdown marker: a [N] inside its url begins none
    stop = -1  # the first url stop at or after the last searched position (len(text): none)
    for number in _NUMBER.finditer(text):
        start, end = number.span()
        link_end = None
        if text.startswith("(", end):
            if stop <= end:
                found = _URL_STOP.search(text, end + 1)
                stop = len(text) if found is None else found.start()
            if stop > end + 1 and text.startswith(")", stop):
                link_end = stop + 1
        if link_end is None:
            plain.add(number.group())
        elif start >= resume:
            markdown.add(text[start:link_end])
            resume = link_end
    return markdown, plain


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
        found = {fmt: markers(response, fmt) for fmt in formats}
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
