"""Plots of a sweep, as PNG bytes (matplotlib, the optional ``plots`` extra).

- the objective against each parameter: the configurations' means with their bootstrap
  intervals as error bars, and the mean per value as a line (a mark per value for a categorical one);
- the objective against each cost, with the Pareto front (:func:`cost_plot`), its configurations
  named beside the plot with leader lines, spread so that no two names overlap;
- a heatmap of the objective over two parameters (the mean over configurations per cell);
- the per-query distribution of the objective for the top configurations (box plots);
- cutoff curves: a metric's mean at every k, one line per run.

What each shows (axes, order, positions, the front, titles) is computed in :mod:`.plot_data`;
the functions here only draw it (:func:`draw`). Every plot has a title and labelled axes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..errors import ConfigError
from .plot_data import (
    Axis,
    Boxes,
    Heatmap,
    Lines,
    Scatter,
    boxes_data,
    cost_scatter,
    heatmap_data,
    lines_data,
    parameter_scatter,
    short_label,
    spread,
)

_SIZE = (6.4, 4.2)  # inches at 100 dpi: 640 x 420 pixels, two side by side on a 1024-pixel page
_NAME_SIZE = "x-small"  # the names of the points on the Pareto front


def parameter_plot(table: pd.DataFrame, parameter: str, objective: str, *, higher_is_better: bool = True) -> bytes:
    """The objective of every configuration against ``parameter``, with CI bars and the per-value mean."""
    return draw(parameter_scatter(table, parameter, objective, higher_is_better=higher_is_better))


def cost_plot(
    table: pd.DataFrame, cost: str, objective: str, *, pareto: pd.Series | None = None, higher_is_better: bool = True
) -> bytes:
    """The objective of every configuration against ``cost``, the Pareto front marked and drawn."""
    return draw(cost_scatter(table, cost, objective, pareto=pareto, higher_is_better=higher_is_better))


def heatmap(table: pd.DataFrame, rows: str, columns: str, objective: str) -> bytes:
    """The mean objective over configurations for each (``rows``, ``columns``) value pair."""
    return draw(heatmap_data(table, rows, columns, objective))


def per_query_plot(per_query: pd.DataFrame, objective: str, top: int = 5, *, higher_is_better: bool = True) -> bytes:
    """Box plots of the per-query objective of the first ``top`` configurations (``per_query`` best first)."""
    return draw(boxes_data(per_query, objective, top=top, higher_is_better=higher_is_better))


def cutoff_plot(curves: Mapping[str, pd.DataFrame], metric: str) -> bytes:
    """One line per run: the mean of ``metric`` at each cutoff (the ``k``/``mean`` frames of
    :func:`~retrieval_eval.sweep.cutoff_curve`)."""
    return draw(lines_data(curves, metric))


def draw(data: Scatter | Heatmap | Boxes | Lines) -> bytes:
    """The PNG of a plot's data."""
    figure = figure_of(data)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    _pyplot().close(figure)
    return buffer.getvalue()


def figure_of(data: Scatter | Heatmap | Boxes | Lines):
    """The matplotlib figure of a plot's data (the caller closes it: ``matplotlib.pyplot.close``)."""
    figure, axes = _pyplot().subplots(figsize=_SIZE)
    _DRAWERS[type(data)](figure, axes, data)
    axes.set_title(data.title, fontsize="medium")
    return figure


def _scatter(figure, axes, data: Scatter) -> None:
    # An interval need not hold its mean (a bootstrap of a skewed sample): no negative bar then.
    errors = np.maximum([data.mean - data.ci_low, data.ci_high - data.mean], 0.0)
    axes.errorbar(
        data.x, data.mean, yerr=errors, fmt="o", alpha=0.6, capsize=3, color="tab:blue", label="configuration (95% CI)"
    )
    if data.line is not None and data.x_axis.kind == "category":
        # Categories have no order between them for a line to follow: a bar at each value's mean.
        axes.plot(*data.line, linestyle="none", marker="_", markersize=18, markeredgewidth=2, color="black",
                  label="mean per value")  # fmt: skip
    elif data.line is not None:
        axes.plot(*data.line, "-", color="black", label="mean per value")
    if data.front is not None:
        axes.plot(*data.front, drawstyle="steps-post", color="tab:orange", label="Pareto front")
    if data.on_front is not None and data.on_front.any():
        axes.plot(
            data.x[data.on_front], data.mean[data.on_front], "D", color="tab:orange", markersize=7,
            label="on the Pareto front",
        )  # fmt: skip
    _x_axis(axes, data.x_axis)
    _name_points(figure, axes, data)
    axes.set_ylabel(data.y_label)
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small")


