"""Cutoff curves: metric@k for every k from 1 to K, from one deep run.

A top_k sweep needs no new search: the run retrieved to depth K already holds every shallower
run, because a run cut at k is its first k results. All K cutoffs are computed together, in one
evaluation (each family's kernel fills every requested cutoff in one pass over the run).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import ConfigError
from ..metrics.evaluator import Evaluator
from ..metrics.names import Metric
from ..metrics.options import EvaluationOptions
from ..metrics.registry import REGISTRY


def cutoff_curve(
    qrels: Any, run: Any, metric: str, max_k: int, *, options: EvaluationOptions | None = None
) -> pd.DataFrame:
    """The mean of ``metric`` at each cutoff k = 1..``max_k``.

    ``metric`` is named without a cutoff (``ndcg``, ``recall``, ``P(rel=2)``): the curve is of its
    cutoff form. A name that fixes a cutoff (``ndcg@5``, ``P_5``) is a :class:`ConfigError`, as
    is a metric without a cutoff form (``fidelity``). ``options`` as for
    :class:`~retrieval_eval.Evaluator`. Returns the columns ``k`` and ``mean`` (over the
    evaluated queries, as :func:`~retrieval_eval.evaluate` summarizes), one row per k.
    """
    if not isinstance(max_k, int) or isinstance(max_k, bool) or max_k < 1:
        raise ConfigError(f"max_k must be a positive integer, got {max_k!r}")
    # A name's own cutoff does not move with the default k: ndcg@5 would be ndcg@5 at every point.
    written = REGISTRY.parse(metric, default_k=1)
    if written.k is not None and REGISTRY.parse(metric, default_k=2).k == written.k:
        bare = Metric(written.name, None, written.params)
        raise ConfigError(
            f"cutoff_curve takes the metric without a cutoff, got {metric!r}: it computes {bare}@k for k = 1..max_k"
        )
    # "ndcg" alone is trec_eval's uncut nDCG: the curve is of its cutoff form, ndcg@k.
    metrics = [REGISTRY.with_cutoff(written, k) for k in range(1, max_k + 1)]
    means = Evaluator(qrels, metrics, options=options).evaluate(run).means
    return pd.DataFrame({"k": range(1, max_k + 1), "mean": [means[str(m)] for m in metrics]})
