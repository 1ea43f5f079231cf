"""The leaderboard (and the report's other tables) as Markdown, LaTeX and HTML, with significance marks.

A table is first a :class:`Grid` of texts (a header, rows of cells, which columns hold numbers,
and a mark per row), then written in each format by one function, so that every format shows
the same cells. The leaderboard's columns, in order:

- ``configuration``, marked ``*`` for the best (rank 1) and ``†`` (``$^\\dagger$`` in LaTeX)
  for one significantly worse than the best: its corrected p-value of the chosen test (by default
  the Holm-adjusted randomization test's) is at or below the level the leaderboard used, i.e. not
  ``tied_with_best``;
- ``rank``, the mean of each metric (four decimals), ``95% CI`` (the objective's bootstrap
  interval), ``p (Holm)`` (the leaderboard's ``p_column``, by default ``p_randomization_holm``;
  :func:`p_header`), ``tied_with_best`` (``best``, ``yes`` or
  ``no``), ``wins``/``ties``/``losses`` (queries, against the best; empty for the best itself);
- a sweep's parameters, then its costs (numbers to six significant digits, empty where a
  configuration has no value), then ``pareto`` (``yes`` or ``no``) when the sweep has costs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import pandas as pd

from ..errors import ConfigError
from ..sweep.analysis import SweepResult
from ..sweep.ranking import Leaderboard
from ..sweep.settings import CORRECTION_METHODS
from ..views import decimal, html_text, value_text

#: The marks of the leaderboard and their LaTeX.
BEST, WORSE = "*", "†"
_LATEX_MARKS = {BEST: "$^*$", WORSE: "$^\\dagger$", "": ""}


@dataclass(frozen=True)
class Grid:
    """A table as texts: ``header``, ``rows`` (the first cell of each names the row), ``numeric`` (per
    column: numbers, right-aligned) and ``marks`` (per row: shown after its first cell)."""

    header: list[str]
    rows: list[list[str]]
    numeric: list[bool]
    marks: list[str]

    def __post_init__(self) -> None:
        widths = {len(self.header), len(self.numeric), *map(len, self.rows)}
        if len(widths) != 1 or len(self.marks) != len(self.rows):
            raise ValueError(f"a grid's header, rows and column kinds differ in length: {sorted(widths)}")


#: A statistic to 4 decimals (``digits=`` others, :func:`~retrieval_eval.views.decimal`); empty for a missing one
#: (NaN: no test, no value).
number = partial(decimal, missing="")


def leaderboard_grid(result: SweepResult | Leaderboard) -> Grid:
    """The leaderboard's cells (see the module's docstring), from a sweep (with its parameters, costs
    and Pareto front) or from a leaderboard alone."""
    if not isinstance(result, (SweepResult, Leaderboard)):
        raise ConfigError(f"a leaderboard's table is made from a SweepResult or a Leaderboard, got a {type(result).__name__}")
    swept = isinstance(result, SweepResult)
    board, table = (result.leaderboard if swept else result), result.table
    costs = list(result.costs) if swept else []
    parameters = [column for column in result.parameters.columns if column not in costs] if swept else []
    pareto = swept and result.pareto is not None
    header = ["configuration", "rank", *board.metrics, "95% CI", p_header(board), "tied_with_best", "wins", "ties", "losses"]
    header += [*parameters, *costs, *(["pareto"] if pareto else [])]
    rows, marks = [], []
    for name, row in table.iterrows():
        best = row["rank"] == 1
        cells = [str(name), str(int(row["rank"])), *(number(row[metric]) for metric in board.metrics)]
        cells.append(f"{number(row['ci_low'])}–{number(row['ci_high'])}")
        cells.append(number(row[board.p_column]))
        cells.append("best" if best else ("yes" if row["tied_with_best"] else "no"))
        cells += ["", "", ""] if best else [str(int(row[column])) for column in ("wins", "ties", "losses")]
        cells += [value_text(row[column]) for column in [*parameters, *costs]]
        cells += ["yes" if row["pareto"] else "no"] if pareto else []
        rows.append(cells)
        marks.append(BEST if best else ("" if row["tied_with_best"] else WORSE))
    numeric = [False, True, *[True] * len(board.metrics), True, True, False, True, True, True]
    numeric += [numeric_column(table[column]) for column in [*parameters, *costs]] + ([False] if pareto else [])
    return Grid(header, rows, numeric, marks)


def p_header(board: Leaderboard) -> str:
    """The header of the deciding p-value's column: ``p (Holm)``, ``p (BH)``, ``p (unadjusted)``."""
    return f"p ({CORRECTION_METHODS[board.correction].short})"


