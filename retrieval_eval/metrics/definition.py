"""``MetricDefinition``: what the registry knows of a metric."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field


def _unbounded(label_min: int, label_max: int) -> tuple[float, float]:
    return (-math.inf, math.inf)


@dataclass(frozen=True)
class MetricDefinition:
    """What a metric is.

    ``cutoff``: the metric takes ``@k`` (evaluation fills in its default k when omitted).
    ``integer``: values are whole numbers (counts, labels). ``bounds(label_min, label_max)`` gives
    the (low, high) range of values for a non-negative label scale.
    ``azure_threshold``: the default threshold of azure-ai-evaluation's evaluator, when it has one.
    """

    name: str
    family: str
    definition: str
    higher_is_better: bool
    cutoff: bool = False
    integer: bool = False
    bounds: Callable[[int, int], tuple[float, float]] = _unbounded
    azure_threshold: float | None = None
    aliases: tuple[str, ...] = field(default=())

    @property
    def display_name(self) -> str:
        """The name as listed: ``ndcg_exp@k`` for a cutoff metric."""
        return f"{self.name}@k" if self.cutoff else self.name

    def alias_patterns(self) -> list[re.Pattern[str]]:
        """Aliases as regular expressions; ``{k}`` in an alias captures the cutoff."""
        return [re.compile("^" + re.escape(alias).replace(r"\{k\}", r"(?P<k>\d+)") + "$") for alias in self.aliases]
