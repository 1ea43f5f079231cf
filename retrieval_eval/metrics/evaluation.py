"""``evaluate()``: score one run against qrels, in one call (an :class:`Evaluator` used once)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .evaluator import Evaluator
from .names import Metric
from .options import DEFAULT_K, EvaluationOptions
from .result import EvaluationResult


def evaluate(
    qrels: Any,
    run: Any,
    metrics: Iterable[str | Metric] | str | None = None,
    *,
    k: int = DEFAULT_K,
    thresholds: Mapping[str | Metric, float] | None = None,
    label_min: int = 0,
    label_max: int = 4,
    rel_level: int = 1,
    query_set: str | None = None,
    ties: str | None = None,
    max_docs: int | None = None,
    run_duplicates: str | None = None,
    qrels_duplicates: str | None = None,
) -> EvaluationResult:
    """Score ``run`` against ``qrels``: a per-query table and a summary.

    The options are those of :class:`EvaluationOptions`; to score many runs against the same
    qrels, build an :class:`Evaluator` once instead. Options left at None follow the reference of the metrics asked for: trec_eval's when any
    TREC measure is asked for (``query_set="both"``, duplicates raise), azure-ai-evaluation's
    otherwise (``query_set="qrels"``, the last duplicate wins). Ties always follow each metric's
    own reference unless ``ties`` is given.

    Parameters
    ----------
    qrels, run
        A :class:`Qrels`/:class:`Run`, a path (TREC text, parquet, CSV/TSV, JSONL; optionally
        .gz), a pandas DataFrame, a pyarrow Table, or a list of row dicts.
    metrics
        Metric names (``"ndcg@10"``, ``"P_5"``, ``"ndcg_exp@10"``, ``"fidelity"``, ...); a name
        that needs a cutoff and has none takes ``k``. Default: Azure's document-retrieval metrics
        at ``k`` plus ``holes@k``.
    k
        Default cutoff (Azure's evaluator uses 3).
    thresholds
        ``{metric: value}``. Adds per-query ``<metric>_passed`` columns and a verdict; a metric
        passes when its mean is >= value (<= for lower-is-better metrics such as holes).
        Thresholded metrics are evaluated even when not listed in ``metrics``.
    label_min, label_max
        The label scale of the document-retrieval metrics (Azure's ground_truth_label_min/max);
        labels outside it are an error when such a metric is asked for. ``label_min`` is the
        irrelevant grade for fidelity.
    rel_level
        TREC measures: a document is relevant when its label is >= rel_level (trec_eval's
        ``-l``), unless the metric's name sets ``rel`` itself (``precision(rel=2)@10``).
    query_set
        ``"qrels"`` (every judged query; one the run lacks counts as retrieving nothing;
        trec_eval's ``-c``), ``"both"`` (only queries in both; trec_eval's default), ``"union"``
        (also the run's unjudged queries).
    ties
        How equal scores are ordered for every metric: ``"docid"`` (descending document id,
        trec_eval) or ``"input"`` (input order, azure-ai-evaluation and ranx).
    max_docs
        TREC measures: rank only the top max_docs documents of each query (trec_eval's ``-M``).
    run_duplicates, qrels_duplicates
        A document repeated within a query: which score/label counts, ``"last"``, ``"first"``,
        ``"max"``, or ``"raise"`` (an error naming the first repeated row).

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
    )
    return Evaluator(qrels, metrics, thresholds=thresholds, options=options).evaluate(run)
