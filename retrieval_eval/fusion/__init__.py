"""Rank fusion: two or more runs combined into one, as ranx 0.3.21's ``fuse`` combines them.

:func:`fuse` does it in one call. A sweep reuses its steps: :func:`align` the runs once,
:func:`normalize` them once per normalization, then :func:`fused_scores` and :func:`fused_run`
for each method and parameters. Names are loaded on first use.
"""

from .._lazy import lazy_attributes

_EXPORTS = {
    "AlignedRuns": ".aligned",
    "Fused": ".fusing",
    "FusionMethod": ".method",
    "METHODS": ".methods",
    "METHODS_BY_NAME": ".methods",
    "NORMALIZATIONS": ".normalization",
    "Normalized": ".normalization",
    "Parameter": ".method",
    "align": ".aligned",
    "fuse": ".fusing",
    "fused_run": ".fusing",
    "fused_scores": ".fusing",
    "fusion_method": ".methods",
    "normalization_name": ".normalization",
    "normalize": ".normalization",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
