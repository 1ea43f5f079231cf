"""The summary of a check run: pass rate per evaluator, counts per diagnostic code, statuses.

Both the document runner and the execution-log batch produce *outcomes*, one row per
(item, evaluator) with at least ``evaluator``, ``result`` (``pass``, ``fail``, ``error`` or
``skipped``) and ``diagnostic_code`` (None for evaluators without one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

OUTCOME_COLUMNS = ("unit", "id", "evaluator", "result", "diagnostic_code", "score", "ran")
RESULTS = ("pass", "fail", "error", "skipped")


@dataclass(frozen=True)
class CheckSummary:
    """``evaluators``: per evaluator, the count of each result and ``pass_rate`` = pass / (pass + fail + error)
    (NaN when it never ran). ``codes``: per (evaluator, diagnostic_code), the count. ``statuses``: the count
    of each item (or turn) status."""

    evaluators: pd.DataFrame
    codes: pd.DataFrame
    statuses: dict[str, int]

    @classmethod
    def from_outcomes(cls, outcomes: pd.DataFrame, statuses: Sequence[str] = ()) -> CheckSummary:
        """Summarize ``outcomes`` (see the module docstring), with the item statuses if known."""
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
        return cls(counts, codes, dict(Counter(statuses)))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values."""
        return {
            "evaluators": [
                {"evaluator": name, **{key: (None if pd.isna(value) else value) for key, value in row.items()}}
                for name, row in self.evaluators.astype(object).iterrows()
            ],
            "diagnostic_codes": self.codes.to_dict(orient="records"),
            "statuses": self.statuses,
        }

    def to_text(self) -> str:
        """The summary as aligned text tables."""
        table = self.evaluators.copy()
        table["pass_rate"] = table["pass_rate"].map(lambda rate: "-" if pd.isna(rate) else f"{rate:.1%}")
        parts = [table.to_string()]
        if len(self.codes):
            parts.append(self.codes.to_string(index=False))
        if self.statuses:
            parts.append("items: " + ", ".join(f"{count} {status}" for status, count in sorted(self.statuses.items())))
        return "\n\n".join(parts)
