"""A self-contained HTML report of a sweep: one file, no server, plots embedded as data URIs."""

from __future__ import annotations

import base64
import html
import os
from pathlib import Path

from ..errors import ConfigError
from ..io.atomic import atomic_write
from ..sweep.analysis import SweepResult
from . import plots
from .tables import to_html

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: right; }
td:first-child, th:first-child { text-align: left; }
img { max-width: 48%; margin: 0.5em; border: 1px solid #eee; }
"""


def html_report(result: SweepResult, *, title: str = "Sweep report", with_plots: bool = True) -> str:
    """The report as one HTML document: the leaderboard (``*`` best, ``†`` significantly worse), notes,
    marginal effects and, unless ``with_plots`` is False or matplotlib is missing, the plots."""
    board = result.leaderboard
    table = result.table
    parts = [
        f"<h1>{html.escape(title)}</h1>",
        f"<p>Objective: <b>{html.escape(board.objective)}</b>; {len(table)} configurations, "
        f"{board.per_query.shape[1]} queries compared. * best; † significantly worse than the best "
        "(Holm-adjusted randomization test).</p>",
        to_html(table, board.metrics),
    ]
    parts += [f'<p class="note">{html.escape(note)}</p>' for note in board.notes]
    if result.effects is not None:
        effects = result.effects.to_html(index=False, float_format=lambda value: f"{value:.4f}", classes="effects")
        parts += ["<h2>Marginal effects</h2>", effects]
    if with_plots:
        parts += _figures(result)
    body = "\n".join(parts)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body>\n{body}\n</body></html>\n"
    )


def write_report(result: SweepResult, path: str | os.PathLike[str], **options: object) -> None:
    """Write :func:`html_report` to ``path``, atomically; an :class:`~retrieval_eval.errors.OutputError`
    if ``path`` is (or holds) one of the sweep's sources."""
    text = html_report(result, **options)
    atomic_write(path, lambda temp: Path(temp).write_text(text, encoding="utf-8"), inputs=result.sources)


def _figures(result: SweepResult) -> list[str]:
    board, table = result.leaderboard, result.table
    try:
        images = [plots.per_query_plot(board.per_query, board.objective)]
        names = plots.parameter_names(table, list(result.parameters.columns))
        images += [plots.parameter_plot(table, name, board.objective) for name in names]
        if len(names) >= 2:
            images.append(plots.heatmap(table, names[0], names[1], board.objective))
    except ConfigError as exc:  # matplotlib is an optional extra: say so in the report
        return [f'<p class="note">{html.escape(str(exc))}</p>']
    return ["<h2>Plots</h2>"] + [
        f'<img alt="plot {index}" src="data:image/png;base64,{base64.b64encode(image).decode("ascii")}">'
        for index, image in enumerate(images, start=1)
    ]