def _name_points(figure, axes, data: Scatter) -> None:
    """The names of ``data.named`` beside the plot, right of it, each joined to its point by a leader
    line: in the order of their points, at least the height of the tallest name apart (:func:`spread`)."""
    if not data.named:
        return
    names = [short_label(data.configurations[index]) for index in data.named]
    figure.canvas.draw()  # the axes' final limits and size in pixels
    low, high = axes.get_ylim()
    wanted = [(data.mean[index] - low) / (high - low) for index in data.named]
    lines = max(name.count("\n") + 1 for name in names)
    size = _font_points(_NAME_SIZE)
    # The height of the tallest name (line spacing 1.2) and most of a line between two names, as axes fractions.
    gap = (lines * 1.2 + 0.8) * size * figure.dpi / 72 / axes.get_window_extent().height
    for index, name, at in zip(data.named, names, spread(wanted, gap)):
        axes.annotate(
            name, (data.x[index], data.mean[index]), xytext=(1.03, at), textcoords="axes fraction", ha="left",
            va="center", fontsize=_NAME_SIZE, annotation_clip=False,
            arrowprops={"arrowstyle": "-", "color": "0.5", "linewidth": 0.6, "shrinkA": 2, "shrinkB": 4},
        )  # fmt: skip


def _heatmap(figure, axes, data: Heatmap) -> None:
    image = axes.imshow(np.ma.masked_invalid(data.cells), cmap="viridis", aspect="auto")
    low, high = np.nanmin(data.cells), np.nanmax(data.cells)
    for (row, column), value in np.ndenumerate(data.cells):
        if not np.isnan(value):  # the value in its cell, dark on the light end of the colour map
            light = high > low and (value - low) / (high - low) > 0.6
            axes.text(column, row, f"{value:.3f}", ha="center", va="center", fontsize="small",
                      color="black" if light else "white")  # fmt: skip
    _x_axis(axes, data.columns)
    axes.set_yticks(data.rows.ticks, data.rows.tick_labels)
    axes.set_ylabel(data.rows.label)
    figure.colorbar(image, label=data.value_label)


def _boxes(figure, axes, data: Boxes) -> None:
    axes.boxplot(list(data.values))
    # Wrapped names (plot_data.short_label), tilted so that neighbours' lines do not run into each other.
    axes.set_xticks(range(1, len(data.labels) + 1), data.labels, rotation=30, ha="right", rotation_mode="anchor",
                    fontsize="small")  # fmt: skip
    axes.set_xlabel(data.x_label)
    axes.set_ylabel(data.y_label)


def _lines(figure, axes, data: Lines) -> None:
    for name, k, mean in data.lines:
        axes.plot(k, mean, label=name)
    axes.set_xlabel(data.x_label)
    axes.set_ylabel(data.y_label)
    axes.legend(fontsize="small")


_DRAWERS = {Scatter: _scatter, Heatmap: _heatmap, Boxes: _boxes, Lines: _lines}


def _x_axis(axes, axis: Axis) -> None:
    if axis.kind == "log":
        axes.set_xscale("log")
        axes.minorticks_off()
    if axis.ticks is not None:
        long = len(axis.tick_labels) > 6 or max(map(len, axis.tick_labels), default=0) > 8
        axes.set_xticks(axis.ticks, axis.tick_labels, rotation=30 if long else 0, ha="right" if long else "center")
    axes.set_xlabel(axis.label)


def _font_points(size: str) -> float:
    """A font size (``"x-small"``, ...) in points, as matplotlib resolves it."""
    from matplotlib.font_manager import FontProperties

    return FontProperties(size=size).get_size_in_points()


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display: render to files only
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("plots need matplotlib: pip install 'retrieval_eval[plots]'") from None
    return plt
