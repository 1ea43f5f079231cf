"""A whole sweep: the leaderboard, joined with each configuration's parameters, their marginal
effects, and the Pareto front against cost columns."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..io import write_table
from ..metrics.registry import REGISTRY
from .effects import marginal_effects, pareto_front
from .leaderboard import Leaderboard, RankingSettings, leaderboard

if TYPE_CHECKING:
    from typing_extensions import Unpack


@dataclass(frozen=True)
class SweepResult:
    """``leaderboard`` (see :class:`~.leaderboard.Leaderboard`); ``parameters`` (one row per
    configuration); ``effects`` (the objective's marginal effect of each parameter, None without
    parameters); ``pareto`` (on the front or not, None without cost columns)."""

    leaderboard: Leaderboard
    parameters: pd.DataFrame
    effects: pd.DataFrame | None
    pareto: pd.Series | None

    @property
    def table(self) -> pd.DataFrame:
        """The leaderboard with the parameters (and ``pareto``) of each configuration, best first."""
        table = self.leaderboard.table.join(self.parameters, how="left")
        if self.pareto is not None:
            table["pareto"] = self.pareto
        return table

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write :attr:`table` (parquet, CSV, TSV, JSON or JSON Lines, from the extension), atomically."""
        write_table(self.table.reset_index(), path)


def sweep(
    qrels: Any,
    runs: Mapping[str, Any],
    metrics: Any = None,
    *,
    parameters: pd.DataFrame | None = None,
    costs: Sequence[str] = (),
    **ranking: Unpack[RankingSettings],
) -> SweepResult:
    """Rank ``runs`` against ``qrels`` (:func:`~.leaderboard.leaderboard`, which ``ranking`` goes to), and
    relate the ranking to the ``parameters`` (indexed by configuration name) and ``costs`` (columns of it)."""
    board = leaderboard(qrels, runs, metrics, **ranking)
    known = parameters if parameters is not None else pd.DataFrame(index=pd.Index(list(runs), name="configuration"))
    frame = board.table[[board.objective]].join(known, how="left")
    names = [column for column in known.columns if column not in costs]
    effects = marginal_effects(frame, names, board.objective) if names else None
    higher = REGISTRY.definition(REGISTRY.parse(board.objective)).higher_is_better
    front = pareto_front(frame, board.objective, list(costs), higher_is_better=higher) if costs else None
    return SweepResult(board, known, effects, front)
