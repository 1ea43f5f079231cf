"""The last step of every way of scoring a dataset: the judged queries no piece had, the summary, the rename into place."""

from __future__ import annotations

from collections.abc import Callable

from ..metrics.evaluator import Evaluator
from ..metrics.result import summarize
from ..policies import SETS_WITH_JUDGED_ONLY
from .output import PerQueryDataset
from .pieces import QueryTally, score_judged_only
from .result import DatasetResult

#: ``progress(done, total, label)``: called as files, buckets or partitions are finished.
Progress = Callable[[int, int, str], None]


def finish(evaluator: Evaluator, tally: QueryTally, dataset: PerQueryDataset, label: str) -> DatasetResult:
    """Score the judged queries no piece retrieved for (query sets "qrels" and "union"), then :func:`publish`."""
    if evaluator.options.query_set in SETS_WITH_JUDGED_ONLY and len(tally.judged_only):
        dataset.add(score_judged_only(evaluator, tally.judged_only), name="judged-only")
    return publish(evaluator, dataset, label, tally.counts())


def publish(evaluator: Evaluator, dataset: PerQueryDataset, label: str, counts: dict[str, int]) -> DatasetResult:
    """Summarize the per-query dataset (one column at a time) and move it to its target.

    ``counts``: judged_only, retrieved_only and both; evaluated is the dataset's row count.
    """
    plan = evaluator.plan
    rows, passed = summarize(
        dataset.column, list(plan.names), list(plan.thresholds), plan.geometric_metrics
    )
    query_counts = {"evaluated": dataset.n_rows(), **counts}
    return DatasetResult(run=label, rows=rows, query_counts=query_counts, passed=passed, output=dataset.publish())
