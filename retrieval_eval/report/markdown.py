"""A sweep's report in Markdown: the HTML report's facts, leaderboard, reading guide, comparisons,
which differences are real, marginal effects and judge agreement (not its plots), for a pull request,
a wiki or a notebook. Every text is escaped
(:func:`~.tables.markdown_text`): names show as written."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..sweep.analysis import SweepResult
from .agreement import agreement_section
from .comparisons import head_to_head, pairwise_grid
from .legend import MARKS_LINE, facts, reading_guide
from .significance import significance_markdown
from .tables import effects_grid, markdown_table, markdown_text, to_markdown

if TYPE_CHECKING:
    from ..judging.ranking_agreement import RankingAgreement


def markdown_report(result: SweepResult, *, title: str = "Sweep report", agreement: RankingAgreement | None = None) -> str:
    """The report of ``result`` as one Markdown document (GitHub-flavoured tables); ``agreement`` adds the
    section of the runs ranked under a judge's labels too, as the HTML report does."""
    board = result.leaderboard
    parts = [
        f"# {markdown_text(title)}",
        markdown_text(facts(result)),
        "## Leaderboard",
        markdown_text(MARKS_LINE + " (see below)."),
        to_markdown(result),
        *(f"> {markdown_text(note)}" for note in board.notes),
        "## How to read the leaderboard",
        "\n".join(f"- **{markdown_text(term)}**: {markdown_text(text)}" for term, text in reading_guide(result)),
    ]
    duel = head_to_head(board)
    if duel is not None:
        parts += ["## The best against the runner-up", markdown_text(duel.summary)]
        for kind, grid in (("wins", duel.wins), ("losses", duel.losses)):
            if grid is not None:
                parts += [f"### Largest {kind} of the best", markdown_table(grid)]
    pairs = pairwise_grid(board)
    if pairs is not None:
        parts += ["## Every pair", markdown_text(pairs[0]), markdown_table(pairs[1])]
    if result.significance is not None:
        parts += significance_markdown(result.significance)
    if result.effects is not None:
        parts += ["## Marginal effects", markdown_table(effects_grid(result))]
    if agreement is not None:
        section = agreement_section(agreement)
        parts += [
            "## Agreement with a judge", markdown_text(section.summary),
            "### Ranked by the human qrels", markdown_table(section.human),
            "### Ranked by the judge", markdown_table(section.judge),
            "### Pairs that swap", markdown_text(section.swapped_text),
            *([markdown_table(section.swapped)] if section.swapped is not None else []),
            "### Significant differences that flip", markdown_text(section.flips_text),
            *([markdown_table(section.flips)] if section.flips is not None else []),
        ]  # fmt: skip
    return "\n\n".join(parts) + "\n"
