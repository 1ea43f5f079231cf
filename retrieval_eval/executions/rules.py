"""Status rollup of the evaluation document (spec section 9): evaluator results -> turn/item status -> thread status.

- An item's (or a turn's) ``status`` is ``partial`` when any evaluator errored (this takes
  priority; the item then gets ``error = {"code": "evaluatorsFailed", ...}``), ``pass`` when
  every evaluator passed or none ran, else ``fail``. ``error`` means the agent gave no
  response; offline it is only ever carried over from the input document.
- A thread's ``overall_status``: ``error`` if any turn is ``error``, else ``partial`` if any
  turn is ``partial``, ``pass`` if all pass, ``fail`` if all fail, and ``partial`` for a mix.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

STATUSES = ("pass", "fail", "partial", "error")


def turn_status(results: Mapping[str, str]) -> tuple[str, dict[str, str] | None]:
    """The status of an item or turn from ``{evaluator name: result}``, and its ``error`` object (None if none)."""
    failed = [name for name, result in results.items() if result == "error"]
    if failed:
        message = f"{len(failed)} evaluator(s) failed: {', '.join(failed)}"
        return "partial", {"code": "evaluatorsFailed", "message": message}
    if all(result == "pass" for result in results.values()):
        return "pass", None
    return "fail", None


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
