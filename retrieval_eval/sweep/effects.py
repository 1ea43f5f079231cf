"""What a sweep says about its parameters: the marginal effect of each, and the Pareto front against costs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import ConfigError
from .configurations import cost_value


def marginal_effects(configurations: pd.DataFrame, parameters: Sequence[str], metric: str) -> pd.DataFrame:
    """The mean of ``metric`` for each value of each parameter, over the configurations with that value.

    ``configurations`` has one row per configuration, a column per parameter and the column
    ``metric`` (its mean over queries). For parameter p and value v the effect is the mean of
    ``metric`` over the configurations with p = v, each configuration counted once: in a full
    grid, that is the average over every combination of the other parameters. Returns the
    columns ``parameter``, ``value``, ``mean``, ``configurations`` (how many were averaged) and
    ``delta`` (the mean minus the mean over all configurations), values in ascending order.
    """
    _require(configurations, [*parameters, metric])
    overall = configurations[metric].mean()
    parts = []
    for parameter in parameters:
        grouped = configurations.groupby(parameter, sort=True, dropna=False)[metric].agg(["mean", "count"])
        parts.append(
            pd.DataFrame(
                {
                    "parameter": parameter,
                    "value": grouped.index.to_numpy(dtype=object),
                    "mean": grouped["mean"].to_numpy(),
                    "configurations": grouped["count"].to_numpy(),
                    "delta": grouped["mean"].to_numpy() - overall,
                }
            )
        )
    columns = ["parameter", "value", "mean", "configurations", "delta"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)


def pareto_front(
    configurations: pd.DataFrame, objective: str, costs: Sequence[str], *, higher_is_better: bool = True
) -> pd.Series:
    """Which configurations are on the Pareto front of ``objective`` against the ``costs`` (lower is cheaper).

    A configuration is *dominated* when another is at least as good on the objective and at
    least as cheap on every cost, and strictly better on one of them; the front is the
    configurations no other dominates. Returns a boolean Series aligned with ``configurations``.
    A cost that is not a finite number is an :class:`~retrieval_eval.InputError` naming the
    configuration and the column (:func:`~.configurations.cost_value`).
    """
    _require(configurations, [objective, *costs])
    if not costs:
        raise ConfigError("give at least one cost column (latency_ms, tokens, price, ...)")
    goal = configurations[objective].to_numpy(dtype=np.float64)
    if np.isnan(goal).any():
        raise ConfigError(f"the objective {objective!r} must not be missing (NaN) for any configuration")
    columns = [
        [cost_value(value, configuration=name, cost=cost, source="configurations") for name, value in configurations[cost].items()]
        for cost in costs
    ]
    # Every criterion as "lower is better".
    values = np.column_stack([-goal if higher_is_better else goal, *(np.array(c, dtype=np.float64) for c in columns)])
    no_worse = np.all(values[:, None, :] <= values[None, :, :], axis=2)  # [i, j]: i no worse than j everywhere
    better = np.any(values[:, None, :] < values[None, :, :], axis=2)
    dominated = np.any(no_worse & better, axis=0)
    return pd.Series(~dominated, index=configurations.index, name="pareto")


def _require(frame: pd.DataFrame, columns: Sequence[str]) -> None:
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise ConfigError(f"no column {missing[0]!r}; the columns are {', '.join(map(str, frame.columns))}")