def to_markdown(result: SweepResult | Leaderboard) -> str:
    """The leaderboard of ``result`` as a GitHub-flavoured Markdown table."""
    return markdown_table(leaderboard_grid(result))


def to_latex(result: SweepResult | Leaderboard) -> str:
    """The leaderboard of ``result`` as a LaTeX ``tabular`` (booktabs rules), text escaped."""
    return latex_table(leaderboard_grid(result))


def to_html(result: SweepResult | Leaderboard) -> str:
    """The leaderboard of ``result`` as an HTML ``<table class="leaderboard">``, text escaped."""
    return html_table(leaderboard_grid(result), css_class="leaderboard")


def effects_grid(result: SweepResult) -> Grid:
    """The marginal effects as cells: the parameter, its value as the tables show values (``(none)``: the
    configurations without that parameter), the mean, the number of configurations averaged, and the delta."""
    return frame_grid(result.effects, [str, lambda value: value_text(value) or "(none)", number, str, number])


def markdown_table(grid: Grid) -> str:
    """A grid as a Markdown table (text escaped, :func:`markdown_text`; numbers right-aligned)."""
    lines = ["| " + " | ".join(map(markdown_text, grid.header)) + " |"]
    lines.append("|" + "".join("---:|" if numeric else "---|" for numeric in grid.numeric))
    for row, mark in zip(grid.rows, grid.marks):
        lines.append("| " + " | ".join(map(markdown_text, [row[0] + mark, *row[1:]])) + " |")
    return "\n".join(lines)


def latex_table(grid: Grid) -> str:
    """A grid as a LaTeX ``tabular`` (booktabs rules), text escaped, the marks as superscripts."""
    lines = [
        "\\begin{tabular}{" + "".join("r" if numeric else "l" for numeric in grid.numeric) + "}",
        "\\toprule",
        " & ".join(map(_latex_escape, grid.header)) + " \\\\",
        "\\midrule",
    ]
    for row, mark in zip(grid.rows, grid.marks):
        lines.append(" & ".join([_latex_escape(row[0]) + _LATEX_MARKS[mark], *map(_latex_escape, row[1:])]) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines)


def html_table(grid: Grid, *, css_class: str) -> str:
    """A grid as an HTML ``<table>``, text escaped, number cells of class ``num``, a marked row of
    class ``best`` or ``worse``."""
    def cell(tag: str, text: str, numeric: bool) -> str:
        # A long header may break after an underscore (tied_with_best), so that it is no wider than its column.
        shown = html_text(text).replace("_", "_<wbr>") if tag == "th" and len(text) > 8 else html_text(text)
        return f'<{tag} class="num">{shown}</{tag}>' if numeric else f"<{tag}>{shown}</{tag}>"

    head = "".join(cell("th", text, numeric) for text, numeric in zip(grid.header, grid.numeric))
    classes = {BEST: ' class="best"', WORSE: ' class="worse"', "": ""}
    body = "".join(
        f"<tr{classes[mark]}>"
        + "".join(cell("td", text, numeric) for text, numeric in zip([row[0] + mark, *row[1:]], grid.numeric))
        + "</tr>"
        for row, mark in zip(grid.rows, grid.marks)
    )
    return f'<table class="{css_class}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def frame_grid(frame: pd.DataFrame, formats: Sequence[Callable[[Any], str]]) -> Grid:
    """A grid of ``frame``'s rows, each column written by its function of ``formats`` (value -> text)."""
    rows = [[str(write(value)) for write, value in zip(formats, values)] for values in frame.itertuples(index=False)]
    numeric = [numeric_column(frame[column]) for column in frame.columns]
    return Grid([str(column) for column in frame.columns], rows, numeric, [""] * len(rows))


def numeric_column(column: pd.Series) -> bool:
    """Whether a column holds numbers (not booleans): its cells are right-aligned."""
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def markdown_text(text: str) -> str:
    """``text`` as literal Markdown: the characters that would start emphasis, code, a link, HTML or a cell
    (``\\ ` * _ [ ] < > |``) escaped with a backslash, so that a name such as ``a*b*`` shows as written."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|])")


_LATEX_SPECIAL = {
    "\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_",
    "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}", "–": "--",
}  # fmt: skip


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)
