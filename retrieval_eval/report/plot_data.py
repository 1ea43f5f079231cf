"""What each plot of a sweep shows, computed without drawing: axes, positions, lines, the Pareto front, titles.

:mod:`.plots` draws these with matplotlib; the tests check them as data. The rules:

- **A column's axis.** A parameter or cost whose values (those present) are all numbers
  (``int``, ``float``, numpy's integers and floats, not booleans) is drawn on a *numeric* axis
  at its values: 5 < 10 < 20 whatever their type. The axis is logarithmic when every value is
  positive and the largest is at least 100 times the smallest. Its ticks are the values
  themselves when there are at most 12 and no two are closer than 1/25 of the axis' span;
  otherwise the axis keeps matplotlib's own ticks (many costs, each its own value, are a
  scatter, not a row of colliding labels). Any other column (text, booleans, a mix) is
  *categorical*: its values at 0, 1, 2, ... in order, numbers first in numeric order, then
  the rest in text order; the means per value are marks at each category, not a line (the
  categories have no order a line could follow). Long labels wrap onto lines of 24 characters,
  broken after a separator, and only what does not fit in 3 lines is cut, at its end: a label
  reads as the start of the name, never as two ends joined (``norm=m…ax`` read as max).
- **Names on the cost plot.** The configurations on the front (at most 8) are named beside the
  plot, each joined to its point by a leader line, the names in the order of their points and
  at least their height apart (:func:`spread`), so that no two overlap however close the points.
- **Missing values.** A configuration without a value for the column (NaN: the parameter does
  not apply to it, as ``k`` to a weighted sum in a fusion sweep) is left out of that plot, and
  the plot's title says how many configurations it shows.
- **The Pareto front of a cost plot.** The configurations no other beats on the objective
  and on this cost at once (as good or better on both, strictly better on one): drawn as a
  staircase, the best objective within each budget. The sweep's own front (over all its costs,
  :attr:`~retrieval_eval.sweep.SweepResult.pareto`) is marked point by point; with one cost
  the two are the same configurations.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..sweep.discriminative import asl_curve
from ..sweep.significance import Significance
from ..views import is_missing, is_number, value_text

#: At most this many distinct numbers get a tick each (more would run into each other).
MAX_TICKS = 12
#: Neighbouring ticks closer than this share of the span would overlap: the axis keeps its own ticks then.
MIN_TICK_GAP = 1 / 25
#: A positive numeric axis spanning this ratio or more is logarithmic.
LOG_RATIO = 100.0
#: Category labels (and configuration names under box plots and on the Pareto front) wrap at this many characters...
LABEL_CHARS = 24
#: ... onto at most this many lines; the rest is cut at the end.
LABEL_LINES = 3
#: Where a label may break: after one of these.
_BREAKS = re.compile(r"[^,;_/| ]*[,;_/| ]?")
#: The configurations on a cost plot's Pareto front are named on it when there are at most this many.
MAX_NAMED = 8
#: A heatmap's axes hold at most this many values each.
MAX_HEATMAP_VALUES = 12


@dataclass(frozen=True)
class Axis:
    """How a column is laid out along an axis.

    ``kind``: ``"linear"`` or ``"log"`` (numbers at their values) or ``"category"`` (values at
    0, 1, 2, ...). ``ticks``/``tick_labels``: where the labels go and what they say; ``ticks``
    is None where the axis keeps matplotlib's own (numbers too many or too close for a label each).
    """

    label: str
    kind: str
    ticks: tuple[float, ...] | None
    tick_labels: tuple[str, ...]


@dataclass(frozen=True)
class Scatter:
    """The objective of each configuration against a parameter or a cost.

    ``configurations``: those plotted (those with a value), best first; ``x``: the position of
    each along ``x_axis``; ``mean``, ``ci_low``, ``ci_high``: its objective and 95% interval.
    ``line``: the mean objective per distinct x (in x order), or None where every x has one
    configuration; drawn as a line on a numeric axis, as a mark per value on a categorical one.
    ``on_front``: whether each configuration is on the sweep's Pareto front (None without costs);
    ``front``: the staircase of the front on this axis's cost (x ascending), None for a parameter.
    ``caption``: how to read it, in a sentence or two. ``named``: the points labelled with their
    configuration's name (those on the sweep's front, when at most :data:`MAX_NAMED`).
    """

    title: str
    x_axis: Axis
    y_label: str
    configurations: tuple[str, ...]
    x: np.ndarray
    mean: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    line: tuple[np.ndarray, np.ndarray] | None
    on_front: np.ndarray | None
    front: tuple[np.ndarray, np.ndarray] | None
    caption: str
    named: tuple[int, ...] = ()


@dataclass(frozen=True)
class Heatmap:
    """The mean objective over the configurations of each (row value, column value) pair; NaN where none has it."""

    title: str
    rows: Axis
    columns: Axis
    cells: np.ndarray
    value_label: str
    caption: str


@dataclass(frozen=True)
class Boxes:
    """The per-query objective of the top configurations, one box each, best first."""

    title: str
    labels: tuple[str, ...]
    values: tuple[np.ndarray, ...]
    x_label: str
    y_label: str
    caption: str


@dataclass(frozen=True)
class Lines:
    """One line per series (``name``, x, y): a run's mean at each cutoff k, a metric's sorted p-values."""

    title: str
    lines: tuple[tuple[str, np.ndarray, np.ndarray], ...]
    x_label: str
    y_label: str
    caption: str


def objective_label(objective: str, higher_is_better: bool) -> str:
    """The objective's axis label, with its direction."""
    return f"{objective} ({'higher' if higher_is_better else 'lower'} is better)"


