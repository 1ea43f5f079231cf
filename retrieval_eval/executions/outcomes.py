"""The summary of a check run: pass rate per evaluator, counts per diagnostic code, statuses, the verdict.

Both the document runner and the execution-log batch produce *outcomes*, one row per
(item, evaluator) with at least ``evaluator``, ``result`` (``pass``, ``fail``, ``error`` or
``skipped``), ``diagnostic_code`` (None for evaluators without one) and ``ran`` (whether this
run evaluated it: False for a skipped evaluator and for a score kept from the input).

The verdict of a run (:func:`verdict`) is one of :data:`VERDICTS`:

- ``fail``: some item (or turn, or log record) has a status other than ``pass`` (``fail``,
  ``partial``: an evaluator errored, ``error``: the agent gave no response);
- else ``nothing_checked``: no evaluator ran on any item. That is a log without records, a
  check configuration without evaluators, items without evaluators (or ``evaluators_mode:
  "replace"`` with none), or items whose every evaluator was skipped (LLM-judged or custom)
  or had its score kept from the input. A gate must not pass on that: each item's status is
  still ``pass``, as upstream rolls it up, but the run is not;
- else ``pass``: at least one evaluator ran and every item passed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .. import views

OUTCOME_COLUMNS = ("unit", "id", "evaluator", "result", "diagnostic_code", "score", "ran")
RESULTS = ("pass", "fail", "error", "skipped")
VERDICTS = ("pass", "fail", "nothing_checked")


def verdict(statuses: Iterable[str], ran: int) -> str:
    """The run's verdict (see the module docstring) from its item statuses and the number of evaluations it ran."""
    if any(status != "pass" for status in statuses):
        return "fail"
    return "pass" if ran else "nothing_checked"


@dataclass(frozen=True)
class CheckSummary:
    """``evaluators``: per evaluator, the count of each result and ``pass_rate`` = pass / (pass + fail + error)
    (NaN when it never ran). ``codes``: per (evaluator, diagnostic_code), the count. ``statuses``: the count
    of each item (or turn) status. ``ran``: the number of (item, evaluator) pairs this run evaluated;
    ``unchecked``: the number of items on which none ran (their status is ``pass`` all the same).
    ``verdict``: ``pass``, ``fail`` or ``nothing_checked`` (see the module docstring)."""

    evaluators: pd.DataFrame
    codes: pd.DataFrame
    statuses: dict[str, int]
    ran: int
    unchecked: int
    verdict: str

    @classmethod
    def from_outcomes(cls, outcomes: pd.DataFrame, statuses: Sequence[str] = (), unchecked: int = 0) -> CheckSummary:
        """Summarize ``outcomes`` (see the module docstring), with the item statuses and unchecked items."""
        counts = pd.crosstab(outcomes["evaluator"], outcomes["result"]).reindex(columns=list(RESULTS), fill_value=0)
        order = list(dict.fromkeys(outcomes["evaluator"]))  # first appearance, as configured
        counts = counts.reindex(order).fillna(0).astype("int64")
        scored = counts["pass"] + counts["fail"] + counts["error"]
        counts["pass_rate"] = (counts["pass"] / scored.where(scored > 0)).astype("float64")
        counts.index.name, counts.columns.name = "evaluator", None
        coded = outcomes.dropna(subset=["diagnostic_code"])
        codes = (
            coded.groupby(["evaluator", "diagnostic_code"], sort=False).size().rename("count").reset_index()
            if len(coded)
            else pd.DataFrame({"evaluator": [], "diagnostic_code": [], "count": []})
        )
        ran = int(outcomes["ran"].sum())
        return cls(counts, codes, dict(Counter(statuses)), ran, unchecked, verdict(statuses, ran))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {
            "evaluators": [
                {"evaluator": name, **{key: (None if pd.isna(value) else value) for key, value in row.items()}}
                for name, row in self.evaluators.astype(object).iterrows()
            ],
            "diagnostic_codes": self.codes.to_dict(orient="records"),
            "statuses": self.statuses,
            "ran": self.ran,
            "unchecked": self.unchecked,
            "verdict": self.verdict,
        }

    def to_text(self) -> str:
        """The summary as aligned text tables; a line says how many items were not checked, or that none was."""
        parts = []
        if len(self.evaluators):
            table = self.evaluators.copy()
            table["pass_rate"] = table["pass_rate"].map(lambda rate: "-" if pd.isna(rate) else f"{rate:.1%}")
            parts.append(table.to_string())
        if len(self.codes):
            parts.append(self.codes.to_string(index=False))
        counts = ", ".join(f"{count} {status}" for status, count in sorted(self.statuses.items()))
        parts.append(f"items: {counts or 'none'}")
        if self.verdict == "nothing_checked":
            skipped = int(self.evaluators["skipped"].sum()) if len(self.evaluators) else 0
            because = f" ({skipped} skipped)" if skipped else ""
            parts[-1] += f"\nnothing checked: no evaluator ran on any item{because}"
        elif self.unchecked:
            parts[-1] += f"\nnot checked: {self.unchecked} item(s) on which no evaluator ran"
        return "\n\n".join(parts)

    def __repr__(self) -> str:
        return views.check_summary_repr(self)

    def _repr_html_(self) -> str:
        return views.check_summary_html(self)
