"""Plots of a sweep, as PNG bytes (matplotlib, the optional ``plots`` extra).

- the objective against each parameter: the configurations' means with their bootstrap
  intervals as error bars, and the marginal mean per value as a line;
- a heatmap of the objective over two parameters (the mean over configurations per cell);
- the per-query distribution of the objective for the top configurations (box plots);
- cutoff curves: a metric's mean at every k, one line per run.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import pandas as pd

from ..errors import ConfigError


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display: render to files only
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("plots need matplotlib: pip install 'retrieval_eval[plots]'") from None
    return plt


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    _pyplot().close(figure)
    return buffer.getvalue()


def parameter_plot(table: pd.DataFrame, parameter: str, objective: str) -> bytes:
    """The objective of every configuration against ``parameter``, with CI bars and the per-value mean."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(5, 3.5))
    values = table[parameter].astype(str)
    order = sorted(values.unique(), key=lambda value: _sort_key(table, parameter, value))
    position = values.map({value: index for index, value in enumerate(order)})
    errors = [table[objective] - table["ci_low"], table["ci_high"] - table[objective]]
    axes.errorbar(
        position, table[objective], yerr=errors, fmt="o", alpha=0.6, capsize=3, label="configurations (95% CI)"
    )
    means = table.groupby(values)[objective].mean().reindex(order)
    axes.plot(range(len(order)), means.to_numpy(), "-", color="black", label="mean per value")
    axes.set_xticks(range(len(order)), order)
    axes.set_xlabel(parameter)
    axes.set_ylabel(objective)
    axes.legend(fontsize="small")
    return _png(figure)


def heatmap(table: pd.DataFrame, rows: str, columns: str, objective: str) -> bytes:
    """The mean objective over configurations for each (``rows``, ``columns``) value pair."""
    plt = _pyplot()
    grid = table.pivot_table(index=rows, columns=columns, values=objective, aggfunc="mean")
    figure, axes = plt.subplots(figsize=(5, 4))
    image = axes.imshow(grid.to_numpy(dtype=float), cmap="viridis", aspect="auto")
    axes.set_xticks(range(grid.shape[1]), [str(value) for value in grid.columns])
    axes.set_yticks(range(grid.shape[0]), [str(value) for value in grid.index])
    axes.set_xlabel(columns)
    axes.set_ylabel(rows)
    figure.colorbar(image, label=objective)
    return _png(figure)


def per_query_plot(per_query: pd.DataFrame, objective: str, top: int = 5) -> bytes:
    """Box plots of the per-query objective of the first ``top`` configurations (``per_query`` best first)."""
    plt = _pyplot()
    shown = per_query.iloc[:top]
    figure, axes = plt.subplots(figsize=(6, 3.5))
    axes.boxplot([row.dropna().to_numpy() for _, row in shown.iterrows()])
    axes.set_xticks(range(1, len(shown) + 1), [str(name) for name in shown.index], rotation=30, ha="right")
    axes.set_ylabel(f"{objective} per query")
    return _png(figure)


def cutoff_plot(curves: dict[str, pd.DataFrame], metric: str) -> bytes:
    """One line per run: the mean of ``metric`` at each cutoff (the ``k``/``mean`` frames of
    :func:`~retrieval_eval.sweep.cutoff_curve`)."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(5, 3.5))
    for name, curve in curves.items():
        axes.plot(curve["k"], curve["mean"], label=str(name))
    axes.set_xlabel("k")
    axes.set_ylabel(f"{metric}@k")
    axes.legend(fontsize="small")
    return _png(figure)


def _sort_key(table: pd.DataFrame, parameter: str, text: str) -> tuple:
    # Numbers in numeric order, then the rest as text.
    original = table.loc[table[parameter].astype(str) == text, parameter].iloc[0]
    return (0, original, "") if isinstance(original, (int, float)) else (1, 0, text)


def parameter_names(table: pd.DataFrame, parameters: Sequence[str]) -> list[str]:
    """The parameters with more than one value (the others cannot be plotted against)."""
    return [name for name in parameters if name in table.columns and table[name].nunique(dropna=True) > 1]
