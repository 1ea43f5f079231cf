"""What ``retrieval-eval sweep`` prints: a leaderboard that fits a terminal, or everything as JSON.

The text (:func:`sweep_text`) fits :data:`WIDTH` columns whatever the names and however many
metrics and parameters there are. The leaderboard keeps, in this order, what a search engineer
reads first: the rank and its mark, the configuration (elided in the middle when long: the ends
of a name tell configurations apart), the objective's mean with its confidence interval, the
p-value against the best and the queries won, tied and lost against it; then, as long as they
fit, the costs, the Pareto front, the parameters and the other metrics. What does not fit is
named below the table; ``wide=True`` prints every column of :attr:`SweepResult.table` instead.
Below come the meaning of the marks, the leaderboard's notes, the best against the runner-up
(its largest wins and losses, by query id), all pairs when they were asked for, and the
marginal effects. Every line, notes included, is wrapped or cut to the width.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..io.writers import json_ready
from ..views import counted, marks_legend

if TYPE_CHECKING:
    from .analysis import SweepResult
    from .ranking import Leaderboard

#: The width of the text, in characters.
WIDTH = 100
#: The largest wins and losses of the best against the runner-up that are shown.
DUELS = 3
_NAME_AT_LEAST = 20  # the configuration column is elided no narrower
_NAME_AT_FIRST = 30  # nor, while optional columns still want room, wider
_CELL_AT_MOST = 16  # a parameter's or a cost's column
_GAP = "  "


def sweep_text(result: SweepResult, *, width: int = WIDTH, wide: bool = False) -> str:
    """The sweep as text for a terminal, every line at most ``width`` characters (with ``wide``, the table's lines may be longer)."""
    board = result.leaderboard
    direction = "higher" if board.higher_is_better else "lower"
    lines = [_fit(f"objective: {board.objective}", width),
             _fit(f"{counted(len(board.table), 'configuration')} ranked by their mean over "
                  f"{counted(board.per_query.shape[1], 'query', 'queries')} in common ({direction} is better)", width)]  # fmt: skip
    if wide:
        lines.append(result.table.to_string(float_format=lambda value: f"{value:.4f}"))
    else:
        table, left_out = _leaderboard_columns(result, width)
        lines += _render(table)
        if left_out:
            lines += _wrapped(f"not shown: {', '.join(left_out)} (--wide shows every column)", width)
    if len(board.table) > 1:
        lines += [_fit(line, width) for line in marks_legend(board.alpha)]
    lines += [line for note in board.notes for line in _wrapped(f"note: {note}", width)]
    lines += _head_to_head_lines(board, width)
    if board.pairwise is not None and len(board.pairwise):
        heading = f"all pairs (Holm-adjusted over {counted(len(board.pairwise), 'pair')}; * significant at {board.alpha:g}):"
        lines += ["", *_wrapped(heading, width)]
        lines += _render(_pair_columns(board.pairwise, width))
    if result.effects is not None:
        lines += ["", "marginal effects:", *_render(_effect_columns(result.effects))]
    return "\n".join(lines)


def sweep_json(result: SweepResult) -> str:
    """The sweep as one JSON object: ``objective``, ``higher_is_better``, ``alpha``, ``queries``, ``table``
    (one record per configuration, best first, with its parameters), ``notes``, ``head_to_head``,
    ``pairwise`` and ``effects`` (records, or null where there are none); NaN is null."""
    board = result.leaderboard

    def records(frame: pd.DataFrame | None) -> Any:
        # Every float as Python writes it (repr: exact), not pandas' to_json, which rounds to 10 digits.
        return None if frame is None else json_ready(frame.to_dict(orient="records"))

    document = {
        "objective": board.objective,
        "higher_is_better": board.higher_is_better,
        "alpha": board.alpha,
        "queries": int(board.per_query.shape[1]),
        "table": records(result.table.reset_index()),
        "notes": list(board.notes),
        "head_to_head": records(board.head_to_head),
        "pairwise": records(board.pairwise),
        "effects": records(result.effects),
    }
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)


# -- columns ----------------------------------------------------------------------------------


@dataclass
class _Column:
    header: str
    cells: list[str]
    right: bool = True  # numbers are right-aligned, text left-aligned

    @property
    def width(self) -> int:
        return max([len(self.header), *map(len, self.cells)])

    def elided(self, width: int) -> _Column:
        return _Column(elide(self.header, width), [elide(cell, width) for cell in self.cells], self.right)


def elide(text: str, width: int) -> str:
    """``text`` on one line (control characters as their escapes), at most ``width`` characters: cut in the middle with ``…``."""
    if not text.isprintable():
        text = repr(text)[1:-1]
    if len(text) <= width:
        return text
    if width < 1:
        return ""
    head = width // 2  # the longer half first: names tend to differ at their ends, ids at their starts
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def _render(columns: Sequence[_Column]) -> list[str]:
    widths = [column.width for column in columns]

    def line(cells: Sequence[str]) -> str:
        return _GAP.join(
            cell.rjust(width) if column.right else cell.ljust(width) for cell, width, column in zip(cells, widths, columns)
        ).rstrip()

    rows = len(columns[0].cells) if columns else 0
    return [line([column.header for column in columns])] + [line([column.cells[row] for column in columns]) for row in range(rows)]


