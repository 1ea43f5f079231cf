"""retrieval_eval: fast, exact evaluation of search and RAG retrieval.

>>> import retrieval_eval as re_
>>> result = re_.evaluate("data/qrels.trec", "data/run.trec", ["ndcg_exp@10", "fidelity"])  # doctest: +SKIP
"""

from .data import Qrels, Run
from .dataset import DatasetResult, evaluate_dataset
from .errors import ConfigError, InputError, OutputError, RetrievalEvalError, UnknownMetricError
from .metrics import REGISTRY, EvaluationResult, Metric, evaluate

__version__ = "0.1.0"

__all__ = [
    "REGISTRY",
    "ConfigError",
    "DatasetResult",
    "EvaluationResult",
    "InputError",
    "Metric",
    "OutputError",
    "Qrels",
    "RetrievalEvalError",
    "Run",
    "UnknownMetricError",
    "__version__",
    "evaluate",
    "evaluate_dataset",
]
