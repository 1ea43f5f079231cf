"""Citation markers found two other ways than the library's scanner: for short texts only (both are quadratic).

- :func:`scanned_markers`: a character scanner written from the definitions of
  ``specs/m365-retrieval-checks.md`` (section 10) as the library's module docstring states them:
  at each position, try the format's marker; on a match take it and resume after it, else
  move one character on.
- :func:`regex_markers`: the regular expressions the library used before its linear scanner,
  kept as the record of the earlier behaviour (the counts must not change).
"""

from __future__ import annotations

import re
from collections.abc import Callable

DIGITS = "0123456789"
MIXED = ("oai_unicode", "bracket", "markdown")


def _digits(text: str, i: int) -> int:
    """The index after the run of ASCII digits starting at ``i``."""
    while i < len(text) and text[i] in DIGITS:
        i += 1
    return i


def _number(text: str, i: int) -> int | None:
    """The end of ``[N]`` at ``i`` (N positive, no leading zero), or None."""
    if not text.startswith("[", i) or i + 1 >= len(text) or text[i + 1] not in "123456789":
        return None
    end = _digits(text, i + 1)
    return end + 1 if text.startswith("]", end) else None


def _link(text: str, i: int) -> int | None:
    """The end of ``(url)`` at ``i`` (url non-empty, no whitespace, no ``)``), or None."""
    if not text.startswith("(", i):
        return None
    end = i + 1
    while end < len(text) and not text[end].isspace() and text[end] != ")":
        end += 1
    return end + 1 if end > i + 1 and text.startswith(")", end) else None


def _oai(text: str, i: int) -> int | None:
    head = "\ue200cite\ue202turn"
    if not text.startswith(head, i):
        return None
    end = _digits(text, i + len(head))
    if end == i + len(head) or not text.startswith("search", end):
        return None
    start = end + len("search")
    end = _digits(text, start)
    return end + 1 if end > start and text.startswith("\ue201", end) else None


def _bracket(text: str, i: int) -> int | None:
    if not text.startswith("[^", i):
        return None
    end = _digits(text, i + 2)
    return end + 2 if end > i + 2 and text.startswith("^]", end) else None


def _markdown(text: str, i: int) -> int | None:
    end = _number(text, i)
    return None if end is None else _link(text, end)


def _plain(text: str, i: int) -> int | None:
    end = _number(text, i)
    return None if end is None or _link(text, end) is not None else end


SCANNERS: dict[str, Callable[[str, int], int | None]] = {
    "oai_unicode": _oai,
    "bracket": _bracket,
    "markdown": _markdown,
    "plain": _plain,
}


def scanned_markers(text: str, citation_format: str) -> set[str]:
    """The distinct markers of one format (not ``mixed``), found left to right, resuming after each."""
    markers = set()
    i = 0
    while i < len(text):
        end = SCANNERS[citation_format](text, i)
        if end is None:
            i += 1
        else:
            markers.add(text[i:end])
            i = end
    return markers


_NUMBER = r"\[[1-9][0-9]*\]"
_LINK = r"\([^\s)]+\)"
PATTERNS = {
    "oai_unicode": re.compile("\ue200cite\ue202turn[0-9]+search[0-9]+\ue201"),
    "bracket": re.compile(r"\[\^[0-9]+\^\]"),
    "markdown": re.compile(_NUMBER + _LINK),
    "plain": re.compile(f"{_NUMBER}(?!{_LINK})"),
}


def regex_markers(text: str, citation_format: str) -> set[str]:
    """The distinct markers of one format (not ``mixed``) as the earlier regular expressions found them."""
    return set(PATTERNS[citation_format].findall(text))


def oracle_count(text: str, citation_format: str) -> int:
    """The Citations count: distinct markers of the format, or of the union of MIXED's three formats."""
    formats = MIXED if citation_format == "mixed" else (citation_format,)
    return len(set().union(*(scanned_markers(text, fmt) for fmt in formats)))
