"""What a judged drop-in's batch gives back: one output dict per row, the rows in error, the run's totals."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from ...judging.outcomes import Totals

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class BatchOutputs(Sequence):
    """``outputs[i]``: row i's output dict, as a call on that row gives it (None when the call would raise);
    ``errors``: ``(row key, reason)`` of every row without a readable score, in row order: the rows that would
    raise, and the rows whose dict holds the SDK's NaN score (result ``"unknown"``); ``totals``: requests,
    cache hits, tokens and time of the run, its ``errors`` the number of rows in ``errors``."""

    outputs: tuple[dict[str, Any] | None, ...]
    errors: tuple[tuple[str, str], ...]
    totals: Totals

    def __len__(self) -> int:
        return len(self.outputs)

    def __getitem__(self, index: Any) -> Any:
        return self.outputs[index]

    def __iter__(self) -> Iterator[dict[str, Any] | None]:
        return iter(self.outputs)

    def table(self) -> pd.DataFrame:
        """One row per input row: the output dict's top-level values (None for a row in error) and ``error``."""
        import pandas as pd

        reasons = dict(self.errors)
        rows = [dict(output or {}) for output in self.outputs]
        for number, row in enumerate(rows, 1):
            row.pop("evaluation_per_turn", None)
            row["error"] = reasons.get(str(number))
        return pd.DataFrame(rows)


def merged_totals(parts: Sequence[Totals], items: int, errors: int) -> Totals:
    """The totals of several judge runs as one: counts and tokens added, ``items`` and ``errors`` the rows'."""
    total = Totals()
    for part in parts:
        for item in fields(Totals):
            value = getattr(part, item.name)
            if isinstance(value, bool):
                setattr(total, item.name, getattr(total, item.name) or value)
            else:
                setattr(total, item.name, getattr(total, item.name) + value)
    total.items, total.done, total.errors = items, items, errors
    return total
