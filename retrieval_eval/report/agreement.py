"""The report's optional judge-agreement section: the runs ranked under the human qrels and under a judge's labels.

It renders a :class:`~retrieval_eval.judging.RankingAgreement` (see its module for the definitions):
a sentence with Kendall's tau-b, tau_AP and RBO, the two rankings side by side (rank, run, mean),
the pairs of runs the two order oppositely, and the pairs whose paired t-test verdict (Holm-adjusted
over all pairs) differs. Each table is a :class:`~.tables.Grid`, written by the report's writers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..views import counted
from .tables import Grid, frame_grid, number

if TYPE_CHECKING:
    from ..judging.ranking_agreement import RankingAgreement


@dataclass(frozen=True)
class AgreementSection:
    """The section's texts and tables: ``summary`` (one paragraph), ``human`` and ``judge`` (the two rankings),
    ``swapped`` and ``flips`` (None where there are none: ``swapped_text`` and ``flips_text`` say so)."""

    summary: str
    human: Grid
    judge: Grid
    swapped_text: str
    swapped: Grid | None
    flips_text: str
    flips: Grid | None


def agreement_section(agreement: RankingAgreement) -> AgreementSection:
    """What the section shows of ``agreement``."""
    frame = agreement.rankings
    pairs = len(agreement.pairs)
    summary = (
        f"The {counted(len(frame), 'run')} ranked by {agreement.metric} under the human qrels ({agreement.human_source}) "
        f"and under the judge's labels ({agreement.judge_source}), on the {counted(agreement.n_queries, 'query', 'queries')} "
        f"both judge: Kendall's tau-b {number(agreement.kendall_tau)}, tau_AP {number(agreement.tau_ap)} (the judge's "
        f"ranking against the human one; the other way round {number(agreement.tau_ap_reverse)}, mean "
        f"{number(agreement.tau_ap_symmetric)}), RBO_ext {number(agreement.rbo)} (p = {agreement.rbo_p:g})."
    )
    human = frame.sort_values("rank_human")[["rank_human", "run", "mean_human"]]
    judge = frame.sort_values("rank_judge")[["rank_judge", "run", "mean_judge"]]
    formats = [str, str, number]
    swapped, flips = agreement.swapped, agreement.flips
    swapped_text = (
        f"{counted(len(swapped), 'pair')} of {pairs} ordered one way by the human qrels and the other way by the judge "
        "(a is ranked above b by the human qrels; difference = mean a - mean b)."
    )
    flips_text = (
        f"{counted(len(flips), 'pair')} of {pairs} whose verdict differs: significant under one and not the other, or "
        f"in opposite directions (paired t-test over the queries, Holm-adjusted over all {pairs} pairs, alpha = "
        f"{agreement.alpha:g})."
    )
    return AgreementSection(
        summary,
        _renamed(frame_grid(human, formats), ["rank", "run", f"mean {agreement.metric}"]),
        _renamed(frame_grid(judge, formats), ["rank", "run", f"mean {agreement.metric}"]),
        swapped_text,
        frame_grid(swapped, [str, str, number, number]) if len(swapped) else None,
        flips_text,
        frame_grid(flips, [str, str, number, str, number, str]) if len(flips) else None,
    )


def _renamed(grid: Grid, header: list[str]) -> Grid:
    return Grid(header, grid.rows, grid.numeric, grid.marks)
