"""The report's optional comparisons: every pair of configurations, and the best against the runner-up per query.

They render a leaderboard's ``pairwise`` and ``head_to_head`` tables (both None unless the
sweep computed them):

- ``pairwise``: one row per pair a < b in rank order, with ``mean_a``, ``mean_b``,
  ``difference`` (``mean_a - mean_b``), the p-values of the t-test and of the chosen test, raw and
  corrected over all pairs (by default ``p_t``/``p_t_holm``, ``p_randomization``/
  ``p_randomization_holm``), and ``significant``; the page shows the corrected ones;
- ``head_to_head``: the per-query objective of the best and of the runner-up, ``query_id``,
  ``best``, ``runner_up``, ``difference`` and ``outcome`` (``win``, ``tie`` or ``loss`` for the
  best), sorted by difference descending. The report shows the counts of each outcome and the
  :data:`SHOWN_QUERIES` largest wins and losses (every query stays in the table).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..sweep.ranking import Leaderboard
from .legend import adjusted_over
from .tables import Grid, frame_grid, number

#: The largest wins (and losses) of the best against the runner-up listed on the page.
SHOWN_QUERIES = 10


@dataclass(frozen=True)
class HeadToHead:
    """The best against the runner-up: ``summary`` (one sentence), the ``wins`` and ``losses`` shown (largest
    first; None when there is none)."""

    summary: str
    wins: Grid | None
    losses: Grid | None


def pairwise_grid(board: Leaderboard) -> tuple[str, Grid] | None:
    """A sentence on what the pairs are and how they were tested, and their table; None without ``pairwise``."""
    pairs = board.pairwise
    if pairs is None:
        return None
    significant = int(pairs["significant"].sum())
    summary = (
        f"Every pair of configurations (a ranked above b), compared query by query on {board.objective}: "
        f"difference = mean_a - mean_b; the p-values are {adjusted_over(board)} all {len(pairs)} pairs, and a pair is "
        f"significant when its {board.p_words} p-value is at most alpha = {board.alpha:g} "
        f"({significant} of {len(pairs)} are)."
    )
    shown = pairs[["a", "b", "mean_a", "mean_b", "difference", *board.p_columns, "significant"]]
    formats = [str, str, number, number, number, *[number] * len(board.p_columns), _yes_no]
    return summary, frame_grid(shown, formats)


def head_to_head(board: Leaderboard) -> HeadToHead | None:
    """The best against the runner-up per query; None without ``head_to_head``."""
    frame = board.head_to_head
    if frame is None:
        return None
    best, runner_up = board.table.index[0], board.table.index[1]
    counts = frame["outcome"].value_counts()
    if counts.get("tie", 0) == len(frame):
        summary = (f"The best, {best}, and the runner-up, {runner_up}, are identical on {board.objective} on every "
                   f"one of the {len(frame)} queries.")  # fmt: skip
        return HeadToHead(summary, None, None)
    summary = (
        f"The best, {best}, against the runner-up, {runner_up}, on {board.objective} query by query: "
        f"{counts.get('win', 0)} wins, {counts.get('tie', 0)} ties and {counts.get('loss', 0)} losses for the best, "
        f"over {len(frame)} queries. The largest of each (at most {SHOWN_QUERIES}) are listed; difference = best - "
        "runner-up."
    )
    return HeadToHead(summary, _largest(frame, "win"), _largest(frame, "loss"))


def _largest(frame: pd.DataFrame, outcome: str) -> Grid | None:
    rows = frame[frame["outcome"] == outcome]
    if rows.empty:
        return None
    rows = rows.reindex(rows["difference"].abs().sort_values(ascending=False, kind="stable").index)
    shown = rows.head(SHOWN_QUERIES)[["query_id", "best", "runner_up", "difference"]]
    return frame_grid(shown, [str, number, number, number])


def _yes_no(value: object) -> str:
    return "yes" if value else "no"
