"""Beyond the comparisons with the best: every pair of configurations, and the best against the runner-up query by query.

- :func:`all_pairs`: for each pair a < b (in rank order) the paired t-test and the randomization
  test of :mod:`.stats`, each with Holm's adjustment over all the pairs (the family is every
  pair, so an adjusted p-value here is larger than the same comparison's against-the-best one
  when there are more than two configurations). The randomization test flips the same signs for
  every pair, with the leaderboard's seed: a pair (best, b) gets exactly the unadjusted p-values
  of b's row of the leaderboard.
- :func:`head_to_head`: the per-query objective of the best and of the runner-up, and which of
  the two won each query.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..views import counted
from .progress import Reporter
from .stats import holm, randomization_test_of_differences, t_test_of_differences

#: The columns of :func:`all_pairs`.
PAIR_COLUMNS = ("a", "b", "mean_a", "mean_b", "difference", "p_t", "p_t_holm",
                "p_randomization", "p_randomization_holm", "significant")  # fmt: skip
#: The columns of :func:`head_to_head`.
HEAD_TO_HEAD_COLUMNS = ("query_id", "best", "runner_up", "difference", "outcome")
# The pairs' differences held at once (x 8 bytes: 128 MiB); more pairs are tested in chunks that
# each draw the same flips again.
_PAIR_CELLS = 16 * 2**20


def all_pairs(
    matrix: np.ndarray,
    names: Sequence[str],
    means: np.ndarray,
    *,
    alpha: float,
    rounds: int,
    seed: int,
    report: Reporter | None = None,
) -> pd.DataFrame:
    """Every pair of the configurations ``names`` (rows of ``matrix``, configurations x queries, in rank order).

    One row per pair a < b in rank order (a the better ranked), pairs ordered by a then b:
    ``a``, ``b``, ``mean_a``, ``mean_b`` (from ``means``, the leaderboard's), ``difference`` (=
    mean_a - mean_b), ``p_t`` and ``p_randomization`` (two-sided, paired over queries) and their
    Holm adjustments over all the pairs, and ``significant``: the Holm-adjusted randomization
    p-value is at most ``alpha`` (the rule of ``tied_with_best``). With fewer than two queries
    no test is run: the p-values are NaN and no pair is significant. ``report`` hears the
    ``"pairs"`` phase.
    """
    first, second = np.triu_indices(len(names), 1)
    pairs = len(first)
    p_t = np.full(pairs, np.nan)
    p_random = np.full(pairs, np.nan)
    queries = matrix.shape[1]
    if pairs and queries >= 2:
        chunk = max(1, _PAIR_CELLS // queries)
        starts = range(0, pairs, chunk)
        label = f"all pairs: {counted(rounds, 'randomization round')} x {counted(pairs, 'pair')}"
        for number, start in enumerate(starts):
            rows = slice(start, start + chunk)
            # b - a, as the leaderboard takes each configuration minus the best: the same bits for those pairs.
            differences = matrix[second[rows]] - matrix[first[rows]]
            p_t[rows] = t_test_of_differences(differences)[1]
            progress = None if report is None else report.draws("pairs", label, offset=number * rounds, total=len(starts) * rounds)
            p_random[rows] = randomization_test_of_differences(differences, rounds=rounds, seed=seed, progress=progress)
    random_holm = holm(p_random)
    return pd.DataFrame(
        {
            "a": [names[i] for i in first],
            "b": [names[j] for j in second],
            "mean_a": means[first],
            "mean_b": means[second],
            "difference": means[first] - means[second],
            "p_t": p_t,
            "p_t_holm": holm(p_t),
            "p_randomization": p_random,
            "p_randomization_holm": random_holm,
            "significant": random_holm <= alpha,
        },
        columns=list(PAIR_COLUMNS),
    )


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
