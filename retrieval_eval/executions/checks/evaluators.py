"""The evaluators an evaluation document can name, and how each is run.

The document's ``evaluators`` maps an evaluator name (case-sensitive) to its options. The
deterministic ones are scored here: Citations, ExactMatch, PartialMatch, RetrievalQuery and
RetrievalResult of the Microsoft 365 Copilot evaluation CLI, and KeywordMatch and ToolUse, two
test methods of Copilot Studio (:mod:`.keyword_match`, :mod:`.tool_use`; ToolUse reads
``diagnostics.invoked_tools``). The judged ones (:data:`JUDGED`: the CLI's Relevance,
Coherence, Groundedness and Similarity, and Copilot Studio's GeneralQuality, CompareMeaning,
TextSimilarity and Custom) need a judge (:mod:`.judged`): with one configured they are scored
by the runner in one batch per document; without one they are reported as skipped, with the
reason and how to configure one. Any other name is a user's custom evaluator whose code lives
beside the upstream CLI's project: it cannot be run here and is skipped, with the reason.
Each result goes under the evaluator's key in ``scores``: its name with a lower-case first
letter (``RetrievalQuery`` -> ``retrievalQuery``), as upstream writes it.

A misspelled built-in name would pass for a custom evaluator, be skipped, and let the item
pass unchecked. So a name that is not a built-in one but is close to one (:func:`near_miss`)
is refused, unless it is declared custom: *close* means that, both names casefolded and with
``_`` removed, they are equal, one edit apart (a character deleted, added, changed, or two
neighbours swapped), or their ``difflib.SequenceMatcher`` ratio (2 x matched characters /
total characters) is at least :data:`CLOSENESS`. The edit rule is what catches a changed
letter of the short names (``Custom``: 5/6 = 0.833 by the ratio); the ratio also catches
some names two edits away from a long one.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..model.normalize import ExecutionsLike
from .citations import Citations
from .keyword_match import KeywordMatch
from .matching import ExtractMatcher
from .retrieval import RetrievalQuery, RetrievalResult
from .text_match import ExactMatch, PartialMatch
from .tool_use import INVOKED_TOOLS, ToolUse

if TYPE_CHECKING:
    from ...judging.settings import JudgeSettings

LLM_JUDGED = ("Relevance", "Coherence", "Groundedness", "Similarity")
STUDIO_JUDGED = ("GeneralQuality", "CompareMeaning", "TextSimilarity", "Custom")
JUDGED = (*LLM_JUDGED, *STUDIO_JUDGED)
#: What a reason for skipping a judged evaluator says to do.
HOW_TO_JUDGE = "configure a judge to score it (--base-url and --model, or judge= of check_document)"
RETRIEVAL_CHECKS = ("RetrievalQuery", "RetrievalResult")
# What an execution log can check: its records hold executions, a response and the tools invoked.
LOG_CHECKS = (*RETRIEVAL_CHECKS, "KeywordMatch", "ToolUse")
INVOKED_TOOLS_FIELD = f"diagnostics.{INVOKED_TOOLS}"


@dataclass(frozen=True)
class Turn:
    """What one item (or one turn of a thread) gives the evaluators.

    ``invoked_tools`` is the value of ``diagnostics.invoked_tools`` as written (None: absent);
    ``prompt`` and ``context`` are read by the judged evaluators only.
    """

    response: str | None
    expected_response: str | None
    telemetry: ExecutionsLike | None
    invoked_tools: Any = None
    prompt: str | None = None
    context: str | None = None


@dataclass(frozen=True)
class Settings:
    """Choices of the offline run that the document does not make.

    ``matcher`` decides RetrievalResult's expected snippets; ``partial_match_mode`` is
    PartialMatch's mode where its options do not name one; ``judge`` scores the judged
    evaluators (None: they are skipped).
    """

    matcher: ExtractMatcher
    partial_match_mode: str
    judge: JudgeSettings | None = None


_Runner = Callable[[Mapping[str, Any], Turn, Settings], dict[str, Any]]


def _partial_match(options: Mapping[str, Any], turn: Turn, settings: Settings) -> dict[str, Any]:
    with_mode = (
        options
        if not isinstance(options, Mapping) or "mode" in options
        else {**options, "mode": settings.partial_match_mode}
    )
    return PartialMatch.run(with_mode, turn.response, turn.expected_response)


_RUNNERS: dict[str, _Runner] = {
    "Citations": lambda options, turn, settings: Citations.run(options, turn.response),
    "ExactMatch": lambda options, turn, settings: ExactMatch.run(options, turn.response, turn.expected_response),
    "PartialMatch": _partial_match,
    "KeywordMatch": lambda options, turn, settings: KeywordMatch.run(options, turn.response),
    "ToolUse": lambda options, turn, settings: ToolUse.run(options, turn.invoked_tools, field=INVOKED_TOOLS_FIELD),
    "RetrievalQuery": lambda options, turn, settings: RetrievalQuery.run(options, turn.telemetry),
    "RetrievalResult": lambda options, turn, settings: RetrievalResult.run(
        options, turn.telemetry, matcher=settings.matcher
    ),
}
DETERMINISTIC = tuple(_RUNNERS)
BUILT_IN = (*DETERMINISTIC, *JUDGED)
CLOSENESS = 0.85


def _folded(name: str) -> str:
    return name.casefold().replace("_", "")


def near_miss(name: str) -> str | None:
    """The built-in evaluator that ``name`` is close to but not (see the module docstring), or None.

    >>> near_miss("RetreivalQuery"), near_miss("retrievalquery"), near_miss("RetrievalQuery"), near_miss("toneCheck")
    ('RetrievalQuery', 'RetrievalQuery', None, None)
    """
    if name in BUILT_IN:
        return None
    folded = _folded(name)
    edited = next((known for known in BUILT_IN if _one_edit(folded, _folded(known))), None)
    if edited is not None:
        return edited
    ratios = {known: difflib.SequenceMatcher(None, folded, _folded(known)).ratio() for known in BUILT_IN}
    best = max(ratios, key=ratios.__getitem__)  # the first of equals, in the order of BUILT_IN
    return best if ratios[best] >= CLOSENESS else None


def _one_edit(first: str, second: str) -> bool:
    """Whether ``first`` equals ``second`` or is one deletion, insertion, substitution or swap of neighbours from it."""
    if first == second:
        return True
    if abs(len(first) - len(second)) > 1:
        return False
    start = next((i for i, (a, b) in enumerate(zip(first, second)) if a != b), min(len(first), len(second)))
    head_first, head_second = first[start:], second[start:]
    if len(first) == len(second):
        swapped = head_first[:2] == head_second[1::-1] and head_first[2:] == head_second[2:]
        return head_first[1:] == head_second[1:] or swapped
    longer, shorter = (head_first, head_second) if len(first) > len(second) else (head_second, head_first)
    return longer[1:] == shorter


def score_key(name: str) -> str:
    """The key of an evaluator's result in ``scores``: ``name`` with its first letter lower-cased."""
    return name[:1].lower() + name[1:]


def skip_reason(name: str) -> str | None:
    """Why ``name`` cannot be run offline, or None when it can."""
    if name in _RUNNERS:
        return None
    if name in JUDGED:
        return f"{name} is judged by a language model and no judge is configured; {HOW_TO_JUDGE}"
    return (
        f"{name} is a custom evaluator (user code run by the upstream CLI); "
        "only built-in deterministic evaluators are scored offline"
    )


def run_evaluator(name: str, options: Any, turn: Turn, settings: Settings) -> dict[str, Any]:
    """The score object (or errored record) of the deterministic evaluator ``name`` for ``turn``."""
    return _RUNNERS[name](options, turn, settings)
