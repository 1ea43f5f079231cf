"""Columnar qrels and runs, and the relevance join (a full ranking, or the judged documents' ranks)."""

from ._table import describe_row, duplicate_policy_code
from .azure_rows import AzureCollection, load_azure_rows
from .join import JudgedRanks, RankedRun, rank_judged, rank_run
from .join_source import JoinSource
from .qrels import Qrels
from .run import Run

__all__ = [
    "AzureCollection", "JoinSource", "JudgedRanks", "Qrels", "RankedRun", "Run", "describe_row", "duplicate_policy_code",
    "load_azure_rows", "rank_judged", "rank_run",
]
