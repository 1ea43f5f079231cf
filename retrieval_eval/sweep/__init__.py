"""Parameter sweeps: many runs of the same queries, compared with paired statistics."""

from .leaderboard import QUERY_POLICIES, Leaderboard, leaderboard
from .stats import bootstrap_ci, holm, paired_effect_size, paired_t_test, randomization_test

__all__ = [
    "QUERY_POLICIES",
    "Leaderboard",
    "bootstrap_ci",
    "holm",
    "leaderboard",
    "paired_effect_size",
    "paired_t_test",
    "randomization_test",
]
