"""The "which differences are real" section of a sweep: for the terminal, the HTML report and the Markdown report.

Made from a :class:`~retrieval_eval.sweep.significance.Significance`: its summary (one line per
finding, each saying what its number means), the comparison table (:mod:`.compare_table`), the
two-way ANOVA, the topic-set sizes, how well each metric separates the configurations, and every
pair with its Tukey p-value, its effect size and its intervals.
"""

from __future__ import annotations

from ..sweep.significance import Significance
from ..views import html_text, p_value_text, wrap
from .compare_table import compare_table, comparison_legend
from .tables import Grid, frame_grid, html_table, markdown_table, markdown_text, number, numeric_column

_SECTION_INTRO = (
    "Every pair of configurations compared at once on the objective, with the family-wise error over all pairs "
    "controlled (randomised Tukey HSD, paired by query); the intervals say how large each difference may be."
)


def significance_text(result: Significance, width: int) -> list[str]:
    """The section's lines for a terminal, each at most ``width`` characters."""
    lines = ["", "which differences are real:"]
    lines += [line for finding in result.summary() for line in wrap(f"  {finding}", width)]
    lines += ["", *compare_table(result, "text", width=width).splitlines()]
    return lines


def anova_grid(result: Significance) -> Grid:
    """The two-way ANOVA table's cells."""
    return frame_grid(result.anova, [str, number, _integer, number, number, p_value_text])


def topic_set_grid(result: Significance) -> Grid:
    """The topic-set sizes' cells (every column of :func:`~retrieval_eval.sweep.power.topic_set_sizes`)."""
    frame = result.topic_set_sizes
    formats = [(_integer if frame[column].dtype.kind in "iu" else number) if numeric_column(frame[column]) else str
               for column in frame.columns]  # fmt: skip
    return frame_grid(frame, formats)


def discrimination_grid(result: Significance) -> Grid:
    """How well each metric separates the configurations: the cells of :attr:`Significance.discrimination`."""
    frame = result.discrimination
    formats = [(_integer if frame[column].dtype.kind in "iu" else number) if numeric_column(frame[column]) else str
               for column in frame.columns]  # fmt: skip
    return frame_grid(frame, formats)


def correlation_grid(result: Significance) -> Grid:
    """Each other metric's ranking against the objective's: the cells of :attr:`Significance.correlations`."""
    return frame_grid(result.correlations, [str, number, number, number, _integer, _integer])


def pairs_grid(result: Significance) -> Grid:
    """Every pair's cells: names, difference, Tukey p, significant, the three intervals and the effect size."""
    pairs = result.pairs
    rows = [
        [str(row.a), str(row.b), f"{row.difference:+.4f}", p_value_text(row.p_tukey), "yes" if row.significant else "no",
         f"{row.hsd_low:+.4f} – {row.hsd_high:+.4f}", f"{row.t_low:+.4f} – {row.t_high:+.4f}",
         f"{row.bootstrap_low:+.4f} – {row.bootstrap_high:+.4f}", number(row.effect_size, 3)]
        for row in pairs.itertuples(index=False)
    ]  # fmt: skip
    level = f"{result.level:.0%}"
    header = ["a", "b", "difference", "p (Tukey HSD)", "significant", f"Tukey {level} interval", f"t {level} interval",
              f"bootstrap {level} interval", "effect size"]  # fmt: skip
    return Grid(header, rows, [False, False, True, True, False, True, True, True, True], [""] * len(rows))


def significance_html(result: Significance) -> list[str]:
    """The section's HTML parts (headings, the summary as a list, the tables in scrolling boxes)."""

    def box(table: str, tall: bool = False) -> str:
        return f'<div class="scroll{" tall" if tall else ""}">{table}</div>'

    return [
        '<section id="significance"><h2>Which differences are real</h2>',
        f"<p>{html_text(_SECTION_INTRO)}</p>",
        "<ul>", *(f"<li>{html_text(finding)}</li>" for finding in result.summary()), "</ul>",
        "<h3>Every metric: who beats whom</h3>",
        f"<p>{html_text(comparison_legend(result))}.</p>",
        box(compare_table(result, "html"), tall=True),
        "<h3>Which metric separates the configurations</h3>",
        box(html_table(discrimination_grid(result), css_class="discrimination")),
        *([f"<h3>Does every metric rank the configurations as {html_text(result.objective)} does</h3>",
           box(html_table(correlation_grid(result), css_class="correlations"))] if len(result.correlations) else []),
        "<h3>How many queries a decision needs</h3>",
        box(html_table(topic_set_grid(result), css_class="topic-set-sizes")),
        "<h3>Two-way ANOVA (configurations x queries)</h3>",
        box(html_table(anova_grid(result), css_class="anova")),
        "<h3>Every pair</h3>",
        box(html_table(pairs_grid(result), css_class="tukey-pairs"), tall=True),
        "</section>",
    ]  # fmt: skip


def significance_markdown(result: Significance) -> list[str]:
    """The section's Markdown parts, as the HTML's."""
    return [
        "## Which differences are real", markdown_text(_SECTION_INTRO),
        "\n".join(f"- {markdown_text(finding)}" for finding in result.summary()),
        "### Every metric: who beats whom", markdown_text(comparison_legend(result) + "."), compare_table(result, "markdown"),
        "### Which metric separates the configurations", markdown_table(discrimination_grid(result)),
        *([f"### Does every metric rank the configurations as {markdown_text(result.objective)} does",
           markdown_table(correlation_grid(result))] if len(result.correlations) else []),
        "### How many queries a decision needs", markdown_table(topic_set_grid(result)),
        "### Two-way ANOVA (configurations x queries)", markdown_table(anova_grid(result)),
        "### Every pair", markdown_table(pairs_grid(result)),
    ]  # fmt: skip


def _integer(value: object) -> str:
    return "" if value != value else str(int(value))  # NaN (no value) is empty
