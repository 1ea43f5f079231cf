"""Evaluation of runs stored as parquet datasets: streamed within a memory budget, or on Dask."""

from .budget import DEFAULT_BUDGET, parse_memory_budget
from .result import DatasetResult
from .stream import evaluate_dataset

__all__ = ["DEFAULT_BUDGET", "DatasetResult", "evaluate_dataset", "parse_memory_budget"]
