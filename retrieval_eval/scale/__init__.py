"""Runs too large for memory, or for one machine: streamed within a memory budget, or scored on Dask.

Every way through here scores with an :class:`~retrieval_eval.Evaluator` (each loaded on first use).
"""

from __future__ import annotations

from .._lazy import lazy_attributes

_EXPORTS = {
    "DEFAULT_BUDGET": ".budget",
    "parse_memory_budget": ".budget",
    "DatasetResult": ".result",
    "evaluate_dataset": ".stream",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
