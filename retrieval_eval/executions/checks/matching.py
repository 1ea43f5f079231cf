"""Text matching for the retrieval checks: casefolded containment, and the pluggable extract matcher.

Every substring test of the checks (selector, includes, excludes, expected extracts) is
:func:`contains`: case-insensitive containment with Unicode casefolding, and nothing else;
whitespace, dashes and accents must match exactly ("5-15" does not match "5–15").

RetrievalResult asks an :class:`ExtractMatcher` whether the candidate hits support each
expected snippet. The default, :data:`SUBSTRING`, is the deterministic v1 contract. From schema
1.6.0 upstream hands the question to an LLM entailment judge; such a judge plugs in as any
callable with the same signature, or as a per-extract test through :func:`extract_matcher`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..model.models import RetrievalHit


def contains(haystack: str, needle: str) -> bool:
    """``needle`` occurs in ``haystack`` after casefolding both; an empty needle is never contained (as upstream)."""
    return needle != "" and needle.casefold() in haystack.casefold()


@dataclass(frozen=True)
class Verdict:
    """A matcher's answer for one snippet: the supporting hit (None: not supported) and an optional one-line reason."""

    hit: RetrievalHit | None
    reason: str | None = None


class ExtractMatcher(Protocol):
    """Decides whether ``candidates`` (the hits within max_rank, in execution then hit order) support ``snippet``.

    A supporting hit must be one of ``candidates``; its ``webUrl`` and ``rank`` are reported.
    """

    def __call__(self, snippet: str, candidates: Sequence[RetrievalHit]) -> Verdict: ...


def extract_matcher(supports: Callable[[str, str], bool]) -> ExtractMatcher:
    """The matcher choosing the best-ranked candidate with an extract text ``t`` such that ``supports(t, snippet)``.

    Best-ranked means the lowest ``rank``; equal ranks (from different executions) go to the
    earlier candidate. Upstream 1.8.0 took the first supporting candidate instead; schema 1.6.0
    describes the reported hit as "the first (best-ranked)" one. The two differ only when
    several executions support the snippet or hits are not sorted by rank.
    """

    def match(snippet: str, candidates: Sequence[RetrievalHit]) -> Verdict:
        supporting = (hit for hit in candidates if any(supports(extract.text, snippet) for extract in hit.extracts))
        # min() keeps the first of equal keys, hence the tie rule.
        return Verdict(min(supporting, key=lambda hit: hit.rank, default=None))

    return match


SUBSTRING: ExtractMatcher = extract_matcher(contains)
"""The v1 matcher: an extract text contains the snippet (:func:`contains`)."""
