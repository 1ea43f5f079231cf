"""What :func:`~retrieval_eval.evaluate_dataset` returns: the summary, and where the per-query dataset is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import views
from ..errors import ConfigError
from ..metrics.result import EvaluationSummary

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, eq=False)
class DatasetResult(EvaluationSummary):
    """The summary of a dataset evaluation; ``output``: the per-query dataset directory (None if none was asked for)."""

    output: str | None

    def read_per_query(self) -> pd.DataFrame:
        """The per-query dataset, read into memory (parts in order; rows not in qrels order)."""
        if self.output is None:
            raise ConfigError("no per-query dataset was written: give evaluate_dataset an output directory")
        import pandas as pd

        return pd.read_parquet(self.output)

    def __repr__(self) -> str:
        return views.summary_repr(self, extra=[("output", self.output)])

    def _repr_html_(self) -> str:
        return views.summary_html(self, extra=[("output", self.output)])