def layout(values: pd.Series, label: str, *, categorical: bool = False) -> tuple[Axis, np.ndarray]:
    """The axis of a column and each value's position on it (NaN where a value is missing).

    ``categorical``: lay out numbers as categories too (a heatmap's rows and columns), still in numeric order.
    """
    present = [value for value in values if not is_missing(value)]
    if present and all(is_number(value) for value in present) and not categorical:
        return _numeric(values, present, label)
    order = sorted(
        {_category_key(value): value for value in present}.items(), key=lambda item: item[0]
    )  # one entry per distinct value, numbers first
    index = {key: position for position, (key, _) in enumerate(order)}
    positions = np.array(
        [np.nan if is_missing(value) else index[_category_key(value)] for value in values], dtype=np.float64
    )
    labels = tuple(short_label(value_text(value)) for _, value in order)
    return Axis(label, "category", tuple(float(i) for i in range(len(order))), labels), positions


def parameter_scatter(
    table: pd.DataFrame, parameter: str, objective: str, *, higher_is_better: bool = True
) -> Scatter:
    """The objective against ``parameter``: each configuration (``table``: a sweep's table, best first) with its
    interval, and the mean per value."""
    axis, x = layout(table[parameter], parameter)
    shown = ~np.isnan(x)
    kept = table[shown]
    title = f"{objective} by {parameter}" + _share(int(shown.sum()), len(table), parameter)
    x = x[shown]
    means = kept[objective].to_numpy(dtype=np.float64)
    distinct = np.unique(x)
    line = None
    if len(distinct) < len(x):  # some value has several configurations: its mean is worth a line
        line = (distinct, np.array([means[x == value].mean() for value in distinct]))
    joined = "the line joins" if axis.kind != "category" else "the black bar marks"
    return Scatter(
        title, axis, objective_label(objective, higher_is_better), tuple(map(str, kept.index)), x, means,
        kept["ci_low"].to_numpy(dtype=np.float64), kept["ci_high"].to_numpy(dtype=np.float64), line, None, None,
        "Each point is a configuration, its bar the 95% interval of its mean"
        + (f"; {joined} the mean over the configurations that share a value." if line is not None else "."),
    )  # fmt: skip


def cost_scatter(
    table: pd.DataFrame, cost: str, objective: str, *, pareto: pd.Series | None = None, higher_is_better: bool = True
) -> Scatter:
    """The objective against ``cost`` (a numeric axis: costs are finite numbers), the sweep's Pareto
    front (``pareto``, aligned with ``table``) marked, and the front on this cost drawn as a staircase."""
    axis, x = layout(table[cost].astype(np.float64), cost)
    means = table[objective].to_numpy(dtype=np.float64)
    front = front_on(x, means, higher_is_better=higher_is_better)
    order = np.argsort(x[front], kind="stable")  # on the front, equal costs have equal objectives
    steps = (x[front][order], means[front][order])
    on_front = None if pareto is None else pareto.reindex(table.index).to_numpy(dtype=bool)
    title = f"{objective} against {cost}: the Pareto front"
    named = () if on_front is None or on_front.sum() > MAX_NAMED else tuple(int(i) for i in np.flatnonzero(on_front))
    return Scatter(
        title, axis, objective_label(objective, higher_is_better), tuple(map(str, table.index)), x, means,
        table["ci_low"].to_numpy(dtype=np.float64), table["ci_high"].to_numpy(dtype=np.float64), None, on_front, steps,
        f"Each point is a configuration, its bar the 95% interval of its mean. The staircase is the Pareto front on "
        f"{cost}: the best {objective} to be had within each {cost} budget"
        + ("; diamonds mark the configurations on the sweep's Pareto front (no other is as good and as cheap on every"
           " cost, and better on one)." if on_front is not None else "."),
        named,
    )  # fmt: skip


