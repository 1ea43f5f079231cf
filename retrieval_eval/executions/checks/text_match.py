"""ExactMatch and PartialMatch: the response against the expected response, as text.

The deterministic text evaluators of the Microsoft 365 Copilot evaluation CLI
(``specs/m365-retrieval-checks.md``, section 10). Both trim the two texts (``str.strip``) and,
unless ``case_sensitive``, casefold them: the same case-insensitivity as the retrieval checks
(:func:`~.matching.contains`). Upstream lower-cases instead; the two differ only for the few
characters whose case folding is not their lower case ("ß" folds to "ss", "ς" to "σ").

Either evaluator raises InputError, which ``run`` turns into the errored record (as upstream
and :mod:`.evaluator`), when the response is missing, empty or whitespace only, or when the
expected response is. Upstream errors on a missing expected response; we treat an empty one
the same way, since nothing can match it.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictStr, field_validator

from ...errors import InputError
from ...policies import PARTIAL_MATCH_MODES
from ..model.validation import known
from .evaluator import DeterministicEvaluator


def _texts(evaluator: str, response: Any, expected_response: Any, case_sensitive: bool) -> tuple[str, str]:
    """Both texts trimmed and, unless ``case_sensitive``, casefolded; InputError when either is missing or blank."""
    texts = []
    for what, text in (("response", response), ("expected response", expected_response)):
        if text is None:
            raise InputError(f"{evaluator}: no {what} to compare")
        if not isinstance(text, str):
            raise InputError(f"{evaluator}: the {what} must be a string, got {type(text).__name__}")
        text = text.strip()
        if not text:
            raise InputError(f"{evaluator}: the {what} is empty")
        # casefold, not upstream's lower-casing: one notion of case-insensitive across the checks.
        texts.append(text if case_sensitive else text.casefold())
    return texts[0], texts[1]


class _ExactOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    case_sensitive: StrictBool = False


class ExactMatch(DeterministicEvaluator):
    """Is the response the expected response, up to surrounding whitespace (and case, by default)?

    match = ``fold(strip(response)) == fold(strip(expected))``, where fold is ``str.casefold``
    unless ``case_sensitive`` (then the identity). Equality, not containment. Output:
    ``match``, ``result`` (``pass`` when matched) and ``reason``; there is no threshold.

    The default ``case_sensitive=False`` follows the schema, upstream's code and one Learn
    page; the Learn evaluators page says the default is ``true``.
    """

    _options_model = _ExactOptions

    def __init__(self, *, case_sensitive: bool = False) -> None:
        self.options: _ExactOptions = self._parse({"case_sensitive": case_sensitive})

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> ExactMatch:
        """The evaluator from its evaluation-document options (``case_sensitive``)."""
        return cls(case_sensitive=cls._parse(options).case_sensitive)

    def __call__(self, response: str | None, expected_response: str | None) -> dict[str, Any]:
        """The ``exactMatch`` score object for this response."""
        case_sensitive = self.options.case_sensitive
        got, expected = _texts("ExactMatch", response, expected_response, case_sensitive)
        match = got == expected
        how = "case-sensitive" if case_sensitive else "case-insensitive"
        reason = "Exact match found" if match else f"The response differs from the expected response ({how}, trimmed)"
        return {"match": match, "result": "pass" if match else "fail", "reason": reason}


class _PartialOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: StrictFloat = Field(default=0.5, ge=0.0, le=1.0, allow_inf_nan=False)
    case_sensitive: StrictBool = False
    mode: StrictStr = "token_f1"

    @field_validator("mode")
    @classmethod
    def _known(cls, value: str) -> str:
        return known(value, PARTIAL_MATCH_MODES, "mode", "modes")


class PartialMatch(DeterministicEvaluator):
    """How much of the expected response does the response share? A score in [0, 1], pass when ``score >= threshold``.

    Both texts are trimmed and casefolded unless ``case_sensitive`` (see the module docstring).

    ``mode="token_f1"`` (the default; the Learn docs' "token-level, F1-like" similarity):
    SQuAD-style. Delete every punctuation character (Unicode general category P*; symbols
    such as ``$`` or ``+`` are kept, and no articles are removed), split on Unicode
    whitespace (``str.split``), and let *overlap* be the size of the multiset intersection
    of the response tokens *r* and the expected tokens *e*. Then P = overlap / |r|,
    R = overlap / |e| and score = 2PR / (P + R) = 2 overlap / (|r| + |e|), computed in the
    second form (one rounding) so that a score of exactly 1/2 is 0.5 and passes a 0.5
    threshold. The score is 0 when overlap is 0, 1 when both token lists are empty and 0
    when only one is.

    ``mode="upstream_v1"`` (what CLI 1.8.0 computes, for comparison with its output): the
    score is len(expected) / len(response) in code points of the trimmed (and folded) texts
    when the expected text is a substring of the response, else 0. Upstream counts UTF-16
    code units of lower-cased texts, so a character outside the Basic Multilingual Plane (an
    emoji) counts 1 here and 2 there, and "ß" counts 2 here unless ``case_sensitive``.

    Output: ``score``, ``result``, ``threshold``, ``reason`` (the score to three decimals)
    and ``mode``. The ``mode`` option and output key are our extension: the schema knows
    neither (its score object allows extra keys, its options object does not).
    """

    _options_model = _PartialOptions

    def __init__(self, *, threshold: float = 0.5, case_sensitive: bool = False, mode: str = "token_f1") -> None:
        options = {"threshold": threshold, "case_sensitive": case_sensitive, "mode": mode}
        self.options: _PartialOptions = self._parse(options)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> PartialMatch:
        """The evaluator from its evaluation-document options (``threshold``, ``case_sensitive``, ``mode``)."""
        parsed = cls._parse(options)
        return cls(threshold=parsed.threshold, case_sensitive=parsed.case_sensitive, mode=parsed.mode)

    def __call__(self, response: str | None, expected_response: str | None) -> dict[str, Any]:
        """The ``partialMatch`` score object for this response."""
        options = self.options
        got, expected = _texts("PartialMatch", response, expected_response, options.case_sensitive)
        score = token_f1(got, expected) if options.mode == "token_f1" else _substring_ratio(got, expected)
        return {
            "score": score,
            "result": "pass" if score >= options.threshold else "fail",
            "threshold": options.threshold,
            "reason": f"Match score: {score:.3f}",
            "mode": options.mode,
        }


def tokens(text: str) -> list[str]:
    """``text`` without its punctuation (Unicode category P*), split on Unicode whitespace; no case folding."""
    return "".join(char for char in text if not unicodedata.category(char).startswith("P")).split()


def token_f1(response: str, expected: str) -> float:
    """The token F1 of two texts (:func:`tokens` of each; see :class:`PartialMatch`), no case folding."""
    got, want = tokens(response), tokens(expected)
    if not got or not want:
        # Two empty token lists are the same text; one empty list shares nothing with the other.
        return 1.0 if got == want else 0.0
    overlap = sum((Counter(got) & Counter(want)).values())
    return 2 * overlap / (len(got) + len(want))


def _substring_ratio(response: str, expected: str) -> float:
    # The response is never empty here (an InputError was raised), so the division is safe.
    return len(expected) / len(response) if expected in response else 0.0
