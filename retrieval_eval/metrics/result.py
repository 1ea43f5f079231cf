"""The result of an evaluation: per-query table, summary, thresholds and verdicts, writers."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
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
class EvaluationSummary:
    """The summary of an evaluation (what every way of evaluating returns).

    ``summary``: one row per metric (index: metric name) with ``mean`` (over queries where the
    metric is defined, exactly rounded; the geometric mean for the metrics defined so, gm_map and
    gm_bpref) and ``undefined`` (queries where it is NaN); with thresholds also ``threshold``,
    ``higher_is_better``, ``passed`` (the mean meets the threshold) and ``pass_rate`` (share of
    queries that pass). ``query_counts``: evaluated, judged_only, retrieved_only, both.
    ``passed``: every thresholded metric passed (None when no thresholds were given).
    """

    run: str
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

    def write_summary(self, path: str | os.PathLike[str]) -> None:
        """Write the summary: JSON for .json, else a table with one row per metric."""
        if os.fspath(path).lower().endswith(".json"):
            write_json(self.to_dict(), path)
        else:
            write_table(self.summary.reset_index(names="metric"), path)


@dataclass(frozen=True, eq=False)
class EvaluationResult(EvaluationSummary):
    """What :func:`retrieval_eval.evaluate` returns: the summary and the per-query table.

    ``per_query``: one row per evaluated query: ``query_id``, one column per metric, and a
    ``<metric>_passed`` column per thresholded metric.
    """

    per_query: pd.DataFrame

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the per-query table; the format comes from the extension (.parquet, .csv, .tsv, .json, .jsonl)."""
        write_table(self.per_query, path)


def build_result(
    run: str,
    query_ids: pd.Series,
    columns: dict[Metric, np.ndarray],
    integer_metrics: set[Metric],
    thresholds: list[Threshold],
    query_counts: dict[str, int],
    geometric_metrics: set[Metric] = frozenset(),
) -> EvaluationResult:
    per_query = per_query_table(query_ids, columns, integer_metrics, thresholds)
    summary, verdict = summarize(columns.__getitem__, list(columns), thresholds, geometric_metrics)
    return EvaluationResult(run=run, summary=summary, query_counts=query_counts, passed=verdict, per_query=per_query)


def per_query_table(
    query_ids: pd.Series,
    columns: dict[Metric, np.ndarray],
    integer_metrics: set[Metric],
    thresholds: list[Threshold],
) -> pd.DataFrame:
    """``query_id``, one column per metric (int64 for integer metrics), then ``<metric>_passed`` per threshold."""
    per_query = pd.DataFrame({"query_id": query_ids})
    for metric, values in columns.items():
        per_query[str(metric)] = values.astype(np.int64) if metric in integer_metrics else values
    for threshold in thresholds:
        per_query[f"{threshold.metric}_passed"] = threshold.passes(columns[threshold.metric])
    return per_query


def summarize(
    values_of: Callable[[Metric], np.ndarray],
    metrics: list[Metric],
    thresholds: list[Threshold],
    geometric_metrics: set[Metric] = frozenset(),
) -> tuple[pd.DataFrame, bool | None]:
    """The summary table and the verdict, from each metric's per-query values.

    ``values_of(metric)`` gives that metric's values over all evaluated queries, in any order:
    the means are exactly rounded (:func:`math.fsum`), so they do not depend on the order of
    the queries, nor on how they were split into chunks or partitions. Each metric's values are
    asked for once, so a caller may read them one column at a time.
    """
    by_metric = {threshold.metric: threshold for threshold in thresholds}
    rows = []
    for metric in metrics:
        values = np.asarray(values_of(metric), dtype=np.float64)
        row: dict[str, Any] = {
            "mean": _geometric_mean(values) if metric in geometric_metrics else _mean(values),
            "undefined": int(np.isnan(values).sum()),
        }
        if thresholds:
            threshold = by_metric.get(metric)
            row.update(threshold=math.nan, higher_is_better=pd.NA, passed=pd.NA, pass_rate=math.nan)
            if threshold is not None:
                row.update(
                    threshold=threshold.value,
                    higher_is_better=threshold.higher_is_better,
                    passed=bool(threshold.passes(np.array([row["mean"]]))[0]),
                    pass_rate=float(threshold.passes(values).mean()) if len(values) else math.nan,
                )
        rows.append(row)
    summary = pd.DataFrame(rows, index=pd.Index([str(m) for m in metrics], name="metric"))
    summary["undefined"] = summary["undefined"].astype(np.int64)
    if not thresholds:
        return summary, None
    for column in ("higher_is_better", "passed"):
        summary[column] = summary[column].astype("boolean")
    summary["threshold"] = summary["threshold"].astype(np.float64)
    summary["pass_rate"] = summary["pass_rate"].astype(np.float64)
    return summary, bool(summary["passed"].dropna().all())


def _mean(values: np.ndarray) -> float:
    """The exactly rounded mean of the defined values (NaN when none is)."""
    defined = values[~np.isnan(values)]
    return math.fsum(defined) / len(defined) if len(defined) else math.nan


# trec_eval's floor for geometric means: one query at 0 does not make the whole summary 0.
GEOMETRIC_FLOOR = 0.00001


def _geometric_mean(values: np.ndarray) -> float:
    """exp(mean(log(max(v, 1e-5)))) over the defined values, as trec_eval's gm_map."""
    defined = values[~np.isnan(values)]
    return math.exp(_mean(np.log(np.maximum(defined, GEOMETRIC_FLOOR)))) if len(defined) else math.nan


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
