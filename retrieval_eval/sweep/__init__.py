"""Parameter sweeps: many runs of the same queries, compared with paired statistics."""

from .stats import bootstrap_ci, holm, paired_effect_size, paired_t_test, randomization_test

__all__ = ["bootstrap_ci", "holm", "paired_effect_size", "paired_t_test", "randomization_test"]
