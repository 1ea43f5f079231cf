"""What ``retrieval-eval sweep`` prints: a leaderboard that fits a terminal, or everything as JSON.

The text (:func:`sweep_text`) fits the terminal's width (:func:`~retrieval_eval.views.terminal_width`:
``$COLUMNS``, the terminal's, 100 columns in a pipe) whatever the names and however many
metrics and parameters there are. The leaderboard keeps, in this order, what a search engineer
reads first: the rank and its mark, the configuration (elided in the middle when long: the ends
of a name tell configurations apart), the objective's mean with its confidence interval, the
p-value against the best and the queries won, tied and lost against it; then, as long as they
fit, the costs, the Pareto front, the parameters and the other metrics. What does not fit is
named below the table; ``wide=True`` prints every column of :attr:`SweepResult.table` instead.
Below come the meaning of the marks, the leaderboard's notes, the best against the runner-up
(its largest wins and losses, by query id), all pairs when they were asked for, and the
marginal effects. Every line, notes included, is wrapped or cut to the width, and every name and
id is escaped (:func:`~retrieval_eval.views.terminal_text`). Where even the leaderboard's own
columns do not fit (under 80 columns), the configuration is elided further, then W/T/L and the
p-value are left out (and named below the table).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..io.writers import json_ready
from ..sweep.settings import TEST_METHODS
from ..views import (
    GAP,
    Column,
    aligned,
    count_text,
    counted,
    decimal,
    fit_columns,
    fit_line,
    is_missing,
    is_number,
    marks_legend,
    p_value_text,
    table_width,
    terminal_text,
    terminal_width,
    value_text,
    wrap,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..sweep.analysis import SweepResult
    from ..sweep.ranking import Leaderboard
    from ..sweep.significance import Significance

#: The largest wins and losses of the best against the runner-up that are shown.
DUELS = 3
_NAME_AT_LEAST = 20  # the configuration column is elided no narrower (unless the fixed columns leave less)
_NAME_AT_FIRST = 30  # nor, while optional columns still want room, wider
_CELL_AT_MOST = 16  # a parameter's or a cost's column


def sweep_text(result: SweepResult, *, width: int | None = None, wide: bool = False) -> str:
    """The sweep as text for a terminal, every line at most ``width`` characters (default: :func:`terminal_width`;
    with ``wide``, the table's lines may be longer)."""
    width = terminal_width() if width is None else width
    board = result.leaderboard
    direction = "higher" if board.higher_is_better else "lower"
    lines = [fit_line(f"objective: {board.objective}", width),
             *wrap(f"{counted(len(board.table), 'configuration')} ranked by their mean over "
                   f"{board.queries_text('in common')} ({direction} is better)", width)]  # fmt: skip
    if wide:
        # Every column, as pandas lays them out, whatever the width; a name's control characters escaped all the same.
        lines += map(terminal_text, result.table.to_string(float_format=decimal).splitlines())
    else:
        table, left_out = _leaderboard_columns(result, width)
        lines += aligned(table)
        if left_out:
            lines += wrap(f"not shown: {', '.join(left_out)} (--wide shows every column)", width)
    if len(board.table) > 1:
        lines += [line for legend in marks_legend(board.alpha, board.p_words) for line in wrap(legend, width)]
    lines += [line for note in board.notes for line in wrap(f"note: {note}", width)]
    lines += _head_to_head_lines(board, width)
    if board.pairwise is not None and len(board.pairwise):
        heading = f"all pairs ({board.correction_words} over {counted(len(board.pairwise), 'pair')}; * significant at {board.alpha:g}):"
        lines += ["", *wrap(heading, width)]
        lines += aligned(_pair_columns(board, width))
    if result.effects is not None:
        lines += ["", "marginal effects:", *aligned(_effect_columns(result.effects, width))]
    return "\n".join(lines)


def sweep_json(result: SweepResult) -> str:
    """The sweep as one JSON object: ``objective``, ``higher_is_better``, ``alpha``, ``test`` and ``correction`` (which
    p-value column decides ``tied_with_best``: ``p_{test}_{correction}``), ``queries``, ``table``
    (one record per configuration, best first, with its parameters), ``notes``, ``head_to_head``,
    ``pairwise``, ``effects`` (records, or null where there are none) and ``significance`` (null
    unless computed: its settings, ``summary`` lines, and ``anova``, ``pairs``, ``topic_set_sizes``,
    ``discrimination``, ``comparison`` and ``correlations`` as records); NaN is null."""
    board = result.leaderboard

    def records(frame: pd.DataFrame | None) -> Any:
        # Every float as Python writes it (repr: exact), not pandas' to_json, which rounds to 10 digits.
        return None if frame is None else json_ready(frame.to_dict(orient="records"))

    document = {
        "objective": board.objective,
        "higher_is_better": board.higher_is_better,
        "alpha": board.alpha,
        "test": board.test,
        "correction": board.correction,
        "queries": int(board.per_query.shape[1]),
        "table": records(result.table.reset_index()),
        "notes": list(board.notes),
        "head_to_head": records(board.head_to_head),
        "pairwise": records(board.pairwise),
        "effects": records(result.effects),
        "significance": None if result.significance is None else _significance_document(result.significance, records),
    }
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)


