"""A sweep's report in Markdown: the HTML report's facts, leaderboard, reading guide, comparisons and
marginal effects (not its plots), for a pull request, a wiki or a notebook. Every text is escaped
(:func:`~.tables.markdown_text`): names show as written."""

from __future__ import annotations

from ..sweep.analysis import SweepResult
from .comparisons import head_to_head, pairwise_grid
from .legend import MARKS_LINE, facts, reading_guide
from .tables import effects_grid, markdown_table, markdown_text, to_markdown


def markdown_report(result: SweepResult, *, title: str = "Sweep report") -> str:
    """The report of ``result`` as one Markdown document (GitHub-flavoured tables)."""
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
        parts += [
            "## The best against the runner-up", markdown_text(duel.summary),
            "### Largest wins of the best", markdown_table(duel.wins),
            "### Largest losses of the best", markdown_table(duel.losses),
        ]  # fmt: skip
    pairs = pairwise_grid(board)
    if pairs is not None:
        parts += ["## Every pair", markdown_text(pairs[0]), markdown_table(pairs[1])]
    if result.effects is not None:
        parts += ["## Marginal effects", markdown_table(effects_grid(result))]
    return "\n\n".join(parts) + "\n"
