"""A whole sweep: the leaderboard, joined with each configuration's parameters, their marginal
effects, the Pareto front against cost columns, and (on request) the statistics for many
configurations (:mod:`.significance`)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from .. import views
from ..constraints import check_flag
from ..errors import ConfigError
from ..io import write_table
from .configurations import cost_value
from .effects import marginal_effects, pareto_front
from .ranking import Leaderboard, RankingSettings, check_runs, leaderboard
from .settings import unknown_settings

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .significance import Significance


@dataclass(frozen=True)
class SweepResult:
    """``leaderboard`` (see :class:`~.ranking.Leaderboard`); ``parameters`` (one row per
    configuration); ``effects`` (the objective's marginal effect of each parameter, None without
    parameters); ``pareto`` (on the front or not, None without cost columns); ``sources`` (the
    qrels and runs given as paths, which :meth:`write` and the HTML report never write over);
    ``costs`` (the columns of ``parameters`` that are costs, lower is cheaper, in the order given);
    ``significance`` (None unless asked for: which differences are real, for every pair and every
    metric, :class:`~.significance.Significance`)."""

    leaderboard: Leaderboard
    parameters: pd.DataFrame
    effects: pd.DataFrame | None
    pareto: pd.Series | None
    sources: tuple[str, ...] = ()
    costs: tuple[str, ...] = ()
    significance: Significance | None = None

    @property
    def table(self) -> pd.DataFrame:
        """The leaderboard with the parameters (and ``pareto``) of each configuration, best first."""
        table = self.leaderboard.table.join(self.parameters, how="left")
        if self.pareto is not None:
            table["pareto"] = self.pareto
        return table

    def with_significance(self, **settings: Any) -> SweepResult:
        """This sweep with :attr:`significance` computed (``settings``: those of :func:`~.significance.significance`)."""
        from .significance import significance

        return dataclasses.replace(self, significance=significance(self.leaderboard, **settings))

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write :attr:`table` (parquet, CSV, TSV, JSON or JSON Lines, from the extension), atomically;
        an :class:`~retrieval_eval.errors.OutputError` if ``path`` is (or holds) one of the :attr:`sources`."""
        write_table(self.table.reset_index(), path, inputs=self.sources)

    def __repr__(self) -> str:
        return views.sweep_repr(self)

    def _repr_html_(self) -> str:
        return views.sweep_html(self)


def sweep(
    qrels: Any,
    runs: Mapping[str, Any],
    metrics: Any = None,
    *,
    parameters: pd.DataFrame | None = None,
    costs: Sequence[str] = (),
    sources: Sequence[str | os.PathLike[str]] | None = None,
    significance: bool = False,
    **ranking: Unpack[RankingSettings],
) -> SweepResult:
    """Rank ``runs`` against ``qrels`` (:func:`~.ranking.leaderboard`, which ``ranking`` goes to), and
    relate the ranking to the ``parameters`` (indexed by configuration name) and ``costs`` (columns of it).

    ``sources``: the input files that :meth:`SweepResult.write` and the report never write over;
    by default ``qrels`` and the runs given as paths. A mapping that makes each run when it is
    looked up (a fusion sweep's) gives them, so that its runs are not all made to find them.

    ``significance=True`` adds the statistics for many configurations with their default settings
    and the leaderboard's seed (:meth:`SweepResult.with_significance` takes other settings).

    Every argument is checked before any run is scored: a keyword that is no setting of
    :func:`~.ranking.leaderboard` is a :class:`~retrieval_eval.ConfigError` naming it, and a
    cost that is not a finite number for every configuration is an
    :class:`~retrieval_eval.InputError` naming the configuration and the column.
    """
    unknown_settings(ranking, RankingSettings.__annotations__)
    check_runs(runs)
    check_flag("significance", significance)
    if parameters is not None and not isinstance(parameters, pd.DataFrame):
        raise ConfigError(f"parameters must be a pandas DataFrame indexed by configuration, got {type(parameters).__name__}")
    known = parameters if parameters is not None else pd.DataFrame(index=pd.Index(list(runs), name="configuration"))
    costs = _cost_columns(costs, known)
    for cost in costs:
        for name in runs:
            value = known.at[name, cost] if name in known.index else None
            cost_value(value, configuration=name, cost=cost, source="parameters")
    tie_costs = {name: tuple(float(known.at[name, cost]) for cost in costs) for name in runs} if costs else None
    board = leaderboard(qrels, runs, metrics, tie_costs=tie_costs, **ranking)
    # Checked once the metric columns are known (as the leaderboard names them).
    clashes = [column for column in known.columns if column in board.table.columns or column == "pareto"]
    if clashes:
        raise ConfigError(
            f"parameter {clashes[0]!r} has the name of a column of the leaderboard "
            f"({', '.join(map(str, board.table.columns))}, pareto); rename it"
        )
    frame = board.table[[board.objective]].join(known, how="left")
    names = [column for column in known.columns if column not in costs]
    effects = marginal_effects(frame, names, board.objective) if names else None
    higher = board.higher_is_better
    front = pareto_front(frame, board.objective, list(costs), higher_is_better=higher) if costs else None
    if sources is None:
        sources = [path for path in (qrels, *runs.values()) if isinstance(path, (str, os.PathLike))]
    result = SweepResult(board, known, effects, front, tuple(map(os.fspath, sources)), tuple(costs))
    if significance:
        seed = ranking.get("seed")
        result = result.with_significance(**({} if seed is None else {"seed": seed}))
    return result


def _cost_columns(costs: Any, parameters: pd.DataFrame) -> list[str]:
    """``costs`` as a list of columns of ``parameters`` (a bare string is one name, not its letters: refused)."""
    if isinstance(costs, str) or not isinstance(costs, Sequence):
        raise ConfigError(f"costs must be a list of column names, got {costs!r}")
    for cost in costs:
        if not isinstance(cost, str) or cost not in parameters.columns:
            columns = ", ".join(map(str, parameters.columns)) or "none"
            raise ConfigError(f"cost {cost!r} is not a column of the parameters; their columns are {columns}")
    return list(costs)
