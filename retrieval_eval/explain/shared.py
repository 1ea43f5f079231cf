"""Two runs compared over the queries both define, as a sweep compares its configurations.

Each run's own mean (what ``evaluate`` reports for it) is over the queries it defines the metric
on; when the two runs' sets differ (a query one run lacks, a metric undefined in one), the
difference of those means mixes the comparison with the difference of the sets. The delta of a
metric is therefore ``mean_B(S) - mean_A(S)`` over the queries S where both define it, each mean
as the Evaluator aggregates it (exactly rounded; geometric for gm_map), and a note names what
each run lacks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..metrics.names import Metric
from ..metrics.result import summarize

#: Query ids listed in the note before "and N more".
_LISTED = 5


def shared_means(
    queries: pd.DataFrame, names: Sequence[tuple[str, Metric]], geometric: frozenset[Metric]
) -> dict[str, dict[str, float]]:
    """Per run ("a", "b") and metric name: the run's mean over the queries where both runs define the metric."""
    both = {name: (queries[name].notna() & queries[name + "_b"].notna()).to_numpy() for name, _ in names}
    means = {}
    for key, suffix in (("a", ""), ("b", "_b")):
        rows, _ = summarize(lambda name: queries[name + suffix].to_numpy()[both[name]], list(names), [], geometric)
        means[key] = {row.metric: row.mean for row in rows}
    return means


def lacking(evaluated_a: Sequence, evaluated_b: Sequence) -> dict[str, list]:
    """Per run, the evaluated queries of the other run it lacks, in the other run's order."""
    a, b = pd.Index(evaluated_a), pd.Index(evaluated_b)
    return {"a": list(b[~b.isin(a)]), "b": list(a[~a.isin(b)])}


def comparison_note(queries: pd.DataFrame, metrics: Sequence[str], lacks: dict[str, list]) -> str | None:
    """One line when some delta is over fewer queries than the table has: what each run lacks, and the
    metrics defined by both runs on fewer queries than that; None when every delta is over every query."""
    total = len(queries)
    shared = {name: int((queries[name].notna() & queries[name + "_b"].notna()).sum()) for name in metrics}
    if all(count == total for count in shared.values()):
        return None
    parts = [f"{key} lacks {_queries(len(ids))} the other run has ({_listing(ids)})" for key, ids in lacks.items() if ids]
    scored_by_both = total - sum(len(ids) for ids in lacks.values())
    parts += [f"{name} defined by both on {count} of {total}" for name, count in shared.items() if count < scored_by_both]
    return "deltas are over the queries both runs define: " + "; ".join(parts)


def _queries(n: int) -> str:
    return f"{n:,} query" if n == 1 else f"{n:,} queries"


def _listing(ids: list) -> str:
    shown = ", ".join(str(query_id) for query_id in ids[:_LISTED])
    return shown if len(ids) <= _LISTED else f"{shown} and {len(ids) - _LISTED:,} more"


def mean_delta(queries: pd.DataFrame, means: dict[str, dict[str, float]], metric: str) -> float:
    """B - A over the shared queries: from ``means`` (:func:`shared_means`) when it has the metric, else
    the mean of the per-query deltas (the same set, arithmetic mean)."""
    if metric in means.get("b", {}):
        return means["b"][metric] - means["a"][metric]
    deltas = queries[metric + "_delta"].to_numpy(dtype=np.float64)
    return float(np.nanmean(deltas)) if (~np.isnan(deltas)).any() else float("nan")
