"""Columnar qrels and runs, and the single relevance join."""

from .azure_rows import AzureCollection, load_azure_rows
from .join import RankedRun, rank_run
from .qrels import Qrels
from .run import Run

__all__ = ["AzureCollection", "Qrels", "RankedRun", "Run", "load_azure_rows", "rank_run"]