def front_on(cost: np.ndarray, objective: np.ndarray, *, higher_is_better: bool = True) -> np.ndarray:
    """Which points no other point dominates on (``cost``: lower is better, ``objective``): at least as
    good on both and strictly better on one. Two identical points are both on the front."""
    goal = -objective if higher_is_better else objective
    no_worse = (cost[:, None] <= cost[None, :]) & (goal[:, None] <= goal[None, :])  # [i, j]: i no worse than j
    better = (cost[:, None] < cost[None, :]) | (goal[:, None] < goal[None, :])
    return ~np.any(no_worse & better, axis=0)


def heatmap_data(table: pd.DataFrame, rows: str, columns: str, objective: str) -> Heatmap:
    """The mean objective per (``rows``, ``columns``) value pair, both axes in their values' order, over the
    configurations that have both parameters."""
    both = table[table[rows].notna() & table[columns].notna()]  # only these have a cell
    row_axis, row_at = layout(both[rows], rows, categorical=True)
    column_axis, column_at = layout(both[columns], columns, categorical=True)
    cells = np.full((len(row_axis.tick_labels), len(column_axis.tick_labels)), np.nan)
    frame = pd.DataFrame({"r": row_at, "c": column_at, "v": both[objective].to_numpy(dtype=np.float64)})
    for (r, c), value in frame.groupby(["r", "c"])["v"].mean().items():
        cells[int(r), int(c)] = value
    caption = (
        f"Each cell is the mean {objective} of the configurations with that {rows} and {columns} (the other "
        "parameters averaged over); an empty cell: no configuration has that pair."
    )
    return Heatmap(f"Mean {objective} by {rows} and {columns}", row_axis, column_axis, cells, f"mean {objective}", caption)


def boxes_data(per_query: pd.DataFrame, objective: str, *, top: int = 5, higher_is_better: bool = True) -> Boxes:
    """The per-query objective of the first ``top`` configurations of ``per_query`` (configurations x queries, best first)."""
    shown = per_query.iloc[:top]
    labels = tuple(f"{rank}. {short_label(str(name))}" for rank, name in enumerate(shown.index, start=1))
    values = tuple(row.dropna().to_numpy(dtype=np.float64) for _, row in shown.iterrows())
    title = f"{objective} per query: the top {len(shown)} of {len(per_query)} configurations"
    caption = (
        f"The spread of {objective} over the queries: the box holds the middle half of the queries, its line the "
        "median, the whiskers reach 1.5 box lengths, the circles are the queries beyond."
    )
    return Boxes(title, labels, values, "configuration (rank. name)", objective_label(objective, higher_is_better), caption)


def lines_data(curves: Mapping[str, pd.DataFrame], metric: str) -> Lines:
    """The cutoff curves (``k``/``mean`` frames of :func:`~retrieval_eval.sweep.cutoff_curve`) of each run."""
    lines = tuple(
        (str(name), curve["k"].to_numpy(dtype=np.float64), curve["mean"].to_numpy(dtype=np.float64))
        for name, curve in curves.items()
    )
    caption = f"The mean {metric}@k of each run at every cutoff k."
    return Lines(f"{metric}@k by cutoff k", lines, "cutoff k", f"mean {metric}@k", caption)


def asl_curves_data(significance: Significance) -> Lines:
    """Each metric's achieved significance level curve (Sakai, SIGIR 2006): its pairs' Tukey p-values, ascending."""
    lines = tuple(
        (metric, np.arange(1, len(p) + 1, dtype=np.float64), asl_curve(p))
        for metric, p in significance.pvalues.items()
        if len(p) and not np.isnan(p).all()
    )
    caption = (
        f"Each metric's randomised Tukey HSD p-values of the {len(significance.pairs)} pairs of configurations, sorted "
        f"(the achieved significance level curve): the lower a metric's curve, the more pairs it tells apart; the "
        f"pairs under {significance.alpha:g} are its discriminative power."
    )
    return Lines("Achieved significance level by pair", lines, "pairs of configurations, sorted by p-value", "p-value", caption)


