"""The rules both engines follow, written once: which evaluators an item runs, which executions count, which
diagnostic code a retrieval check gives, and how results roll up into statuses.

The per-item engine (:mod:`.checks`, :mod:`.runner`) applies them to one item at a time, the
column-wise engine (:mod:`.batch`) to whole columns; a rule is a table or a function that serves
both, so that the two cannot drift apart.

- **Merge**: an item's (or a log record's) evaluators are the ``default_evaluators`` extended by
  its own ``evaluators`` (its options win), or its own alone with ``evaluators_mode: "replace"``
  (:func:`evaluators_of`).
- **Scope**: an execution counts when its status is OK (:func:`is_ok_status`); a *retrieval
  failure* is a record without executions, or one whose executions of the capability all failed
  (:func:`is_retrieval_failure`).
- **Diagnostic codes**: :data:`QUERY_CODES` (RetrievalQuery) and :data:`RESULT_CODES`
  (RetrievalResult), ordered tables whose first matching row gives the code; :data:`CODES` is
  every code either gives. RetrievalResult's score follows from its code (:func:`result_score_value`).
- **Rollup** (spec section 9): an item's (or a turn's) ``status`` is ``partial`` when any
  evaluator errored (this takes priority; the item then gets ``error = {"code":
  "evaluatorsFailed", ...}``), ``pass`` when every evaluator passed or none ran, else ``fail``
  (:data:`ITEM_STATUS`, :func:`turn_status`). ``error`` means the agent gave no response;
  offline it is only ever carried over from the input document. A thread's ``overall_status``:
  ``error`` if any turn is ``error``, else ``partial`` if any turn is ``partial``, ``pass`` if
  all pass, ``fail`` if all fail, and ``partial`` for a mix (:func:`thread_summary`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

STATUSES = ("pass", "fail", "partial", "error")
OK_STATUSES = frozenset({"success", "succeeded", "completed"})


@dataclass(frozen=True)
class Decision:
    """An ordered table: the outcome is that of the first row whose conditions all hold, else ``otherwise``.

    A row is ``(outcome, conditions)``; a condition names a fact, ``"!name"`` its negation. The
    facts are booleans for one case (:meth:`first`) or boolean arrays for many (:meth:`select`).
    """

    rows: tuple[tuple[str, tuple[str, ...]], ...]
    otherwise: str

    @property
    def outcomes(self) -> tuple[str, ...]:
        """Every outcome the table can give, in table order (``otherwise`` last)."""
        return tuple(dict.fromkeys([outcome for outcome, _ in self.rows] + [self.otherwise]))

    def first(self, **facts: bool) -> str:
        """The outcome for one case."""
        for outcome, conditions in self.rows:
            if all(not facts[name[1:]] if name.startswith("!") else facts[name] for name in conditions):
                return outcome
        return self.otherwise

    def select(self, vocabulary: Sequence[str], **facts: np.ndarray) -> np.ndarray:
        """The outcome of each case, as its position in ``vocabulary``; the facts are equally long boolean arrays."""

        def holds(name: str) -> np.ndarray:
            return ~facts[name[1:]] if name.startswith("!") else facts[name]

        conditions = [np.logical_and.reduce([holds(name) for name in names]) for _, names in self.rows]
        choices = [vocabulary.index(outcome) for outcome, _ in self.rows]
        return np.select(conditions, choices, vocabulary.index(self.otherwise))


#: RetrievalQuery's code. Facts: ``failure`` (a retrieval failure), ``no_match`` (no query matched the
#: selector), ``passed`` (some matched query has every required term and no excluded one), ``missing`` (a
#: required term is missing from some matched query), ``found`` (some matched query has an excluded term).
QUERY_CODES = Decision(
    (
        ("retrieval_failure", ("failure",)),
        ("no_matching_query", ("no_match",)),
        ("pass", ("passed",)),
        ("mixed_term_failure", ("missing", "found")),
        ("excluded_terms_found", ("found",)),
    ),
    otherwise="required_terms_missing",
)
#: RetrievalResult's code. Facts: ``failure`` (a retrieval failure), ``no_items`` (no expected items),
#: ``count_passed`` (``min_expected_count`` unset or at most the candidates), ``no_candidates``,
#: ``all_found`` (every expected item matched a candidate).
RESULT_CODES = Decision(
    (
        ("error", ("failure",)),
        ("pass", ("no_items", "count_passed")),
        ("count_below_minimum", ("no_items",)),
        ("not_retrieved", ("no_candidates",)),
        ("count_below_minimum", ("!count_passed",)),
        ("pass", ("all_found",)),
    ),
    otherwise="not_retrieved",
)
#: Every diagnostic code of the retrieval checks.
CODES = tuple(dict.fromkeys(QUERY_CODES.outcomes + RESULT_CODES.outcomes))
#: An item's (or a turn's) status. Facts: ``errored`` (an evaluator errored), ``all_passed`` (every
#: evaluator that ran passed; true when none ran).
ITEM_STATUS = Decision((("partial", ("errored",)), ("pass", ("all_passed",))), otherwise="fail")


def evaluators_of(defaults: Mapping[str, Any], own: Mapping[str, Any], mode: str | None) -> dict[str, Any]:
    """The evaluators of an item: ``own`` alone when ``mode`` is ``"replace"``, else ``defaults`` extended by ``own``."""
    return dict(own) if mode == "replace" else {**defaults, **own}


def is_ok_status(status: str | None) -> bool:
    """Whether an execution with this status counts: none or empty, or ``status.lower()`` in :data:`OK_STATUSES`."""
    return not status or status.lower() in OK_STATUSES


def is_retrieval_failure(recorded: Any, own: Any, ok: Any) -> Any:
    """Whether a check sees a retrieval failure, from the counts of the record's executions (``recorded``), of
    those of the capability (``own``) and of those that are OK (``ok``): no executions at all, or some of the
    capability and none OK. Counts are integers, or integer arrays (then the answer is a boolean array).
    """
    return (recorded == 0) | ((own > 0) & (ok == 0))


def result_score_value(passed: Any, not_retrieved: Any, found: Any, expected: Any) -> Any:
    """RetrievalResult's score: 1.0 on ``pass``, ``found / expected`` (unrounded) on ``not_retrieved``, else 0.0.

    On one case (booleans and integers: a float) or elementwise on arrays (then ``expected`` may be 0
    where the code is not ``not_retrieved``). Plain arithmetic, so that one case costs no array.
    """
    share = found / (expected + (expected == 0))
    return passed * 1.0 + not_retrieved * share


def turn_status(results: Mapping[str, str]) -> tuple[str, dict[str, str] | None]:
    """The status of an item or turn from ``{evaluator name: result}``, and its ``error`` object (None if none)."""
    failed = [name for name, result in results.items() if result == "error"]
    status = ITEM_STATUS.first(errored=bool(failed), all_passed=all(result == "pass" for result in results.values()))
    if status == "partial":
        message = f"{len(failed)} evaluator(s) failed: {', '.join(failed)}"
        return status, {"code": "evaluatorsFailed", "message": message}
    return status, None


def item_statuses(errored: np.ndarray, all_passed: np.ndarray) -> np.ndarray:
    """The status of each item (an object array of :data:`STATUSES`) from its facts, as :func:`turn_status` decides."""
    return np.array(STATUSES, dtype=object)[ITEM_STATUS.select(STATUSES, errored=errored, all_passed=all_passed)]


def thread_summary(statuses: Sequence[str]) -> dict[str, Any]:
    """The schema's ``ThreadSummary`` of a thread whose turns have ``statuses``."""
    counts = Counter(statuses)
    if counts["error"]:
        overall = "error"
    elif counts["partial"]:
        overall = "partial"
    elif counts["pass"] == len(statuses):
        overall = "pass"
    elif counts["fail"] == len(statuses):
        overall = "fail"
    else:
        overall = "partial"
    return {
        "turns_total": len(statuses),
        "turns_passed": counts["pass"],
        "turns_failed": counts["fail"],
        "turns_partial": counts["partial"],
        "turns_errored": counts["error"],
        "overall_status": overall,
    }
