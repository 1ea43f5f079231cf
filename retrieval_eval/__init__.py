"""retrieval_eval: fast, exact evaluation of search and RAG retrieval.

>>> import retrieval_eval as rx
>>> result = rx.evaluate("data/qrels.trec", "data/run.trec", ["ndcg_exp@10", "fidelity"])  # doctest: +SKIP
>>> evaluator = rx.Evaluator("data/qrels.trec", ["ndcg@10", "map"])  # doctest: +SKIP
>>> [evaluator.evaluate(run).means for run in ("a.trec", "b.trec")]  # doctest: +SKIP

Names are loaded on first use: ``import retrieval_eval`` alone loads neither pandas nor numba.
"""

from __future__ import annotations

from ._lazy import lazy_attributes
from .errors import ConfigError, InputError, MissingQueryError, OutputError, RetrievalEvalError, UnknownMetricError  # noqa: F401 (in __all__)

__version__ = "0.1.0"

_EXPORTS = {
    "Qrels": ".data",
    "Run": ".data",
    "DatasetResult": ".scale",
    "evaluate_dataset": ".scale",
    "REGISTRY": ".metrics",
    "EvaluationOptions": ".metrics",
    "EvaluationResult": ".metrics",
    "Evaluator": ".metrics",
    "Metric": ".metrics",
    "evaluate": ".metrics",
    "trec_eval": ".frontends.trec_eval.run",
    "fuse": ".fusion",
    "JudgeSettings": ".judging",
    "judge_holes": ".judging",
    "label_agreement": ".judging",
    "ranking_agreement": ".judging",
}

__all__ = sorted(
    [*_EXPORTS, "ConfigError", "InputError", "MissingQueryError", "OutputError", "RetrievalEvalError", "UnknownMetricError", "__version__"]
)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