def plotted_parameters(table: pd.DataFrame, parameters: Sequence[str]) -> list[str]:
    """The parameters with more than one value present (the others cannot be plotted against)."""
    return [name for name in parameters if name in table.columns and table[name].nunique(dropna=True) > 1]


def heatmap_pair(table: pd.DataFrame, parameters: Sequence[str]) -> tuple[str, str] | None:
    """The first two parameters with 2 to :data:`MAX_HEATMAP_VALUES` values each (a grid to draw), or None."""
    fitting = [name for name in parameters if 2 <= table[name].nunique(dropna=True) <= MAX_HEATMAP_VALUES]
    return (fitting[0], fitting[1]) if len(fitting) >= 2 else None


def _numeric(values: pd.Series, present: list[object], label: str) -> tuple[Axis, np.ndarray]:
    positions = np.array([np.nan if is_missing(value) else float(value) for value in values], dtype=np.float64)
    distinct = np.unique(np.array([float(value) for value in present]))
    log = distinct[0] > 0 and distinct[-1] >= LOG_RATIO * distinct[0]
    kind = "log" if log else "linear"
    scaled = np.log10(distinct) if log else distinct
    span = scaled[-1] - scaled[0]
    fits = len(distinct) <= MAX_TICKS and (len(distinct) < 2 or np.diff(scaled).min() >= MIN_TICK_GAP * span)
    ticks = tuple(float(value) for value in distinct) if fits else None
    labels = tuple(value_text(value) for value in distinct) if fits else ()
    return Axis(f"{label} (log scale)" if log else label, kind, ticks, labels), positions


def _category_key(value: object) -> tuple[int, float, str]:
    # Numbers first in numeric order, then the rest in text order.
    return (0, float(value), "") if is_number(value) else (1, 0.0, str(value))


def short_label(text: str) -> str:
    """``text`` wrapped onto lines of at most :data:`LABEL_CHARS` characters, each broken after a separator
    (``,;_/|`` or a space) where one falls within it, else at the width; past :data:`LABEL_LINES` lines the
    rest is cut at the end with an ellipsis. Nothing is cut from the middle: read line by line, the label is
    the start of the text (``method=wsum,norm=min-max,w0=0.3`` -> ``method=wsum,`` / ``norm=min-max,w0=0.3``)."""
    lines = [""]
    for piece in _BREAKS.findall(text):
        while piece:
            room = LABEL_CHARS - len(lines[-1])
            if len(piece) <= room:
                lines[-1], piece = lines[-1] + piece, ""
            elif lines[-1]:
                lines.append("")
            else:  # longer than a line: cut at the width
                lines[-1], piece = piece[:LABEL_CHARS], piece[LABEL_CHARS:]
                lines.append("")
    lines = [line.rstrip() for line in lines if line.strip()] or [text]
    if len(lines) > LABEL_LINES:
        lines = [*lines[: LABEL_LINES - 1], lines[LABEL_LINES - 1][: LABEL_CHARS - 1] + "…"]
    return "\n".join(lines)


def spread(wanted: Sequence[float], gap: float, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """Positions along ``[low, high]`` as close to ``wanted`` as one pass up and one down put them, in the
    same order, each at least ``gap`` from the next (less only where ``len(wanted)`` of them cannot fit:
    then evenly spaced). The labels of the Pareto front go there, beside their points."""
    order = np.argsort(np.asarray(wanted, dtype=np.float64), kind="stable")
    at = np.clip(np.asarray(wanted, dtype=np.float64)[order], low, high)
    if len(at) > 1:
        gap = min(gap, (high - low) / (len(at) - 1))
        for i in range(1, len(at)):  # at most MAX_NAMED labels
            at[i] = max(at[i], at[i - 1] + gap)
        at[-1] = min(at[-1], high)
        for i in range(len(at) - 2, -1, -1):
            at[i] = min(at[i], at[i + 1] - gap)
    placed = np.empty(len(at))
    placed[order] = np.clip(at, low, high)  # the pass down may land an ulp below low
    return placed


def _share(shown: int, total: int, parameter: str) -> str:
    return "" if shown == total else f"\n({shown} of {total} configurations have a {parameter})"
