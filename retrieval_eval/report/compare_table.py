"""The comparison table of a sweep's significance (ranx's ``compare`` report made familiar), in four formats.

One row per configuration in rank order: its key (a, b, c, ... by rank), its name, and for each
metric its mean followed by the keys of the configurations it is significantly better than
under that metric (randomised Tukey HSD over every pair at the sweep's ``alpha``,
:mod:`retrieval_eval.sweep.significance`). Consecutive keys are written as a range: ``0.4521
c–f,h`` beats c, d, e, f and h. The same cells (a :class:`~.tables.Grid`) are written as text
for a terminal (fitted to its width), Markdown, LaTeX and HTML.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ConfigError
from ..sweep.significance import Significance, keys_of
from ..views import Column, aligned, fit_columns, terminal_width, wrap
from .tables import Grid, html_table, latex_table, markdown_table, number

#: The formats of :func:`compare_table`.
FORMATS = ("text", "markdown", "latex", "html")


def key_ranges(beaten: Sequence[str], keys: Sequence[str]) -> str:
    """``beaten`` (keys, in the order of ``keys``) with each run of consecutive keys as ``first–last``: ``c–f,h``."""
    if not beaten:
        return ""
    position = {key: index for index, key in enumerate(keys)}
    indices = sorted(position[key] for key in beaten)
    parts, start = [], indices[0]
    for previous, current in zip(indices, [*indices[1:], None]):
        if current is None or current != previous + 1:
            parts.append(keys[start] if start == previous else f"{keys[start]}{'–' if previous > start + 1 else ','}{keys[previous]}")
            start = current
    return ",".join(parts)


def comparison_grid(result: Significance) -> Grid:
    """The comparison table's cells: key, configuration, and per metric ``mean beaten-keys``."""
    table = result.comparison
    metrics = list(dict.fromkeys(table["metric"]))
    names = list(dict.fromkeys(table["configuration"]))
    keys = keys_of(len(names))
    by_metric = {metric: table[table["metric"] == metric] for metric in metrics}
    rows = []
    for index, name in enumerate(names):
        cells = [keys[index], str(name)]
        for metric in metrics:
            row = by_metric[metric].iloc[index]
            beaten = key_ranges(row["beats"], keys)
            cells.append(f"{number(row['mean'])} {beaten}".rstrip())
        rows.append(cells)
    return Grid(["key", "configuration", *metrics], rows, [False, False, *[True] * len(metrics)], [""] * len(rows))


def compare_table(result: Significance, style: str = "text", *, width: int | None = None) -> str:
    """The comparison table in ``style`` (one of :data:`FORMATS`); text lines at most ``width`` (default: the terminal's)."""
    if style not in FORMATS:
        raise ConfigError(f"the comparison table is written as {', '.join(FORMATS)}; got {style!r}")
    grid = comparison_grid(result)
    legend = comparison_legend(result)
    if style == "markdown":
        return markdown_table(grid)
    if style == "latex":
        return latex_table(grid)
    if style == "html":
        return html_table(grid, css_class="comparison")
    width = terminal_width() if width is None else width
    columns = [Column(header, [row[index] for row in grid.rows], right=grid.numeric[index] and index > 1)
               for index, header in enumerate(grid.header)]  # fmt: skip
    columns[1] = columns[1].elided(30)
    fitted, left_out = fit_columns(columns, width)
    lines = [*wrap(legend, width), *aligned(fitted)]
    if left_out:
        lines += wrap(f"not shown: {', '.join(left_out)} (a wider terminal, or --compare FILE.md, shows every metric)", width)
    return "\n".join(lines)


def comparison_legend(result: Significance) -> str:
    """What the table's marks mean, in one sentence."""
    return (
        f"each mean is followed by the keys of the configurations it is significantly better than under that metric "
        f"(randomised Tukey HSD over every pair, {result.permutations} permutations, at {result.alpha:g})"
    )
