"""How to read a sweep's report, in plain words: the marks, ``tied_with_best``, the columns.

Every text is built from the result it explains (its objective, direction, number of queries and
comparisons, level ``alpha``, costs), so the page states the numbers the reader sees. The HTML
page and the Markdown report show the same entries (term, explanation).
"""

from __future__ import annotations

from ..sweep.analysis import SweepResult
from ..sweep.ranking import Leaderboard
from ..sweep.settings import TEST_METHODS
from ..views import counted
from .tables import BEST, WORSE, p_header

# What each correction of the p-values guards against, as the reading guide says it.
_FAMILY_WISE = ("adjustment raises each p-value with the number of comparisons, so that the chance of marking any "
                "configuration worse by accident stays at most alpha.")  # fmt: skip
_ADJUSTMENT = {
    "holm": f"Holm's {_FAMILY_WISE}",
    "bonferroni": f"Bonferroni's {_FAMILY_WISE}",
    "bh": "The Benjamini-Hochberg adjustment raises each p-value with the number of comparisons, so that among the "
          "configurations marked worse the expected share marked by accident stays at most alpha (the chance of "
          "marking some by accident is larger).",
    "none": "The p-values are not adjusted for the number of comparisons: the more configurations, the more of them "
            "may be marked worse by accident.",
}


#: The line above the leaderboard.
MARKS_LINE = f"{BEST} best; {WORSE} significantly worse than the best; no mark: tied with the best"


def facts(result: SweepResult) -> str:
    """One line: the objective and its direction, how many configurations and queries, the tests' level, the costs."""
    board = result.leaderboard
    direction = "higher" if board.higher_is_better else "lower"
    line = (
        f"Objective: {board.objective} ({direction} is better); {counted(len(board.table), 'configuration')}, "
        f"{board.queries_text('compared')}; tests at alpha = {board.alpha:g}"
    )
    return line + (f"; costs: {', '.join(result.costs)}." if result.costs else ".")


def reading_guide(result: SweepResult) -> list[tuple[str, str]]:
    """The entries (term, explanation) that say what each mark and column of the leaderboard means."""
    board = result.leaderboard
    goal, alpha = board.objective, f"{board.alpha:g}"
    comparisons = len(board.table) - 1
    column = p_header(board)
    best_word = "highest" if board.higher_is_better else "lowest"
    entries = [(BEST, f"The best configuration (rank 1): the {best_word} mean {goal} over the {board.queries_text('compared')}.")]
    if comparisons:  # with one configuration there is no test, and no other mark
        entries += [
            (
                WORSE,
                f"Significantly worse than the best. The configuration and the best are compared query by query; "
                f"the {TEST_METHODS[board.test].words}'s p-value, {adjusted_over(board)} the {counted(comparisons, 'comparison')} "
                f"with the best (column {column}), is at most alpha = {alpha}. Its tied_with_best is no.",
            ),
            (
                "no mark: tied_with_best yes",
                f"The queries do not show this configuration to be worse than the best: its {column} is above alpha "
                f"= {alpha}. Tied means not shown to differ, not shown to be equal: more queries might separate them.",
            ),
            ("why a tied configuration can rank below a worse one", _why_tied_below_worse(board)),
        ]
    entries += [
        (
            "95% CI",
            f"The 95% bootstrap interval of the mean {goal}: the queries resampled, the same resamples for every "
            "configuration.",
        ),
        ("wins, ties, losses", f"The queries on which the configuration's {goal} is better than, equal to, or worse "
                               "than the best's."),
    ]  # fmt: skip
    parameters = [column for column in result.parameters.columns if column not in result.costs]
    if parameters or result.costs:
        named = ", ".join([*parameters, *result.costs])
        entries.append(
            ("parameters and costs", f"The last columns ({named}) are the sweep's parameters, then its costs; an "
                                     "empty cell: the parameter does not apply to that configuration.")
        )  # fmt: skip
    if result.pareto is not None:
        entries.append(
            (
                "pareto",
                f"yes for a configuration no other beats on {goal} and on the costs ({', '.join(result.costs)}) at "
                f"once: none is as good on {goal} and as cheap on every cost while better on one of them. The "
                "configurations off the front cost more for no gain.",
            )
        )
    return entries


def adjusted_over(board: Leaderboard) -> str:
    """``Holm-adjusted over`` (the family the p-value was adjusted over follows), ``not adjusted for`` uncorrected."""
    return "not adjusted for" if board.correction == "none" else f"{board.correction_words} over"


def _why_tied_below_worse(board: Leaderboard) -> str:
    text = (
        "Each configuration is tested against the best alone, never against its neighbours, and the test weighs "
        "how consistently its per-query differences from the best point one way, not how far down it ranks. A "
        "configuration a little behind the best on nearly every query (small, steady differences) is clearly "
        "worse; one further down whose differences swing widely (far better on some queries, far worse on "
        "others) leaves the test unsure, and stays tied. So a rank can carry the dagger while a lower rank "
        "carries none: the rank orders the means, the mark says what the queries can tell apart. "
        + _ADJUSTMENT[board.correction]
    )
    example = inversion(board)
    if example is None:
        return text
    worse, tied = example
    return text + (
        f" In this sweep: rank {worse[0]} ({worse[1]}) is significantly worse, while rank {tied[0]} ({tied[1]}) "
        "is tied with the best."
    )


def inversion(board: Leaderboard) -> tuple[tuple[int, str], tuple[int, str]] | None:
    """The first configuration marked worse that ranks above one tied with the best, and the last such tied one
    (each as rank and name), or None when the marks follow the ranks."""
    rows = [(int(rank), str(name), bool(tied)) for name, rank, tied in
            zip(board.table.index, board.table["rank"], board.table["tied_with_best"])]  # fmt: skip
    for position, (rank, name, tied) in enumerate(rows):
        below_tied = [(r, n) for r, n, t in rows[position + 1 :] if t]
        if not tied and below_tied:
            return (rank, name), below_tied[-1]
    return None
