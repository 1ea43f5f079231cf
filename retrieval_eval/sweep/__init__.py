"""Parameter sweeps: many runs of the same queries, compared with paired statistics."""

from .analysis import SweepResult, sweep
from .chunks import chunks_to_documents
from .configurations import runs_from_files, runs_from_table
from .curves import cutoff_curve
from .effects import marginal_effects, pareto_front
from .leaderboard import QUERY_POLICIES, Leaderboard, leaderboard
from .stats import bootstrap_ci, holm, paired_effect_size, paired_t_test, randomization_test

__all__ = [
    "QUERY_POLICIES",
    "Leaderboard",
    "SweepResult",
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
    "runs_from_files",
    "runs_from_table",
    "sweep",
]
