"""What a run of a judge gives back: one :class:`Judgment` per item, and the run's :class:`Totals`."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from .backends import Completion

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Judgment:
    """One item's judgment: ``value`` (the parsed reply; None when ``error``), ``completion`` (the reply, None
    when none came), ``error`` (why the item has no value, one line), ``attempts`` (requests sent for it: 0 when
    it came from the cache), ``cached``, ``cost`` (of its reply, 0 when cached)."""

    key: str
    value: Any = None
    completion: Completion | None = None
    error: str | None = None
    attempts: int = 0
    cached: bool = False
    cost: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class Totals:
    """Counts of a run: ``items``; ``done`` (judged or failed so far); ``cache_hits``; ``requests`` (HTTP requests
    sent, retries included); ``retries``; ``errors`` (items without a value); tokens as the server counted them
    (``prompt_tokens``, ``completion_tokens``, ``cached_tokens``); ``usage_missing`` (replies without usage, whose
    tokens are not in the sums); ``cost``; ``estimated_cost`` (before the run, of the requests to send: an upper
    bound); ``budget_stopped`` (the budget stopped the run); ``seconds`` (wall time)."""

    items: int = 0
    done: int = 0
    cache_hits: int = 0
    requests: int = 0
    retries: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    usage_missing: int = 0
    cost: float = 0.0
    estimated_cost: float = 0.0
    budget_stopped: bool = False
    seconds: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {item.name: getattr(self, item.name) for item in fields(self)} | {"total_tokens": self.total_tokens}

    def line(self) -> str:
        """One line for a terminal: ``judged 120/500 · 80 cached · 2 errors · 31,200 tokens · cost 0.0132``."""
        parts = [f"judged {self.done}/{self.items}", f"{self.cache_hits} cached", f"{self.requests} requests",
                 f"{self.errors} error{'s' if self.errors != 1 else ''}", f"{self.total_tokens:,} tokens"]
        if self.cost or self.estimated_cost:
            parts.append(f"cost {self.cost:.4f}")
        if self.budget_stopped:
            parts.append("stopped by the budget")
        return " · ".join(parts)


@dataclass(frozen=True)
class Judgments:
    """The judgments of a run, in the order of its items, with its :class:`Totals` and the judge's ``fingerprint``."""

    items: tuple[Judgment, ...]
    totals: Totals
    fingerprint: str
    judge: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    @property
    def values(self) -> list[Any]:
        return [item.value for item in self.items]

    @property
    def errors(self) -> list[tuple[str, str]]:
        """(item key, reason) of every item without a value, in item order."""
        return [(item.key, item.error) for item in self.items if item.error is not None]

    def table(self) -> pd.DataFrame:
        """One row per item: key, value, error, attempts, cached, cost, the reply's tokens and finish reason."""
        import pandas as pd

        rows = []
        for item in self.items:
            usage = item.completion.usage if item.completion else None
            rows.append({"key": item.key, "value": item.value, "error": item.error, "attempts": item.attempts,
                         "cached": item.cached, "cost": item.cost,
                         "prompt_tokens": usage.prompt if usage else None,
                         "completion_tokens": usage.completion if usage else None,
                         "finish_reason": item.completion.finish_reason if item.completion else None})
        return pd.DataFrame(rows, columns=["key", "value", "error", "attempts", "cached", "cost", "prompt_tokens",
                                           "completion_tokens", "finish_reason"])
