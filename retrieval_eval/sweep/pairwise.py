"""Beyond the comparisons with the best: every pair of configurations, and the best against the runner-up query by query.

- :func:`all_pairs`: for each pair a < b (in rank order) the paired t-test and the chosen test
  of :mod:`.stats` (default the randomization test), each with the chosen correction over all
  the pairs (default Holm's; the family is every pair, so an adjusted p-value here is larger
  than the same comparison's against-the-best one when there are more than two
  configurations). The randomization test flips the same signs for every pair, with the
  leaderboard's seed: a pair (best, b) gets exactly the unadjusted p-values of b's row of the
  leaderboard.
- :func:`head_to_head`: the per-query objective of the best and of the runner-up, and which of
  the two won each query.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..constraints import check_choice
from ..views import counted
from .progress import Reporter
from .settings import CORRECTIONS, TESTS, decision_column, p_value_columns
from .stats import corrected, paired_p_values, t_test_of_differences

#: The columns of :func:`head_to_head`.
HEAD_TO_HEAD_COLUMNS = ("query_id", "best", "runner_up", "difference", "outcome")
# The pairs' differences held at once (x 8 bytes: 128 MiB); more pairs are tested in chunks that
# each draw the same flips again.
_PAIR_CELLS = 16 * 2**20


def pair_columns(test: str = TESTS[0], correction: str = CORRECTIONS[0]) -> tuple[str, ...]:
    """The columns of :func:`all_pairs` with ``test`` and ``correction``: the p-values' as a leaderboard's."""
    return ("a", "b", "mean_a", "mean_b", "difference", *p_value_columns(test, correction), "significant")


#: The columns of :func:`all_pairs` with the default test and correction.
PAIR_COLUMNS = pair_columns()


def all_pairs(
    matrix: np.ndarray,
    names: Sequence[str],
    means: np.ndarray,
    *,
    alpha: float,
    rounds: int,
    seed: int,
    test: str = TESTS[0],
    correction: str = CORRECTIONS[0],
    report: Reporter | None = None,
) -> pd.DataFrame:
    """Every pair of the configurations ``names`` (rows of ``matrix``, configurations x queries, in rank order).

    One row per pair a < b in rank order (a the better ranked), pairs ordered by a then b:
    ``a``, ``b``, ``mean_a``, ``mean_b`` (from ``means``, the leaderboard's), ``difference`` (=
    mean_a - mean_b), the p-values (two-sided, paired over queries) of the t-test and of ``test``
    and their ``correction`` over all the pairs (:func:`pair_columns`; by default ``p_t``,
    ``p_t_holm``, ``p_randomization``, ``p_randomization_holm``), and ``significant``: the
    corrected p-value of ``test`` is at most ``alpha`` (the rule of ``tied_with_best``). With
    fewer than two queries no test is run: the p-values are NaN and no pair is significant.
    ``report`` hears the ``"pairs"`` phase (the randomization test's rounds).
    """
    test, correction = check_choice("test", test, TESTS), check_choice("correction", correction, CORRECTIONS)
    first, second = np.triu_indices(len(names), 1)
    pairs = len(first)
    raw = {name: np.full(pairs, np.nan) for name in dict.fromkeys(("t", test))}
    queries = matrix.shape[1]
    if pairs and queries >= 2:
        chunk = max(1, _PAIR_CELLS // queries)
        starts = range(0, pairs, chunk)
        label = f"all pairs: {counted(rounds, 'randomization round')} x {counted(pairs, 'pair')}"
        for number, start in enumerate(starts):
            rows = slice(start, start + chunk)
            # b - a, as the leaderboard takes each configuration minus the best: the same bits for those pairs.
            differences = matrix[second[rows]] - matrix[first[rows]]
            raw["t"][rows] = t_test_of_differences(differences)[1]
            if test == "t":
                continue
            drawn = test == "randomization" and report is not None
            progress = report.draws("pairs", label, offset=number * rounds, total=len(starts) * rounds) if drawn else None
            raw[test][rows] = paired_p_values(test, differences, rounds=rounds, seed=seed, progress=progress)
    columns: dict[str, object] = {
        "a": [names[i] for i in first],
        "b": [names[j] for j in second],
        "mean_a": means[first],
        "mean_b": means[second],
        "difference": means[first] - means[second],
    }
    for name, p in raw.items():
        columns[f"p_{name}"] = p
        columns[decision_column(name, correction)] = corrected(correction, p)  # the same column uncorrected
    columns["significant"] = columns[decision_column(test, correction)] <= alpha
    return pd.DataFrame(columns, columns=list(pair_columns(test, correction)))


def head_to_head(per_query: pd.DataFrame, *, higher_is_better: bool) -> pd.DataFrame | None:
    """The best configuration (first row of ``per_query``, configurations x queries in rank order) against the runner-up (second row).

    One row per query: ``query_id``, ``best`` and ``runner_up`` (their objective there),
    ``difference`` (= best - runner_up) and ``outcome`` for the best: ``"win"`` where it is better
    (higher, or lower for a metric where lower is better), ``"tie"`` where equal, ``"loss"``.
    Sorted by difference descending (equal differences in query order), so for a lower-is-better
    objective the losses come first. None with fewer than two configurations.
    """
    if per_query.shape[0] < 2:
        return None
    best, runner_up = per_query.iloc[0].to_numpy(np.float64), per_query.iloc[1].to_numpy(np.float64)
    difference = best - runner_up
    better = difference if higher_is_better else -difference
    outcome = np.where(better > 0, "win", np.where(better < 0, "loss", "tie"))
    order = np.argsort(-difference, kind="stable")
    frame = pd.DataFrame(
        {"query_id": per_query.columns.to_numpy(dtype=object), "best": best, "runner_up": runner_up,
         "difference": difference, "outcome": outcome}
    )  # fmt: skip
    return frame.iloc[order].reset_index(drop=True)
