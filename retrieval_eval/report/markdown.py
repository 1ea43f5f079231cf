"""A sweep's report in Markdown: the HTML report's facts, leaderboard, reading guide, comparisons and
marginal effects (not its plots), for a pull request, a wiki or a notebook."""

from __future__ import annotations

from ..sweep.analysis import SweepResult
from .comparisons import head_to_head, pairwise_grid
from .legend import facts, reading_guide
from .tables import BEST, WORSE, effects_grid, markdown_table, to_markdown


def markdown_report(result: SweepResult, *, title: str = "Sweep report") -> str:
    """The report of ``result`` as one Markdown document (GitHub-flavoured tables)."""
    board = result.leaderboard
    parts = [
        f"# {title}",
        facts(result),
        "## Leaderboard",
        f"{BEST} best; {WORSE} significantly worse than the best; no mark: tied with the best (see below).",
        to_markdown(result),
        *(f"> {note}" for note in board.notes),
        "## How to read the leaderboard",
        "\n".join(f"- **{term}**: {text}" for term, text in reading_guide(result)),
    ]
    duel = head_to_head(board)
    if duel is not None:
        parts += [
            "## The best against the runner-up", duel.summary,
            "### Largest wins of the best", markdown_table(duel.wins),
            "### Largest losses of the best", markdown_table(duel.losses),
        ]  # fmt: skip
    pairs = pairwise_grid(board)
    if pairs is not None:
        parts += ["## Every pair", pairs[0], markdown_table(pairs[1])]
    if result.effects is not None:
        parts += ["## Marginal effects", markdown_table(effects_grid(result))]
    return "\n\n".join(parts) + "\n"
