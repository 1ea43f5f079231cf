"""The report's plots checked from their data: axis kinds and order, positions, the Pareto front, titles and
labels, and that the drawing step puts them on the figure."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.report import plot_data
from retrieval_eval.report.html import figure_data
from retrieval_eval.report.plot_data import Boxes, Heatmap, Scatter, front_on, layout, short_label

from .sweeps import CHUNKS, TOP_K


def pareto_oracle(points: list[tuple[float, float]], higher_is_better: bool) -> list[bool]:
    """From the definition: q is on the front unless some p is as cheap and as good, and cheaper or better."""

    def dominates(p, q):
        as_good = p[1] >= q[1] if higher_is_better else p[1] <= q[1]
        better = p[1] > q[1] if higher_is_better else p[1] < q[1]
        return p[0] <= q[0] and as_good and (p[0] < q[0] or better)

    return [not any(dominates(p, q) for p in points) for q in points]


# -- axes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["int64", "object"])
def test_numpy_integers_are_numbers_in_numeric_order(dtype):
    # As pandas hands them over: numpy.int64 (an int64 column's items, or an object column of them).
    values = pd.Series([np.int64(10), np.int64(20), np.int64(5), np.int64(10)], dtype=dtype)
    assert isinstance(values.iloc[0], np.int64) or dtype == "int64"
    axis, x = layout(values, "top_k")
    assert axis.kind == "linear" and axis.ticks == (5.0, 10.0, 20.0) and axis.tick_labels == ("5", "10", "20")
    assert x.tolist() == [10.0, 20.0, 5.0, 10.0]  # each at its value: 5 < 10 < 20


def test_the_sweeps_top_k_plot_reads_5_10_20(grid):
    table = grid.table
    assert table["top_k"].dtype == np.int64
    data = plot_data.parameter_scatter(table, "top_k", "ndcg@5")
    assert data.x_axis.tick_labels == ("5", "10", "20") and list(data.x) == table["top_k"].tolist()
    # The line is the mean per value, in numeric order (oracle: a plain grouping).
    groups = defaultdict(list)
    for value, mean in zip(table["top_k"], table["ndcg@5"]):
        groups[value].append(mean)
    assert data.line[0].tolist() == sorted(TOP_K)
    assert data.line[1].tolist() == pytest.approx([sum(groups[k]) / len(groups[k]) for k in sorted(TOP_K)])
    assert data.configurations == tuple(table.index) and data.mean.tolist() == table["ndcg@5"].tolist()


def test_twelve_latencies_are_a_scatter_on_a_numeric_axis(grid):
    table = grid.table
    data = plot_data.cost_scatter(table, "latency_ms", "ndcg@5", pareto=grid.pareto)
    assert data.x_axis.kind == "linear" and data.x.tolist() == table["latency_ms"].tolist()
    assert table["latency_ms"].nunique() == 12
    # Not 12 category labels side by side: either the axis' own ticks, or the values themselves, spaced apart.
    assert data.x_axis.ticks is None or data.x_axis.ticks == tuple(sorted(set(table["latency_ms"])))


@pytest.mark.parametrize(
    ("values", "kind", "ticks"),
    [
        ([10, 20, 50], "linear", (10.0, 20.0, 50.0)),
        ([10, 11, 50], "linear", None),  # 10 and 11 closer than 1/25 of the span: their labels would touch
        (list(range(0, 130, 10)), "linear", None),  # 13 values: more than 12 ticks
        (list(range(0, 120, 10)), "linear", tuple(map(float, range(0, 120, 10)))),  # 12 values
        ([1, 10, 100], "log", (1.0, 10.0, 100.0)),  # positive and a ratio of 100
        ([1, 99], "linear", (1.0, 99.0)),
        ([0, 1000], "linear", (0.0, 1000.0)),  # not all positive
        ([0.5, 0.25, 1e-3], "log", (1e-3, 0.25, 0.5)),
    ],
)
def test_the_numeric_axis_rules(values, kind, ticks):
    axis, x = layout(pd.Series(values), "p")
    assert (axis.kind, axis.ticks) == (kind, ticks)
    assert x.tolist() == [float(value) for value in values]
    assert axis.label == ("p (log scale)" if kind == "log" else "p")


def test_text_and_mixed_columns_are_categories_numbers_first_missing_left_out():
    axis, x = layout(pd.Series(["rrf", 5, "wsum", np.nan, 2.5, True, "rrf"], dtype=object), "mix")
    assert axis.kind == "category" and axis.tick_labels == ("2.5", "5", "True", "rrf", "wsum")
    assert axis.ticks == (0.0, 1.0, 2.0, 3.0, 4.0)
    assert x[[0, 1, 2, 4, 5, 6]].tolist() == [3.0, 1.0, 4.0, 0.0, 2.0, 3.0] and np.isnan(x[3])
    booleans, _ = layout(pd.Series([True, False, True]), "reranker")
    assert booleans.kind == "category" and booleans.tick_labels == ("False", "True")


@given(st.lists(st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False)), min_size=1, max_size=30))
def test_numeric_positions_keep_the_values_order(values):
    axis, x = layout(pd.Series(values, dtype=object), "p")
    assert axis.kind in ("linear", "log") and x.tolist() == [float(value) for value in values]
    if axis.ticks is not None:
        assert list(axis.ticks) == sorted({float(value) for value in values})


def test_a_long_label_wraps_after_its_separators_and_is_never_cut_in_its_middle():
    # Cut in the middle, it read "method=wsum…n-max,w0=0.3" and "norm=m…ax" (as max).
    assert short_label("method=wsum,norm=min-max,w0=0.3") == "method=wsum,\nnorm=min-max,w0=0.3"
    assert short_label("k5_c128") == "k5_c128" and short_label("norm=min-max") == "norm=min-max"
    assert short_label("x" * 80) == "\n".join(["x" * 24, "x" * 24, "x" * 23 + "…"])  # cut at its end only


@given(st.text(st.sampled_from("abc=0.,;_/| -"), max_size=120))
def test_a_label_is_the_start_of_its_text_on_at_most_three_short_lines(text):
    label = short_label(text)
    lines = label.split("\n")
    assert len(lines) <= plot_data.LABEL_LINES and all(len(line) <= plot_data.LABEL_CHARS for line in lines)
    assert "…" not in label[:-1]  # an ellipsis only at the very end
    kept, whole = "".join(label.removesuffix("…").split()), "".join(text.split())
    assert whole.startswith(kept) and (kept == whole or label.endswith("…"))


@given(st.lists(st.floats(-0.5, 1.5), max_size=8), st.floats(0.01, 0.3))
def test_spread_keeps_the_order_and_the_gap_within_the_interval(wanted, gap):
    at = plot_data.spread(wanted, gap)
    assert len(at) == len(wanted) and ((at >= 0.0) & (at <= 1.0)).all()
    order = np.argsort(np.asarray(wanted), kind="stable")
    placed = at[order]
    assert (np.diff(placed) >= min(gap, 1 / max(len(wanted) - 1, 1)) - 1e-12).all()
    clipped = np.clip(wanted, 0.0, 1.0)
    if len(wanted) < 2 or (np.diff(np.sort(clipped)) >= gap).all():
        assert np.allclose(at, clipped, rtol=0, atol=1e-12)  # already apart: left where they are (to rounding)


# -- the Pareto front -------------------------------------------------------------------------


@given(
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=25),
    st.booleans(),
)
def test_the_front_is_the_non_dominated_points(points, higher_is_better):
    cost = np.array([p[0] for p in points], dtype=np.float64)
    goal = np.array([p[1] for p in points], dtype=np.float64)
    assert front_on(cost, goal, higher_is_better=higher_is_better).tolist() == pareto_oracle(points, higher_is_better)


def test_the_cost_plot_draws_the_sweeps_front(grid):
    table = grid.table
    data = plot_data.cost_scatter(table, "latency_ms", "ndcg@5", pareto=grid.pareto)
    points = list(zip(table["latency_ms"], table["ndcg@5"]))
    expected = [name for name, on in zip(table.index, pareto_oracle(points, True)) if on]
    assert [name for name, on in zip(data.configurations, data.on_front) if on] == expected
    assert data.on_front.tolist() == grid.pareto.reindex(table.index).tolist()  # one cost: the same front
    steps_x, steps_y = data.front
    assert sorted(zip(steps_x, steps_y)) == sorted((x, y) for (x, y), on in zip(points, pareto_oracle(points, True)) if on)
    assert list(steps_x) == sorted(steps_x) and list(steps_y) == sorted(steps_y)  # a staircase: cheaper is worse
    assert [data.configurations[i] for i in data.named] == expected


def test_a_lower_is_better_objective_has_its_front_descending():
    table = pd.DataFrame(
        {"holes": [0.1, 0.3, 0.2, 0.05], "cost": [5.0, 1.0, 2.0, 9.0], "ci_low": 0.0, "ci_high": 1.0},
        index=["a", "b", "c", "d"],
    )
    data = plot_data.cost_scatter(table, "cost", "holes", higher_is_better=False)
    assert data.front[0].tolist() == [1.0, 2.0, 5.0, 9.0] and data.front[1].tolist() == [0.3, 0.2, 0.1, 0.05]
    assert data.on_front is None and data.y_label == "holes (lower is better)"


# -- the mixed parameters of a fusion sweep ---------------------------------------------------


def test_fusion_parameters_plot_only_where_they_apply(fusion):
    table = fusion.table
    figures = {data.title.split("\n")[0]: data for data in figure_data(fusion)}
    k = figures["ndcg@5 by k"]
    assert k.x_axis.kind == "linear" and k.x_axis.tick_labels == ("10", "20", "60", "100")
    assert k.title.endswith(f"(4 of {len(table)} configurations have a k)")
    assert list(k.configurations) == [name for name in table.index if name.startswith("method=rrf")]
    method = figures["ndcg@5 by method"]
    assert method.x_axis.kind == "category" and method.x_axis.tick_labels == ("combmnz", "rrf", "wsum")
    w0 = figures["ndcg@5 by w0"]
    assert w0.x_axis.tick_labels == ("0", "0.3", "0.5", "0.7", "1") and len(w0.configurations) == 10
    assert "ndcg@5 by tokens" not in figures and "ndcg@5 against tokens: the Pareto front" in figures  # a cost
    heat = figures["Mean ndcg@5 by method and norm"]
    # rrf has no norm: no row of empty cells for it.
    assert heat.rows.tick_labels == ("combmnz", "wsum") and heat.columns.tick_labels == ("max", "min-max")
    for (r, row), (c, column) in [((r, row), (c, column)) for r, row in enumerate(heat.rows.tick_labels)
                                  for c, column in enumerate(heat.columns.tick_labels)]:  # fmt: skip
        chosen = table[(table["method"] == row) & (table["norm"] == column)]["ndcg@5"].tolist()
        assert heat.cells[r, c] == pytest.approx(sum(chosen) / len(chosen)) if chosen else np.isnan(heat.cells[r, c])


def test_the_heatmap_of_the_grid(grid):
    table = grid.table
    heat = plot_data.heatmap_data(table, "top_k", "chunk", "ndcg@5")
    assert heat.rows.tick_labels == tuple(map(str, TOP_K)) and heat.columns.tick_labels == tuple(map(str, CHUNKS))
    for r, top_k in enumerate(TOP_K):
        for c, chunk in enumerate(CHUNKS):
            assert heat.cells[r, c] == table.loc[f"k{top_k}_c{chunk}", "ndcg@5"]


def test_the_boxes_are_the_top_configurations_per_query(grid):
    board = grid.leaderboard
    boxes = plot_data.boxes_data(board.per_query, board.objective)
    assert boxes.labels == tuple(f"{rank}. {name}" for rank, name in enumerate(board.table.index[:5], start=1))
    for values, (_, row) in zip(boxes.values, board.per_query.iloc[:5].iterrows()):
        assert values.tolist() == row.tolist()


# -- every plot: a title and labelled axes, on the figure too ---------------------------------


def _labels(data) -> tuple[str, str]:
    if isinstance(data, Scatter):
        return data.x_axis.label, data.y_label
    if isinstance(data, Heatmap):
        return data.columns.label, data.rows.label
    return data.x_label, data.y_label


@pytest.mark.parametrize("which", ["grid", "fusion"])
def test_every_plot_has_a_title_axis_labels_and_a_caption(which, request):
    pytest.importorskip("matplotlib")
    from matplotlib import pyplot

    from retrieval_eval.report.plots import figure_of

    result = request.getfixturevalue(which)
    figures = figure_data(result)
    kinds = [type(data).__name__ for data in figures]
    assert kinds[0] == "Boxes" and kinds.count("Heatmap") == 1 and len(figures) == {"grid": 5, "fusion": 7}[which]
    for data in figures:
        x_label, y_label = _labels(data)
        assert data.title and x_label and y_label and data.caption
        figure = figure_of(data)
        try:
            axes = figure.axes[0]
            assert (axes.get_title(), axes.get_xlabel(), axes.get_ylabel()) == (data.title, x_label, y_label)
            ticks = [label.get_text() for label in axes.get_xticklabels()]
            axis = data.x_axis if isinstance(data, Scatter) else data.columns if isinstance(data, Heatmap) else None
            if axis is not None and axis.ticks is not None:
                assert ticks == list(axis.tick_labels)  # drawn in the data's order
            if isinstance(data, Boxes):
                assert ticks == list(data.labels)
        finally:
            pyplot.close(figure)


# -- drawn: names that do not overlap, means per category as marks ---------------------------


def _extents(figure, texts):
    """Where each text is drawn (an annotation's text alone, without its leader line)."""
    from matplotlib.text import Text

    figure.canvas.draw()  # an annotation's text is placed when drawn
    renderer = figure.canvas.get_renderer()
    return [Text.get_window_extent(text, renderer) for text in texts]


def _overlapping(boxes) -> list[tuple[int, int]]:
    return [(i, j) for i, a in enumerate(boxes) for j, b in enumerate(boxes) if i < j and a.overlaps(b)]


def _crowded_front() -> pd.DataFrame:
    """8 configurations on the front, nearly equal in cost and objective, with long names."""
    names = [f"method=wsum,norm=min-max,w0=0.{i},w1=0.{9 - i}" for i in range(8)]
    return pd.DataFrame(
        {"ndcg@10": 0.5 + 0.001 * np.arange(8), "ci_low": 0.45, "ci_high": 0.56, "latency_ms": 100.0 + np.arange(8),
         "norm": ["min-max", "max"] * 4},
        index=pd.Index(names, name="configuration"),
    ).iloc[::-1]  # fmt: skip


def test_the_names_on_a_crowded_pareto_front_do_not_overlap_and_lead_to_their_points():
    pytest.importorskip("matplotlib")
    from matplotlib import pyplot
    from matplotlib.text import Annotation

    from retrieval_eval.report.plots import figure_of

    table = _crowded_front()
    data = plot_data.cost_scatter(table, "latency_ms", "ndcg@10", pareto=pd.Series(True, index=table.index))
    assert len(data.named) == 8
    figure = figure_of(data)
    try:
        names = [text for text in figure.axes[0].texts if isinstance(text, Annotation)]
        assert [name.get_text() for name in names] == [short_label(data.configurations[i]) for i in data.named]
        assert [name.xy for name in names] == [(data.x[i], data.mean[i]) for i in data.named]  # a leader line each
        assert all(name.arrow_patch is not None for name in names)
        assert _overlapping(_extents(figure, names)) == []
        # In the order of their points: the best objective named highest.
        heights = [box.y0 for box in _extents(figure, names)]
        assert np.argsort(heights).tolist() == np.argsort([data.mean[i] for i in data.named], kind="stable").tolist()
    finally:
        pyplot.close(figure)


def test_the_names_under_the_boxes_do_not_overlap_and_are_whole():
    pytest.importorskip("matplotlib")
    from matplotlib import pyplot

    from retrieval_eval.report.plots import figure_of

    names = [f"method=wsum,norm=min-max,w0=0.{i},w1=0.{9 - i}" for i in range(5)]
    per_query = pd.DataFrame(np.random.default_rng(0).random((5, 20)), index=names)
    data = plot_data.boxes_data(per_query, "ndcg@10")
    figure = figure_of(data)
    try:
        labels = figure.axes[0].get_xticklabels()
        assert [label.get_text().replace("\n", "") for label in labels] == [f"{r}. {n}" for r, n in enumerate(names, 1)]
        assert _rotated_overlaps(figure, labels) == []
    finally:
        pyplot.close(figure)


def _rotated_overlaps(figure, labels) -> list[tuple[int, int]]:
    """Pairs of labels, all tilted by one angle, whose text boxes overlap: compared in the labels' own frame,
    where each is an upright box of its unrotated width and height hanging from its anchor (ha right, va top)."""
    from matplotlib.transforms import Bbox

    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    (angle,) = {label.get_rotation() for label in labels}
    theta = np.deg2rad(angle)
    unrotate = np.array([[np.cos(theta), np.sin(theta)], [-np.sin(theta), np.cos(theta)]])
    boxes = []
    for label in labels:
        assert (label.get_ha(), label.get_va(), label.get_rotation_mode()) == ("right", "top", "anchor")
        anchor = unrotate @ label.get_transform().transform(label.get_position())
        label.set_rotation(0)
        size = label.get_window_extent(renderer)
        label.set_rotation(angle)
        boxes.append(Bbox([[anchor[0] - size.width, anchor[1] - size.height], anchor]))
    return _overlapping(boxes)


@pytest.mark.parametrize("parameter, joined", [("norm", False), ("latency_ms", True)])
def test_means_per_value_are_a_line_on_a_numeric_axis_and_marks_on_a_categorical_one(parameter, joined):
    pytest.importorskip("matplotlib")
    from matplotlib import pyplot

    from retrieval_eval.report.plots import figure_of

    table = _crowded_front()
    table = pd.concat([table, table.assign(ndcg=0).rename(index=lambda name: name + "b")])  # two per value
    data = plot_data.parameter_scatter(table, parameter, "ndcg@10")
    assert data.line is not None and data.x_axis.kind == ("category" if not joined else "linear")
    assert ("the line joins" in data.caption) == joined and ("the black bar marks" in data.caption) != joined
    figure = figure_of(data)
    try:
        (line,) = [line for line in figure.axes[0].get_lines() if line.get_label() == "mean per value"]
        assert (line.get_linestyle() != "None") == joined
        assert line.get_xdata().tolist() == data.line[0].tolist()
    finally:
        pyplot.close(figure)