def _leaderboard_columns(result: SweepResult, width: int) -> tuple[list[_Column], list[str]]:
    """The columns that fit ``width``, and the names of those left out."""
    board = result.leaderboard
    table = result.table
    best = [rank == 1 for rank in table["rank"]]
    digits = len(str(len(table)))
    fixed_before = [
        _Column("rank", [f"{rank:>{digits}}{_mark(is_best, tied)}" for rank, is_best, tied in
                         zip(table["rank"], best, table["tied_with_best"])]),
    ]  # fmt: skip
    name = _Column("configuration", [str(configuration) for configuration in table.index], right=False)
    fixed_after = [
        _Column(f"{board.objective} [95% CI]", [
            f"{_number(mean)} [{_number(low)}, {_number(high)}]"
            for mean, low, high in zip(table[board.objective], table["ci_low"], table["ci_high"])
        ]),  # fmt: skip
        _Column("p vs best", ["" if is_best else _p_value(p) for is_best, p in zip(best, table["p_randomization_holm"])]),
        _Column("W/T/L", [
            "" if is_best else f"{wins}/{ties}/{losses}"
            for is_best, wins, ties, losses in zip(best, table["wins"], table["ties"], table["losses"])
        ]),  # fmt: skip
    ]
    fixed_after[0] = fixed_after[0].elided(max(len(fixed_after[0].cells[0]), _NAME_AT_LEAST))
    optional = []
    for column in _optional(result):
        shown = _number if column in board.metrics else _value  # means to 4 decimals, as the objective's
        cells = [shown(value) for value in table[column]]
        optional.append(_Column(column, cells, right=all(map(_is_number, table[column]))).elided(_CELL_AT_MOST))
    gaps = len(_GAP)
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
    return [*fixed_before, name.elided(name_width), *fixed_after, *shown], left_out


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


def _number(value: Any) -> str:
    return "NaN" if value is None or (isinstance(value, Real) and math.isnan(value)) else f"{float(value):.4f}"


def _p_value(value: Any) -> str:
    if value is None or math.isnan(value):
        return ""
    return "<0.0001" if value < 0.0001 else f"{value:.4f}"


def _is_number(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, Real) and not isinstance(value, bool))


def _value(value: Any) -> str:
    """A parameter, cost or metric as a cell: integers whole, other numbers to 6 significant digits, missing empty."""
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        return "" if math.isnan(value) else f"{float(value):.6g}"
    return str(value)


# -- below the table --------------------------------------------------------------------------


def _head_to_head_lines(board: Leaderboard, width: int) -> list[str]:
    duel = board.head_to_head
    if duel is None:
        return []
    counts = duel["outcome"].value_counts()
    wins, ties, losses = (int(counts.get(outcome, 0)) for outcome in ("win", "tie", "loss"))
    lines = ["", *_wrapped(f"the best against the runner-up (rank 2) on {board.objective}, per query: "
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
        _Column("", list(shown["outcome"]), right=False),
        _Column("query", [str(query) for query in shown["query_id"]], right=False).elided(40),
        _Column("best", [_number(value) for value in shown["best"]]),
        _Column("runner-up", [_number(value) for value in shown["runner_up"]]),
        _Column("difference", [f"{value:+.4f}" for value in shown["difference"]]),
    ]
    return lines + ["  " + line for line in _render(columns)]


def _pair_columns(pairs: pd.DataFrame, width: int) -> list[_Column]:
    numbers = [
        _Column("difference", [f"{value:+.4f}" for value in pairs["difference"]]),
        _Column("p t-test", [_p_value(value) for value in pairs["p_t_holm"]]),
        _Column("p randomization", [_p_value(value) for value in pairs["p_randomization_holm"]]),
        _Column("", ["*" if significant else "" for significant in pairs["significant"]], right=False),
    ]
    room = width - sum(column.width + len(_GAP) for column in numbers) - len(_GAP)
    names = [_Column(side, [str(name) for name in pairs[side]], right=False) for side in ("a", "b")]
    each = max(_NAME_AT_LEAST // 2, room // 2)
    return [names[0].elided(each), names[1].elided(each), *numbers]


def _effect_columns(effects: pd.DataFrame) -> list[_Column]:
    return [
        _Column("parameter", [str(value) for value in effects["parameter"]], right=False).elided(24),
        _Column("value", [_value(value) for value in effects["value"]], right=False).elided(24),
        _Column("mean", [_number(value) for value in effects["mean"]]),
        _Column("configurations", [str(value) for value in effects["configurations"]]),
        _Column("delta", [f"{value:+.4f}" for value in effects["delta"]]),
    ]


def _wrapped(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width=width, subsequent_indent="  ", break_on_hyphens=False) or [""]


def _fit(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 1] + "…"
