"""A self-contained HTML report of a sweep: one file, no server, no script, plots embedded as data URIs.

The page, in order: the facts (objective, configurations, queries, the tests' level, costs), the
leaderboard with its parameter, cost and Pareto columns, its notes, how to read it
(:mod:`.legend`), the best against the runner-up and every pair (:mod:`.comparisons`, when the
sweep computed them), which differences are real (:mod:`.significance`, when computed), the marginal
effects, and the plots (:mod:`.plots`), each with a title and
a caption. It fits a 1024-pixel-wide window and uses a wide window's width (up to 160em, where lines
of text grow too long to read): a table wider than the page scrolls inside its own box, and the plots
scale to their column. Its style sheet is ``sweep.css`` of :mod:`.assets`.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..io.atomic import atomic_write
from ..sweep.analysis import SweepResult
from ..views import html_text
from . import plot_data, plots
from .agreement import agreement_section
from .assets import asset_text
from .comparisons import head_to_head, pairwise_grid
from .legend import MARKS_LINE, facts, reading_guide
from .significance import significance_html
from .tables import Grid, effects_grid, html_table, to_html

if TYPE_CHECKING:
    from ..judging.ranking_agreement import RankingAgreement


def html_report(
    result: SweepResult, *, title: str = "Sweep report", with_plots: bool = True, agreement: RankingAgreement | None = None
) -> str:
    """The report of ``result`` as one HTML document (see the module's docstring); without plots when
    ``with_plots`` is False, and with a note instead of them when matplotlib is missing. ``agreement``:
    the runs ranked under a judge's labels too (:func:`~retrieval_eval.judging.ranking_agreement`), a
    section of its own."""
    board = result.leaderboard
    parts = [
        f"<h1>{html_text(title)}</h1>",
        f'<p class="facts">{html_text(facts(result))}</p>',
        '<section id="leaderboard"><h2>Leaderboard</h2>',
        f'<p>{html_text(MARKS_LINE)} (see <a href="#reading">how to read the leaderboard</a>).</p>',
        _scrolling(to_html(result)),
        *(f'<p class="note">{html_text(note)}</p>' for note in board.notes),
        "</section>",
        '<section id="reading"><h2>How to read the leaderboard</h2><dl>',
        *(f"<dt>{html_text(term)}</dt><dd>{html_text(text)}</dd>" for term, text in reading_guide(result)),
        "</dl></section>",
        *_comparisons(result),
        *(significance_html(result.significance) if result.significance is not None else []),
    ]
    if result.effects is not None:
        parts += [
            '<section id="effects"><h2>Marginal effects</h2>',
            f"<p>The mean {html_text(board.objective)} of the configurations with each value of each parameter "
            "(delta: that mean minus the mean of all configurations).</p>",
            _scrolling(html_table(effects_grid(result), css_class="effects")),
            "</section>",
        ]
    if agreement is not None:
        parts += _agreement(agreement)
    if with_plots:
        parts += _figures(result)
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html_text(title)}</title><style>\n{asset_text('sweep.css')}</style></head><body>\n{body}\n</body></html>\n"
    )


def write_report(result: SweepResult, path: str | os.PathLike[str], **options: object) -> None:
    """Write :func:`html_report` to ``path``, atomically; an :class:`~retrieval_eval.errors.OutputError`
    if ``path`` is (or holds) one of the sweep's sources. ``options``: those of :func:`html_report`
    (``title``, ``with_plots``, ``agreement``)."""
    text = html_report(result, **options)
    atomic_write(path, lambda temp: Path(temp).write_text(text, encoding="utf-8"), inputs=result.sources)


def _comparisons(result: SweepResult) -> list[str]:
    board, parts = result.leaderboard, []
    duel = head_to_head(board)
    if duel is not None:
        sides = [f"<div><h3>Largest {kind} of the best</h3>{_scrolling(html_table(grid, css_class=kind))}</div>"
                 for kind, grid in (("wins", duel.wins), ("losses", duel.losses)) if grid is not None]  # fmt: skip
        parts += [
            '<section id="head-to-head"><h2>The best against the runner-up</h2>',
            f"<p>{html_text(duel.summary)}</p>",
            *(['<div class="side-by-side">', *sides, "</div>"] if sides else []),
            "</section>",
        ]
    pairs = pairwise_grid(board)
    if pairs is not None:
        summary, grid = pairs
        parts += [
            '<section id="pairwise"><h2>Every pair</h2>',
            f"<p>{html_text(summary)}</p>",
            _scrolling(html_table(grid, css_class="pairwise"), tall=True),
            "</section>",
        ]
    return parts


def _agreement(agreement: RankingAgreement) -> list[str]:
    section = agreement_section(agreement)

    def listed(text: str, grid: Grid | None, css_class: str) -> list[str]:
        return [f"<p>{html_text(text)}</p>", *([_scrolling(html_table(grid, css_class=css_class), tall=True)] if grid is not None else [])]

    return [
        '<section id="judge-agreement"><h2>Agreement with a judge</h2>',
        f"<p>{html_text(section.summary)}</p>",
        '<div class="side-by-side">',
        "<div><h3>Ranked by the human qrels</h3>", _scrolling(html_table(section.human, css_class="ranking-human")), "</div>",
        "<div><h3>Ranked by the judge</h3>", _scrolling(html_table(section.judge, css_class="ranking-judge")), "</div>",
        "</div>",
        "<h3>Pairs that swap</h3>", *listed(section.swapped_text, section.swapped, "swapped"),
        "<h3>Significant differences that flip</h3>", *listed(section.flips_text, section.flips, "flips"),
        "</section>",
    ]  # fmt: skip


def _scrolling(table: str, *, tall: bool = False) -> str:
    # A table wider (or, for a long one, taller) than the page scrolls in its own box, not the page.
    return f'<div class="scroll{" tall" if tall else ""}">{table}</div>'


def _figures(result: SweepResult) -> list[str]:
    try:
        figures = [(data, plots.draw(data)) for data in figure_data(result)]
    except ConfigError as exc:  # matplotlib is an optional extra: say so in the report
        return [f'<section id="plots"><h2>Plots</h2><p class="note">{html_text(str(exc))}</p></section>']
    shown = [
        f'<figure><img alt="{html_text(data.title.replace(chr(10), " "))}" '
        f'src="data:image/png;base64,{base64.b64encode(image).decode("ascii")}">'
        f"<figcaption>{html_text(data.caption)}</figcaption></figure>"
        for data, image in figures
    ]
    return ['<section id="plots"><h2>Plots</h2><div class="plots">', *shown, "</div></section>"]


def figure_data(result: SweepResult) -> list[plot_data.Scatter | plot_data.Heatmap | plot_data.Boxes | plot_data.Lines]:
    """What the report plots, in order: the per-query boxes of the top configurations, the objective
    against each cost (with the Pareto front), against each parameter, the heatmap of the first
    two parameters that make a grid, and, with the statistics for many configurations, each metric's
    achieved significance level curve."""
    board, table = result.leaderboard, result.table
    higher = board.higher_is_better
    figures: list[plot_data.Scatter | plot_data.Heatmap | plot_data.Boxes | plot_data.Lines] = [
        plot_data.boxes_data(board.per_query, board.objective, higher_is_better=higher)
    ]
    figures += [
        plot_data.cost_scatter(table, cost, board.objective, pareto=result.pareto, higher_is_better=higher)
        for cost in result.costs
    ]
    names = plot_data.plotted_parameters(table, [c for c in result.parameters.columns if c not in result.costs])
    figures += [plot_data.parameter_scatter(table, name, board.objective, higher_is_better=higher) for name in names]
    pair = plot_data.heatmap_pair(table, names)
    if pair is not None:
        figures.append(plot_data.heatmap_data(table, *pair, board.objective))
    if result.significance is not None and len(result.significance.pairs) > 1:
        figures.append(plot_data.asl_curves_data(result.significance))
    return figures
