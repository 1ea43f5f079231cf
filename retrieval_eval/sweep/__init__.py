"""Parameter sweeps: many runs of the same queries, compared with paired statistics.

Names are loaded on first use, so that the command line reads the settings' defaults
(:mod:`.settings`) without loading pandas or scipy.
"""

from .._lazy import lazy_attributes

_EXPORTS = {
    "FusedRuns": ".fused",
    "FusionConfig": ".grids",
    "FusionGrid": ".grids",
    "QUERY_POLICIES": ".ranking",
    "Leaderboard": ".ranking",
    "SweepResult": ".analysis",
    "bootstrap_ci": ".stats",
    "chunks_to_documents": ".chunks",
    "cutoff_curve": ".curves",
    "fused_runs": ".fused",
    "fusion_grid": ".grids",
    "fusion_sweep": ".fused",
    "holm": ".stats",
    "leaderboard": ".ranking",
    "marginal_effects": ".effects",
    "paired_effect_size": ".stats",
    "paired_t_test": ".stats",
    "pareto_front": ".effects",
    "parse_fusion_spec": ".fusion_spec",
    "randomization_test": ".stats",
    "read_fusion_grid": ".grids",
    "ranx_range": ".grids",
    "ranx_weight_grid": ".grids",
    "runs_from_files": ".configurations",
    "runs_from_table": ".configurations",
    "sweep": ".analysis",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
