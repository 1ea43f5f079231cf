"""The result of an evaluation: per-query table, summary, thresholds and verdicts, writers."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..io import write_json, write_table
from .names import Metric


@dataclass(frozen=True)
class Threshold:
    """Pass when the value is >= ``value`` (higher is better) or <= ``value`` (lower is better); NaN fails."""

    metric: Metric
    value: float
    higher_is_better: bool

    def passes(self, values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=np.float64)
        return values >= self.value if self.higher_is_better else values <= self.value


@dataclass(frozen=True, eq=False)
class EvaluationResult:
    """What :func:`retrieval_eval.evaluate` returns.

    ``per_query``: one row per evaluated query: ``query_id``, one column per metric, and a
    ``<metric>_passed`` column per thresholded metric. ``summary``: one row per metric (index:
    metric name) with ``mean`` (over queries where the metric is defined; the geometric mean for
    the metrics defined so, gm_map and gm_bpref) and ``undefined``
    (queries where it is NaN); with thresholds also ``threshold``, ``higher_is_better``,
    ``passed`` (the mean meets the threshold) and ``pass_rate`` (share of queries that pass).
    ``query_counts``: evaluated, judged_only, retrieved_only, both. ``passed``: every thresholded
    metric passed (None when no thresholds were given).
    """

    run: str
    per_query: pd.DataFrame
    summary: pd.DataFrame
    query_counts: dict[str, int]
    passed: bool | None

    @property
    def means(self) -> dict[str, float]:
        return {name: float(value) for name, value in self.summary["mean"].items()}

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain JSON-ready values (NaN becomes None)."""
        metrics = {
            name: {column: _plain(value) for column, value in row.items()}
            for name, row in self.summary.to_dict(orient="index").items()
        }
        return {"run": self.run, "passed": self.passed, "queries": dict(self.query_counts), "metrics": metrics}

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the per-query table; the format comes from the extension (.parquet, .csv, .tsv, .json, .jsonl)."""
        write_table(self.per_query, path)

    def write_summary(self, path: str | os.PathLike[str]) -> None:
        """Write the summary: JSON for .json, else a table with one row per metric."""
        if os.fspath(path).lower().endswith(".json"):
            write_json(self.to_dict(), path)
        else:
            write_table(self.summary.reset_index(names="metric"), path)


def build_result(
    run: str,
    query_ids: pd.Series,
    columns: dict[Metric, np.ndarray],
    integer_metrics: set[Metric],
    thresholds: list[Threshold],
    query_counts: dict[str, int],
    geometric_metrics: set[Metric] = frozenset(),
) -> EvaluationResult:
    per_query = pd.DataFrame({"query_id": query_ids})
    for metric, values in columns.items():
        per_query[str(metric)] = values.astype(np.int64) if metric in integer_metrics else values
    summary = pd.DataFrame(
        {
            "mean": [
                _geometric_mean(values) if metric in geometric_metrics else _mean(values)
                for metric, values in columns.items()
            ],
            "undefined": [int(np.isnan(values).sum()) for values in columns.values()],
        },
        index=pd.Index([str(m) for m in columns], name="metric"),
    )
    verdict = None
    if thresholds:
        summary["threshold"] = np.nan
        summary["higher_is_better"] = pd.array([pd.NA] * len(summary), dtype="boolean")
        summary["passed"] = pd.array([pd.NA] * len(summary), dtype="boolean")
        summary["pass_rate"] = np.nan
        for threshold in thresholds:
            name = str(threshold.metric)
            per_query_pass = threshold.passes(columns[threshold.metric])
            per_query[f"{name}_passed"] = per_query_pass
            summary.loc[name, "threshold"] = threshold.value
            summary.loc[name, "higher_is_better"] = threshold.higher_is_better
            summary.loc[name, "passed"] = bool(threshold.passes(np.array([summary.loc[name, "mean"]]))[0])
            summary.loc[name, "pass_rate"] = float(per_query_pass.mean()) if len(per_query_pass) else math.nan
        verdict = bool(summary["passed"].dropna().all())
    return EvaluationResult(run, per_query, summary, query_counts, verdict)


def _mean(values: np.ndarray) -> float:
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if len(defined) else math.nan


# trec_eval's floor for geometric means: one query at 0 does not make the whole summary 0.
GEOMETRIC_FLOOR = 0.00001


def _geometric_mean(values: np.ndarray) -> float:
    """exp(mean(log(max(v, 1e-5)))) over the defined values, as trec_eval's gm_map."""
    defined = values[~np.isnan(values)]
    return float(np.exp(np.log(np.maximum(defined, GEOMETRIC_FLOOR)).mean())) if len(defined) else math.nan


def _plain(value: Any) -> Any:
    if value is pd.NA:
        return None
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    return value
