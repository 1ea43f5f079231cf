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
    """The mean of ``metric`` at each cutoff k = 1..``max_k`` (``metric`` named with or without ``@k``).

    ``options`` as for :class:`~retrieval_eval.Evaluator`. Returns the columns ``k`` and ``mean``
    (over the evaluated queries, as :func:`~retrieval_eval.evaluate` summarizes), one row per k.
    """
    if not isinstance(max_k, int) or isinstance(max_k, bool) or max_k < 1:
        raise ConfigError(f"max_k must be a positive integer, got {max_k!r}")
    # "ndcg" alone is trec_eval's uncut nDCG: the curve is of its cutoff form, ndcg@k. A metric
    # without one is the registry's error ("fidelity takes no cutoff @k").
    parsed = REGISTRY.parse(metric if "@" in metric else f"{metric}@1")
    metrics = [Metric(parsed.name, k, parsed.params) for k in range(1, max_k + 1)]
    means = Evaluator(qrels, metrics, options=options).evaluate(run).means
    return pd.DataFrame({"k": range(1, max_k + 1), "mean": [means[str(m)] for m in metrics]})
