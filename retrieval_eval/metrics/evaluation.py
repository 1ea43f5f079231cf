"""``evaluate()``: score one run against qrels, in one call (an :class:`Evaluator` used once)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .evaluator import Evaluator
from .names import Metric
from .options import DEFAULT_K, EvaluationOptions
from .result import EvaluationResult
from .selection import Thresholds


def evaluate(
    qrels: Any,
    run: Any,
    metrics: Iterable[str | Metric] | str | None = None,
    *,
    k: int = DEFAULT_K,
    thresholds: Thresholds | None = None,
    label_min: int = 0,
    label_max: int = 4,
    rel_level: int = 1,
    query_set: str | None = None,
    ties: str | None = None,
    max_docs: int | None = None,
    run_duplicates: str | None = None,
    qrels_duplicates: str | None = None,
    judged_only: bool = False,
    collection_size: int | None = None,
    judgments: str = "qrels",
) -> EvaluationResult:
    """Score ``run`` against ``qrels``: a per-query table and a summary.

    The options are those of :class:`EvaluationOptions`; to score many runs against the same
    qrels, build an :class:`Evaluator` once instead. Options left at None follow the reference
    of the metrics asked for: trec_eval's when any TREC measure is asked for
    (``query_set="both"``, duplicates raise), azure-ai-evaluation's otherwise
    (``query_set="qrels"``, the last duplicate wins). Ties always follow each metric's own
    reference unless ``ties`` is given.

    Parameters
    ----------
    qrels, run
        A :class:`Qrels`/:class:`Run`, or anything the readers read: a path (TREC text, parquet,
        CSV/TSV, JSONL; optionally .gz), a pandas or polars frame, a pyarrow Table, rows,
        pytrec_eval's nested dict, a ranx Qrels/Run, ir_datasets/ir_measures named tuples, an
        ir_datasets dataset.
    metrics
        Metric names (``"ndcg@10"``, ``"P_5"``, ``"ndcg_exp@10"``, ``"fidelity"``, ...); a name
        that needs a cutoff and has none takes ``k``. Default: Azure's document-retrieval metrics
        at ``k`` plus ``holes@k``.
    thresholds
        ``{metric: value}`` (or ``(metric, value)`` pairs). Adds per-query ``<metric>_passed``
        columns and a verdict; a metric passes when its mean is >= value (<= for lower-is-better
        metrics such as holes). Thresholded metrics are evaluated even when not listed in
        ``metrics``. A metric given two thresholds, under any spellings, is a ConfigError.
    k, rel_level, label_min, label_max, query_set, ties, max_docs, run_duplicates, qrels_duplicates,
    judged_only, collection_size, judgments
        The fields of :class:`EvaluationOptions`, where each is defined.

    Examples
    --------
    >>> result = evaluate("data/qrels.trec", "data/run.trec", ["ndcg@10", "map", "ndcg_exp@10"])  # doctest: +SKIP
    >>> result.summary["mean"]  # doctest: +SKIP
    """
    options = EvaluationOptions(
        k=k,
        rel_level=rel_level,
        label_min=label_min,
        label_max=label_max,
        query_set=query_set,
        ties=ties,
        max_docs=max_docs,
        run_duplicates=run_duplicates,
        qrels_duplicates=qrels_duplicates,
        judged_only=judged_only,
        collection_size=collection_size,
        judgments=judgments,
    )
    return Evaluator(qrels, metrics, thresholds=thresholds, options=options).evaluate(run)
