"""Gains of ranked documents for the C/W/L measures: cwl_eval's worst case and best case.

Worst case (the values): an unjudged document, and every rank past the list up to the depth,
has gain 0 (cwl_eval's RankingMaker leaves min_gain at 0 whatever --min_gain says). Best case
(for the residuals): they have gain max_gain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....errors import ConfigError
from ...names import Metric


@dataclass(frozen=True)
class GainRule:
    """How a label becomes a gain: itself (``kind="label"``), ``"binary"`` at ``bin_rel``, or ``"scaled"`` to [0, 1]."""

    kind: str = "binary"
    bin_rel: float = 1.0
    min_rel: float = 0.0
    max_rel: float = 1.0

    @classmethod
    def of(cls, metric: Metric, given: dict[str, str]) -> "GainRule":
        """The rule a metric's ``bin_rel``, ``min_rel`` and ``max_rel`` parameters give (binary at 1 when none)."""
        if "bin_rel" in given:
            if "min_rel" in given or "max_rel" in given:
                raise ConfigError(f"{metric}: give bin_rel (binary gains) or max_rel (scaled gains), not both")
            return cls("binary", bin_rel=float(given["bin_rel"]))
        if "max_rel" in given:
            low, high = float(given.get("min_rel", 0.0)), float(given["max_rel"])
            if not low < high:
                raise ConfigError(f"{metric}: min_rel ({low:g}) must be below max_rel ({high:g})")
            return cls("scaled", min_rel=low, max_rel=high)
        if "min_rel" in given:
            raise ConfigError(f"{metric}: min_rel needs max_rel (gains scaled from [min_rel, max_rel] to [0, 1])")
        return cls()

    def gains(self, labels: np.ndarray) -> np.ndarray:
        """float64 gains of the labels (ir_measures' provider: a negative label counts as 0 when mapped)."""
        values = labels.astype(np.float64)
        if self.kind == "label":
            return values
        values = np.maximum(values, 0.0)
        if self.kind == "binary":
            return (values >= self.bin_rel).astype(np.float64)
        return (np.clip(values, self.min_rel, self.max_rel) - self.min_rel) / (self.max_rel - self.min_rel)


def gain_matrices(rule: GainRule, labels: np.ndarray, judged: np.ndarray, max_gain: float) -> tuple[np.ndarray, np.ndarray]:
    """Worst-case and best-case gains of a block of ranked lists (``judged`` False past each list)."""
    gains = rule.gains(labels)
    return np.where(judged, gains, 0.0), np.where(judged, gains, max_gain)
