"""Parameter sweeps: many runs of the same queries, compared with paired statistics.

Names are loaded on first use, so that the command line reads the settings' defaults
(:mod:`.settings`) without loading pandas or scipy.
"""

from .._lazy import lazy_attributes

_EXPORTS = {
    "anova_topic_set_size": ".power",
    "benjamini_hochberg": ".stats",
    "bonferroni": ".stats",
    "bootstrap_ci": ".stats",
    "chunks_to_documents": ".chunks",
    "compare_rankings": ".rank_correlation",
    "cutoff_curve": ".curves",
    "discriminative_power": ".discriminative",
    "fused_runs": ".fused",
    "FusedRuns": ".fused",
    "fusion_grid": ".grids",
    "fusion_sweep": ".fused",
    "FusionConfig": ".grids",
    "FusionGrid": ".grids",
    "holm": ".stats",
    "Leaderboard": ".ranking",
    "leaderboard": ".ranking",
    "marginal_effects": ".effects",
    "metric_correlation": ".rank_correlation",
    "metric_discrimination": ".discriminative",
    "pair_verdicts": ".rank_correlation",
    "paired_difference_intervals": ".intervals",
    "paired_effect_size": ".stats",
    "paired_t_test": ".stats",
    "pareto_front": ".effects",
    "parse_fusion_spec": ".fusion_spec",
    "QUERY_POLICIES": ".ranking",
    "randomised_tukey_hsd": ".tukey",
    "randomization_test": ".stats",
    "RankCorrelation": ".rank_correlation",
    "ranx_range": ".grids",
    "ranx_weight_grid": ".grids",
    "read_fusion_grid": ".grids",
    "runs_from_files": ".configurations",
    "runs_from_table": ".configurations",
    "sign_test_of_differences": ".stats",
    "Significance": ".significance",
    "significance": ".significance",
    "subset_correlation": ".rank_correlation",
    "swap_rates": ".discriminative",
    "sweep": ".analysis",
    "SweepResult": ".analysis",
    "t_test_topic_set_size": ".power",
    "topic_set_sizes": ".power",
    "two_way_anova": ".anova",
    "wilcoxon_test_of_differences": ".stats",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
