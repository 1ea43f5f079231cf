"""The rule that KeywordMatch and ToolUse share: a test case's expectations, met in ``all`` or ``any`` mode.

A test case lists what it expects (keywords or phrases; tools or topics). Each expectation is
found or missing; the case passes in mode ``all`` when every one is found, in mode ``any`` when
at least one is (Copilot Studio's "all or any of the expected ..."). A case that expects
nothing is *invalid*: neither a pass nor a fail. It gets the errored record, as every evaluator
that cannot judge an item does (:mod:`.evaluator`), so that the item's status is ``partial``
with ``evaluatorsFailed`` and the summary counts it apart from passes and fails.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .evaluator import DeterministicEvaluator

MATCH_MODES = ("all", "any")


class ExpectationEvaluator(DeterministicEvaluator):
    """An evaluator of expectations: its options are also taken in the schema's custom-evaluator form.

    The evaluation-document schema knows these evaluators only as custom ones, whose options
    are ``{"options": {...}}`` (``CustomEvaluatorOptions``); a document that must validate
    against it writes them so, and ``{"options": X}`` reads as ``X``. Every other key beside
    ``options`` is an error, as any unknown option is.
    """

    @classmethod
    def _parse(cls, options: Any) -> Any:
        if isinstance(options, Mapping) and set(options) == {"options"} and isinstance(options["options"], Mapping):
            options = options["options"]
        return super()._parse(options)


def no_expectations(what: str) -> str:
    """The message of an invalid test case: one that expects no ``what`` (e.g. "keywords")."""
    return f"the test case lists no expected {what}, so its result is invalid (neither pass nor fail)"


def passes(mode: str, found: int, expected: int) -> bool:
    """Whether ``found`` of ``expected`` (>= 1) expectations pass in ``mode`` (``all`` or ``any``)."""
    return found == expected if mode == "all" else found > 0


def expectation_score(
    mode: str, what: str, verb: str, prefix: str, matched: Sequence[str], missing: Sequence[str]
) -> dict[str, Any]:
    """The score object: ``result``, ``reason``, ``mode``, ``matched_<prefix>`` and ``missing_<prefix>``.

    ``matched`` and ``missing`` are the expectations found and not found, each in the order the
    test case lists them; ``what`` names them in the reason ("keywords", "tools"), and ``verb``
    says what being matched means ("found", "invoked").
    """
    expected = len(matched) + len(missing)
    passed = passes(mode, len(matched), expected)
    need = f"all {expected}" if mode == "all" else "at least one"
    verdict = "pass" if passed else "fail"
    reason = f"{len(matched)} of {expected} expected {what} {verb} (mode '{mode}' needs {need})"
    return {
        "result": verdict,
        "reason": reason,
        "mode": mode,
        f"matched_{prefix}": list(matched),
        f"missing_{prefix}": list(missing),
    }
