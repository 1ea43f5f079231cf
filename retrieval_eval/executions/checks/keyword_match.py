"""KeywordMatch: does the response contain the test case's expected keywords or phrases (all of them, or any)?

Copilot Studio's "Keyword match" test method, run offline. Its options, as an evaluation
document or a log configuration writes them (no other keys):

- ``keywords``: the expected keywords or phrases, non-empty strings. None given (the key left
  out, or ``[]``) makes the test case invalid: the errored record, neither pass nor fail
  (:mod:`.expectations`).
- ``mode``: ``"all"`` (the default: every keyword must be found) or ``"any"`` (one is enough).
- ``case_sensitive`` (default False): without it, the response and the keywords are
  casefolded (``str.casefold``) first, the one case-insensitivity of every check
  (:func:`~.matching.contains`).
- ``word_boundaries`` (default False): see :func:`keyword_found`.

A keyword is matched as one whole phrase: "joint check" is found only where those 11
characters occur together, never as "joint" and "check" apart; whitespace, dashes and accents
must match exactly, as in the retrieval checks. The response is taken as it is (no trimming);
a missing response (None) gives the errored record; an empty one is a response that contains
no keyword.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator, model_validator

from ...errors import InputError
from ..model.validation import known
from .expectations import MATCH_MODES, ExpectationEvaluator, expectation_score, no_expectations

NO_RESPONSE = "KeywordMatch: no response to check"
_Text = Annotated[StrictStr, Field(min_length=1)]


def is_word_character(char: str) -> bool:
    """Whether ``char`` is a word character: Unicode ``\\w`` as Python's ``re`` has it (``str.isalnum()`` or ``_``)."""
    return char.isalnum() or char == "_"


def keyword_found(text: str, keyword: str, word_boundaries: bool) -> bool:
    """Whether ``keyword`` (non-empty) occurs in ``text``, both already casefolded or not as the options say.

    Without ``word_boundaries``: plain containment. With it: some occurrence ``text[i:j]`` has
    no word character (:func:`is_word_character`) just before it (``i == 0`` or
    ``text[i - 1]`` is not one) and none just after it (``j == len(text)`` or ``text[j]`` is
    not one): the regular expression ``(?<!\\w)keyword(?!\\w)``. So "plan" is found in "the
    plan." and "(plan)" but not in "planning" or "plan_b"; a keyword that starts or ends with a
    non-word character ("$5", "C++") needs the same of its neighbours ("$5" is not found in
    "US$5"). The boundaries are those of the casefolded texts when case-insensitive.

    The time is linear in ``len(text)``, even for a keyword that overlaps itself ("aaaa" in a
    long run of "a"), where testing each occurrence afresh would take len(text) x len(keyword).
    Let ``p`` be the keyword's smallest period (:func:`smallest_period`). No occurrence starts
    less than ``p`` after another, and one starts exactly ``p`` after an occurrence when the
    ``p`` characters that follow it are the keyword's last ``p``: a chain of occurrences ``p``
    apart costs ``p`` new characters each. When a chain ends at ``i``, the next occurrence
    ``i + q`` has ``q > p``; if it overlaps the one at ``i`` (``q < len(keyword)``), ``q`` is a
    period of the keyword and no multiple of ``p`` (the text from ``i`` would then be
    ``p``-periodic, with an occurrence at ``i + p``). By Fine and Wilf's theorem, periods ``p``
    and ``q`` with ``p + q - gcd(p, q) <= len(keyword)`` make ``gcd(p, q)`` a period, which
    would be ``p``; so ``q > len(keyword) - p``, and the search resumes at
    ``i + len(keyword) - p + 1``, rereading fewer than ``p`` characters.
    """
    if not word_boundaries:
        return keyword in text
    size, period = len(keyword), smallest_period(keyword)
    tail = keyword[size - period :]
    start = text.find(keyword)
    while start >= 0:
        while True:
            end = start + size
            before = start == 0 or not is_word_character(text[start - 1])
            if before and (end == len(text) or not is_word_character(text[end])):
                return True
            if not text.startswith(tail, end):
                break
            start += period
        start = text.find(keyword, start + max(period + 1, size - period + 1))
    return False