def _significance_document(significance: Significance, records: Callable[[pd.DataFrame], Any]) -> dict[str, Any]:
    return {
        "permutations": significance.permutations,
        "seed": significance.seed,
        "level": significance.level,
        "queries": significance.queries,
        "residual_variance": json_ready(significance.residual_variance),
        "margin_of_error": json_ready(significance.margin_of_error),
        "lead": json_ready(significance.lead),
        "power": significance.power,
        "topic_set_variance": significance.topic_set_variance,
        "summary": significance.summary(),
        "anova": records(significance.anova),
        "pairs": records(significance.pairs),
        "topic_set_sizes": records(significance.topic_set_sizes),
        "discrimination": records(significance.discrimination),
        "comparison": records(significance.comparison),
        "correlations": records(significance.correlations),
    }


# -- columns ----------------------------------------------------------------------------------



def _leaderboard_columns(result: SweepResult, width: int) -> tuple[list[Column], list[str]]:
    """The columns that fit ``width``, and the names of those left out."""
    board = result.leaderboard
    table = result.table
    best = [rank == 1 for rank in table["rank"]]
    digits = len(str(len(table)))
    fixed_before = [
        Column("rank", [f"{rank:>{digits}}{_mark(is_best, tied)}" for rank, is_best, tied in
                        zip(table["rank"], best, table["tied_with_best"])], right=True),
    ]  # fmt: skip
    name = Column("configuration", [str(configuration) for configuration in table.index])
    fixed_after = [
        Column(f"{board.objective} [95% CI]", [
            f"{decimal(mean)} [{decimal(low)}, {decimal(high)}]"
            for mean, low, high in zip(table[board.objective], table["ci_low"], table["ci_high"])
        ], right=True),  # fmt: skip
        Column("p vs best", ["" if is_best else p_value_text(p) for is_best, p in zip(best, table[board.p_column])], right=True),
        Column("W/T/L", [
            "" if is_best else f"{count_text(wins)}/{count_text(ties)}/{count_text(losses)}"
            for is_best, wins, ties, losses in zip(best, table["wins"], table["ties"], table["losses"])
        ], right=True),  # fmt: skip
    ]
    fixed_after[0] = fixed_after[0].elided(max(len(fixed_after[0].cells[0]), _NAME_AT_LEAST))
    optional = []
    for column in _optional(result):
        shown = decimal if column in board.metrics else _value  # means to 4 decimals, as the objective's
        cells = [shown(value) for value in table[column]]
        optional.append(Column(column, cells, right=all(is_number(value) or is_missing(value) for value in table[column]))
                        .elided(_CELL_AT_MOST))
    gaps = len(GAP)
    used = sum(column.width + gaps for column in [*fixed_before, *fixed_after])
    name_width = min(name.width, max(_NAME_AT_LEAST, min(_NAME_AT_FIRST, width - used)))
    used += name_width
    shown, left_out = [], []
    for column in optional:
        if used + gaps + column.width <= width and not left_out:
            shown.append(column)
            used += gaps + column.width
        else:
            left_out.append(column.header)
    # What is left goes to the configuration's name.
    name_width = min(name.width, name_width + max(0, width - used))
    # Narrower than the leaderboard's own columns: the name is elided further, then W/T/L and the p-value go.
    fitted, dropped = fit_columns([*fixed_before, name.elided(name_width), *fixed_after, *shown], width, drop=[4, 3])
    return fitted, dropped + left_out


