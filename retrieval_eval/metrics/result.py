"""The result of an evaluation: per-query table, summary, thresholds and verdicts, writers."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import views
from .names import Metric

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa



@dataclass(frozen=True)
class Threshold:
    """Pass when the value is >= ``value`` (higher is better) or <= ``value`` (lower is better); NaN fails.

    ``name``: the metric's name as the threshold gave it (its ``<name>_passed`` column); its
    canonical name when not given.
    """

    metric: Metric
    value: float
    higher_is_better: bool
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", str(self.metric))

    def passes(self, values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=np.float64)
        return values >= self.value if self.higher_is_better else values <= self.value


@dataclass(frozen=True)
class SummaryRow:
    """One metric's line of a summary: its mean over the queries where it is defined, and its verdict.

    ``metric``: the name it was asked by (``P@5``); ``canonical``: the registry's name of the
    metric (``precision@5``). ``mean``: exactly rounded (the geometric mean for gm_map and
    gm_bpref); ``undefined``: queries where the metric is NaN. With a threshold, ``passed`` (the
    mean meets it) and ``pass_rate`` (share of queries that pass); None and NaN without one.
    """

    metric: str
    mean: float
    undefined: int
    threshold: Threshold | None = None
    passed: bool | None = None
    pass_rate: float = math.nan
    canonical: str = ""


@dataclass(frozen=True, eq=False, repr=False)
class EvaluationSummary:
    """The summary of an evaluation (what every way of evaluating returns).

    ``rows``: one :class:`SummaryRow` per metric. ``summary``: the same as a DataFrame, one row
    per metric (index: metric name) with ``mean`` and ``undefined``; with thresholds also
    ``threshold``, ``higher_is_better``, ``passed`` and ``pass_rate``. ``query_counts``:
    evaluated, judged_only, retrieved_only, both. ``passed``: every thresholded metric passed
    (None when no thresholds were given). ``sources``: the files the evaluation read (the qrels
    and run given as paths), which :meth:`write_summary` (and a result's ``write``) refuse to
    write over. pandas is imported only when ``summary`` is read.
    """

    run: str
    rows: tuple[SummaryRow, ...]
    query_counts: dict[str, int]
    passed: bool | None
    sources: tuple[str, ...] = field(default=(), kw_only=True)

    @property
    def has_thresholds(self) -> bool:
        return self.passed is not None

    @property
    def means(self) -> dict[str, float]:
        """Each metric's mean by the name it was asked by (ranx's ``evaluate`` shape)."""
        return {row.metric: row.mean for row in self.rows}

    @property
    def canonical_names(self) -> dict[str, str]:
        """The name each metric was asked by -> the registry's canonical name (``{"P@5": "precision@5"}``)."""
        return {row.metric: row.canonical or row.metric for row in self.rows}

    def summary_records(self) -> list[dict[str, Any]]:
        """The summary's columns per metric: ``metric``, ``mean``, ``undefined`` (and the threshold columns)."""
        records = []
        for row in self.rows:
            record: dict[str, Any] = {"metric": row.metric, "mean": row.mean, "undefined": row.undefined}
            if self.has_thresholds:
                threshold = row.threshold
                record.update(
                    threshold=math.nan if threshold is None else threshold.value,
                    higher_is_better=None if threshold is None else threshold.higher_is_better,
                    passed=row.passed,
                    pass_rate=row.pass_rate,
                )
            records.append(record)
        return records

    @cached_property
    def summary(self) -> pd.DataFrame:
        import pandas as pd

        summary = pd.DataFrame(self.summary_records()).set_index("metric")
        summary["undefined"] = summary["undefined"].astype(np.int64)
        if self.has_thresholds:
            for column in ("higher_is_better", "passed"):
                summary[column] = summary[column].astype("boolean")
            summary["threshold"] = summary["threshold"].astype(np.float64)
            summary["pass_rate"] = summary["pass_rate"].astype(np.float64)
        summary["mean"] = summary["mean"].astype(np.float64)
        return summary

    def summary_dict(self) -> dict[str, Any]:
        """The summary as plain JSON-ready values (NaN becomes None): run, passed, query counts, metrics."""
        metrics = {
            record.pop("metric"): {column: _plain(value) for column, value in record.items()}
            for record in self.summary_records()
        }
        return {"run": self.run, "passed": self.passed, "queries": dict(self.query_counts), "metrics": metrics}

    def write_summary(self, path: str | os.PathLike[str]) -> None:
        """Write the summary: JSON for .json, else a table with one row per metric."""
        from ..io import write_json, write_table

        if os.fspath(path).lower().endswith(".json"):
            write_json(self.summary_dict(), path, inputs=self.sources)
        else:
            write_table(self.summary.reset_index(names="metric"), path, inputs=self.sources)

    def __repr__(self) -> str:
        return views.summary_repr(self)

    def _repr_html_(self) -> str:
        return views.summary_html(self)