@lru_cache(maxsize=1024)
def smallest_period(word: str) -> int:
    """The smallest ``p >= 1`` with ``word[i] == word[i + p]`` for every ``i`` (``len(word)`` if none is smaller)."""
    border = [0] * len(word)  # border[i]: the longest proper prefix of word[: i + 1] that is also its suffix
    for i in range(1, len(word)):
        length = border[i - 1]
        while length and word[i] != word[length]:
            length = border[length - 1]
        border[i] = length + (word[i] == word[length])
    return len(word) - border[-1]


def keyword_score(mode: str, matched: Sequence[str], missing: Sequence[str]) -> dict[str, Any]:
    """The ``keywordMatch`` score object: ``result``, ``reason``, ``mode``, ``matched_keywords``, ``missing_keywords``."""
    return expectation_score(mode, "keywords", "found", "keywords", matched, missing)


class _KeywordOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    keywords: tuple[_Text, ...] = ()
    mode: StrictStr = "all"
    case_sensitive: StrictBool = False
    word_boundaries: StrictBool = False

    @model_validator(mode="after")
    def _expects_something(self) -> Self:
        # After the fields: an unknown or mistyped option is reported first.
        if not self.keywords:
            raise ValueError(no_expectations("keywords"))
        return self

    @field_validator("mode")
    @classmethod
    def _known(cls, value: str) -> str:
        return known(value, MATCH_MODES, "mode", "modes")


class KeywordMatch(ExpectationEvaluator):
    """Does the response contain all (or any) of the expected keywords or phrases? Pass or fail.

    Keyword ``k`` is *found* when :func:`keyword_found` holds for ``fold(response)`` and
    ``fold(k)``, fold being ``str.casefold`` unless ``case_sensitive`` (then the identity).
    The result is ``pass`` when every keyword is found (``mode="all"``) or at least one is
    (``mode="any"``). Output: ``result``, ``reason``, ``mode``, ``matched_keywords`` and
    ``missing_keywords`` (the keywords as configured, in their order; a repeated keyword is
    reported each time). There is no score and no threshold.

    >>> KeywordMatch(["Q3 budget", "deadline"], mode="any")("The q3 BUDGET is due.")["matched_keywords"]
    ['Q3 budget']
    >>> KeywordMatch(["plan"], word_boundaries=True)("Planning ahead")["result"]
    'fail'
    """

    _options_model = _KeywordOptions

    def __init__(
        self,
        keywords: Sequence[str] = (),
        *,
        mode: str = "all",
        case_sensitive: bool = False,
        word_boundaries: bool = False,
    ) -> None:
        self.options: _KeywordOptions = self._parse(
            {"keywords": keywords, "mode": mode, "case_sensitive": case_sensitive, "word_boundaries": word_boundaries}
        )

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> KeywordMatch:
        """The evaluator from its options (``keywords``, ``mode``, ``case_sensitive``, ``word_boundaries``)."""
        parsed = cls._parse(options)
        return cls(
            parsed.keywords,
            mode=parsed.mode,
            case_sensitive=parsed.case_sensitive,
            word_boundaries=parsed.word_boundaries,
        )

    def __call__(self, response: str | None) -> dict[str, Any]:
        """The ``keywordMatch`` score object for this response (None: no response, an InputError)."""
        if response is None:
            raise InputError(NO_RESPONSE)
        if not isinstance(response, str):
            raise InputError(f"KeywordMatch: the response must be a string, got {type(response).__name__}")
        options = self.options
        fold = (lambda text: text) if options.case_sensitive else str.casefold
        text = fold(response)
        found = [keyword_found(text, fold(keyword), options.word_boundaries) for keyword in options.keywords]
        matched = [keyword for keyword, hit in zip(options.keywords, found) if hit]
        missing = [keyword for keyword, hit in zip(options.keywords, found) if not hit]
        return keyword_score(options.mode, matched, missing)
