"""Parameter sweeps: many runs of the same queries, compared with paired statistics."""

from .chunks import chunks_to_documents
from .curves import cutoff_curve
from .effects import marginal_effects, pareto_front
from .leaderboard import QUERY_POLICIES, Leaderboard, leaderboard
from .stats import bootstrap_ci, holm, paired_effect_size, paired_t_test, randomization_test

__all__ = [
    "QUERY_POLICIES",
    "Leaderboard",
    "bootstrap_ci",
    "chunks_to_documents",
    "cutoff_curve",
    "holm",
    "leaderboard",
    "marginal_effects",
    "paired_effect_size",
    "paired_t_test",
    "pareto_front",
    "randomization_test",
]