@dataclass(frozen=True, eq=False, repr=False)
class EvaluationResult(EvaluationSummary):
    """What :func:`retrieval_eval.evaluate` and :meth:`Evaluator.evaluate` return: the summary and the per-query values.

    ``per_query``: one row per evaluated query: ``query_id``, one column per metric under the name
    it was asked by, and a ``<name>_passed`` column per threshold (a DataFrame built on first use);
    ``values(metric)``: one metric's per-query values as an array, in the same order; ``to_dict()``:
    pytrec_eval's ``{query_id: {metric: value}}``; ``to_long()``: one row per query and metric.
    ``columns`` holds each distinct metric's values once; ``names`` pairs each name with its metric.
    """

    query_ids: pa.Array
    columns: dict[Metric, np.ndarray]
    integer_metrics: frozenset[Metric]
    thresholds: tuple[Threshold, ...]
    names: tuple[tuple[str, Metric], ...] = ()

    def __post_init__(self) -> None:
        if not self.names:
            object.__setattr__(self, "names", tuple((str(metric), metric) for metric in self.columns))

    def values(self, metric: str | Metric) -> np.ndarray:
        """The per-query values of ``metric``: a :class:`Metric`, the name it was asked by, or any of its
        names (``P_5``, ``precision@5``)."""
        if not isinstance(metric, str):
            if metric in self.columns:
                return self.columns[metric]
        elif metric in self._metric_of_name:
            return self.columns[self._metric_of_name[metric]]
        else:
            from ..errors import ConfigError
            from .registry import REGISTRY

            try:
                parsed = REGISTRY.parse(metric)
            except ConfigError:
                parsed = None
            if parsed in self.columns:
                return self.columns[parsed]
        raise KeyError(f"{metric} was not evaluated; evaluated: {', '.join(name for name, _ in self.names)}")

    @cached_property
    def _metric_of_name(self) -> dict[str, Metric]:
        # Built once: trec_eval's front end looks up thousands of measures (-m P.1,...,10000) one by one.
        return {**{str(metric): metric for metric in self.columns}, **dict(self.names)}

    @cached_property
    def per_query(self) -> pd.DataFrame:
        return self.per_query_arrow().to_pandas()

    def per_query_arrow(self, rows: int | None = None) -> pa.Table:
        """:attr:`per_query` as an Arrow table, built without pandas (what :meth:`write` writes); its first
        ``rows`` rows only when given."""
        if rows is None:
            return per_query_table(self.query_ids, self.columns, self.integer_metrics, list(self.thresholds), self.names)
        columns = {metric: values[:rows] for metric, values in self.columns.items()}
        return per_query_table(self.query_ids[:rows], columns, self.integer_metrics, list(self.thresholds), self.names)

    def __repr__(self) -> str:
        return views.result_repr(self)

    def _repr_html_(self) -> str:
        return views.result_html(self)

    def to_dict(self) -> dict[Any, dict[str, float]]:
        """pytrec_eval's shape: ``{query_id: {metric name: value}}``, values as floats (counts too, as pytrec_eval gives them)."""
        names = [name for name, _ in self.names]
        rows = self._value_matrix().tolist()
        return {query: dict(zip(names, row)) for query, row in zip(self.query_ids.to_pylist(), rows)}

    def _value_matrix(self) -> np.ndarray:
        """Queries x names, float64: each name's per-query values as a column."""
        columns = [self.columns[metric].astype(np.float64) for _, metric in self.names]
        return np.column_stack(columns) if columns else np.empty((len(self.query_ids), 0))

    def long_arrow(self) -> pa.Table:
        """:meth:`to_long` as an Arrow table."""
        import pyarrow as pa

        from ..io.arrays import arrow_array, text_array

        n_queries, n_names = len(self.query_ids), len(self.names)
        names = text_array([name for name, _ in self.names])
        return pa.table({
            "query_id": self.query_ids.take(arrow_array(np.repeat(np.arange(n_queries), n_names))),
            "metric": names.take(arrow_array(np.tile(np.arange(n_names), n_queries))),
            "value": arrow_array(self._value_matrix().reshape(-1)),
        })

    def to_long(self) -> pd.DataFrame:
        """The tidy table: one row per query and metric (``query_id``, ``metric``, ``value`` as float64),
        queries in order, each query's metrics in the order asked."""
        return self.long_arrow().to_pandas()

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the per-query table; the format comes from the extension (.parquet, .csv, .tsv, .json, .jsonl).

        Never over a source (:attr:`sources`): an ``OutputError`` says which.
        """
        from ..io import write_table

        write_table(self.per_query_arrow(), path, inputs=self.sources)


def per_query_table(
    query_ids: pa.Array,
    columns: dict[Metric, np.ndarray],
    integer_metrics: frozenset[Metric] | set[Metric],
    thresholds: list[Threshold],
    names: tuple[tuple[str, Metric], ...] | list[tuple[str, Metric]] = (),
) -> pa.Table:
    """``query_id``, a column per name (default: each metric's canonical name; int64 for integer
    metrics), then ``<name>_passed`` per threshold."""
    import pyarrow as pa

    from ..io.arrays import arrow_array

    table: dict[str, pa.Array] = {"query_id": query_ids}
    for name, metric in names or [(str(metric), metric) for metric in columns]:
        values = columns[metric]
        table[name] = arrow_array(values.astype(np.int64) if metric in integer_metrics else values)
    for threshold in thresholds:
        table[f"{threshold.name}_passed"] = arrow_array(threshold.passes(columns[threshold.metric]))
    return pa.table(table)


def summarize(
    values_of: Callable[[str], np.ndarray],
    names: list[tuple[str, Metric]],
    thresholds: list[Threshold],
    geometric_metrics: frozenset[Metric] | set[Metric] = frozenset(),
) -> tuple[tuple[SummaryRow, ...], bool | None]:
    """The summary rows (one per name) and the verdict, from each metric's per-query values.

    ``values_of(name)`` gives the values of the metric named ``name`` over all evaluated queries,
    in any order: the means are exactly rounded (:func:`math.fsum`), so they do not depend on the
    order of the queries, nor on how they were split into chunks or partitions. Each name's values
    are asked for once, so a caller may read them one column at a time.
    """
    by_metric = {threshold.metric: threshold for threshold in thresholds}
    rows = []
    for name, metric in names:
        values = np.asarray(values_of(name), dtype=np.float64)
        mean = _geometric_mean(values) if metric in geometric_metrics else _mean(values)
        undefined = int(np.isnan(values).sum())
        threshold = by_metric.get(metric)
        if threshold is None:
            rows.append(SummaryRow(name, mean, undefined, canonical=str(metric)))
            continue
        passed = bool(threshold.passes(np.array([mean]))[0])
        pass_rate = float(threshold.passes(values).mean()) if len(values) else math.nan
        rows.append(SummaryRow(name, mean, undefined, threshold, passed, pass_rate, canonical=str(metric)))
    verdict = all(row.passed for row in rows if row.threshold is not None) if thresholds else None
    return tuple(rows), verdict


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
    if value is None:
        return None
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    return value