def _optional(result: SweepResult) -> list[str]:
    """The columns shown when there is room, most wanted first: costs, the Pareto front, parameters, other metrics."""
    board = result.leaderboard
    costs = [cost for cost in result.costs if cost in result.parameters.columns]
    front = ["pareto"] if result.pareto is not None else []
    parameters = [column for column in result.parameters.columns if column not in costs]
    metrics = [metric for metric in board.metrics if metric != board.objective]
    return [*costs, *front, *parameters, *metrics]


def _mark(is_best: bool, tied: bool) -> str:
    return "*" if is_best else (" " if tied else "†")


def _value(value: Any) -> str:
    """A parameter, cost or metric as a cell (:func:`~retrieval_eval.views.value_text`), a flag ``yes`` or empty."""
    return value_text(value, booleans=("yes", ""))


# -- below the table --------------------------------------------------------------------------


def _head_to_head_lines(board: Leaderboard, width: int) -> list[str]:
    duel = board.head_to_head
    if duel is None:
        return []
    counts = duel["outcome"].value_counts()
    wins, ties, losses = (int(counts.get(outcome, 0)) for outcome in ("win", "tie", "loss"))
    lines = ["", *wrap(f"the best against the runner-up (rank 2) on {board.objective}, per query: "
                           f"{counted(wins, 'win')}, {counted(ties, 'tie')}, {counted(losses, 'loss', 'losses')}", width)]  # fmt: skip
    # The largest of each by how much the best was better, or worse; equal ones in query order.
    advantage = duel["difference"] if board.higher_is_better else -duel["difference"]
    wins_first = duel.loc[advantage.sort_values(ascending=False, kind="stable").index]
    losses_first = duel.loc[advantage.sort_values(ascending=True, kind="stable").index]
    shown = pd.concat([wins_first[wins_first["outcome"] == "win"].head(DUELS),
                       losses_first[losses_first["outcome"] == "loss"].head(DUELS)])  # fmt: skip
    if shown.empty:
        return lines
    columns = [
        Column("", list(shown["outcome"])),
        Column("query", [str(query) for query in shown["query_id"]]).elided(40),
        Column("best", [decimal(value) for value in shown["best"]], right=True),
        Column("runner-up", [decimal(value) for value in shown["runner_up"]], right=True),
        Column("difference", [decimal(value, signed=True) for value in shown["difference"]], right=True),
    ]
    return lines + aligned(fit_columns(columns, width - 2)[0], indent="  ")


def _pair_columns(board: Leaderboard, width: int) -> list[Column]:
    """Both names, elided alike, the difference and the two corrected p-values (the t-test's and the chosen
    test's, once where that is the t-test); where they do not fit, the t-test's p-value goes first, then the difference."""
    pairs = board.pairwise
    names = [Column(side, [str(name) for name in pairs[side]]) for side in ("a", "b")]
    headers = ["p t-test", f"p {TEST_METHODS[board.test].short}"]  # board.p_columns: the t-test's, the chosen test's
    numbers = [
        Column("difference", [decimal(value, signed=True) for value in pairs["difference"]], right=True),
        *(Column(header, [p_value_text(value) for value in pairs[column]], right=True) for header, column in zip(headers, board.p_columns)),
        Column("", ["*" if significant else "" for significant in pairs["significant"]]),
    ]
    for left_out in ((), ("p t-test",), ("p t-test", "difference")):
        kept = [column for column in numbers if column.header not in left_out]
        each = (width - table_width(kept) - 2 * len(GAP)) // 2
        if each >= _NAME_AT_LEAST // 2:
            break
    return [names[0].elided(each), names[1].elided(each), *kept]


def _effect_columns(effects: pd.DataFrame, width: int) -> list[Column]:
    return fit_columns([
        Column("parameter", [str(value) for value in effects["parameter"]]).elided(24),
        Column("value", [_value(value) for value in effects["value"]]).elided(24),
        Column("mean", [decimal(value) for value in effects["mean"]], right=True),
        Column("configurations", [count_text(value) for value in effects["configurations"]], right=True),
        Column("delta", [decimal(value, signed=True) for value in effects["delta"]], right=True),
    ], width)[0]
