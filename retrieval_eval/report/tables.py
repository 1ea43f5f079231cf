"""The leaderboard as Markdown, LaTeX and HTML tables, with significance marks.

A configuration significantly worse than the best (Holm-adjusted randomization p-value at or
below the level the leaderboard used, i.e. not ``tied_with_best``) is marked with a dagger
(``†``; ``$^\\dagger$`` in LaTeX); the best is marked ``*``. Numbers are shown to four decimals.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd

_SHOWN = ("rank", "ci_low", "ci_high", "p_randomization_holm", "wins", "ties", "losses")


def _rows(table: pd.DataFrame, metrics: Sequence[str]) -> tuple[list[str], list[list[str]], list[str]]:
    """Header, cell texts and the mark of each configuration."""
    columns = ["configuration", *metrics, *[c for c in _SHOWN if c in table.columns]]
    cells, marks = [], []
    for name, row in table.iterrows():
        cells.append([str(name), *(_text(row[column]) for column in columns[1:])])
        marks.append("*" if row.get("rank") == 1 else ("" if row.get("tied_with_best", True) else "†"))
    return columns, cells, marks


def _text(value: object) -> str:
    if isinstance(value, float):
        return "" if pd.isna(value) else f"{value:.4f}"
    return str(value)


def to_markdown(table: pd.DataFrame, metrics: Sequence[str]) -> str:
    """A GitHub-flavoured Markdown table of the leaderboard ``table`` with the mean of each of ``metrics``."""
    columns, cells, marks = _rows(table, metrics)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row, mark in zip(cells, marks):
        lines.append("| " + " | ".join([row[0] + mark, *row[1:]]) + " |")
    return "\n".join(lines)


def to_latex(table: pd.DataFrame, metrics: Sequence[str]) -> str:
    """A LaTeX ``tabular`` (booktabs rules), text escaped."""
    columns, cells, marks = _rows(table, metrics)
    latex_marks = {"*": "$^*$", "†": "$^\\dagger$", "": ""}
    lines = [
        "\\begin{tabular}{l" + "r" * (len(columns) - 1) + "}",
        "\\toprule",
        " & ".join(_latex_escape(column) for column in columns) + " \\\\",
        "\\midrule",
    ]
    for row, mark in zip(cells, marks):
        lines.append(" & ".join([_latex_escape(row[0]) + latex_marks[mark], *map(_latex_escape, row[1:])]) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines)


def to_html(table: pd.DataFrame, metrics: Sequence[str]) -> str:
    """An HTML ``<table>``, text escaped."""
    columns, cells, marks = _rows(table, metrics)
    head = "".join(f"<th>{html.escape(column)}</th>" for column in columns)
    body = "".join(
        "<tr>"
        + f"<td>{html.escape(row[0] + mark)}</td>"
        + "".join(f"<td>{html.escape(cell)}</td>" for cell in row[1:])
        + "</tr>"
        for row, mark in zip(cells, marks)
    )
    return f'<table class="leaderboard"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


_LATEX_SPECIAL = {
    "\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_",
    "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}",
}  # fmt: skip


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)
