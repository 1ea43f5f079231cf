"""Rank fusion: two or more runs combined into one, as ranx 0.3.21's ``fuse`` combines them.

:func:`fuse` does it in one call. A sweep reuses its steps: :func:`align` the runs once,
:func:`normalize` them once per normalization, then :func:`fused_scores` and :func:`fused_run`
for each method and parameters. Names are loaded on first use.

The fused run is ranx's: the same documents per query, the same scores (ranx's arithmetic, in
its order of operations) and the same order, ties included (numba's quicksort of ``-score``
over the documents in the order ranx inserts them). What differs, and why:

- Queries: ranx refuses runs whose query sets differ; here their union is fused, a run lacking
  a query adding nothing to it (what ranx gives when that run has the query with no documents).
  A query no run retrieves anything for is not in the fused run (ranx keeps it, empty), and the
  queries come in order of first appearance (ranx sorts them by id).
- ``borda`` normalization (and the voting methods that list candidates) iterate a Python
  ``set`` in ranx, whose order changes with ``PYTHONHASHSEED``: the candidates are here in the
  aligned order (run 0's documents in its order, then those only run 1 has, ...). Scores of
  score-based methods do not depend on it; the order of their ties does, and so do the scores
  of rank-based methods after ``borda`` (each run then lists every candidate in that order).
  Such a fused run does not claim ranx's order (``Run.in_ranx_order`` is False).
- Input that ranx takes silently or with an assertion is a one-line ConfigError or InputError
  naming it: fewer than two runs, an unknown method, normalization or parameter (with the
  closest names), a missing required parameter (``weights``, ``gamma``, as in ranx), weights
  not one finite number per run (ranx raises IndexError for too few and ignores extra ones),
  ``k < 0``, ``sigma`` outside [0, 1], and an infinite score where ranx's result is NaN.
- A document repeated within a query of one run keeps its first position and its last score by
  default, as ranx reads a run file (``duplicates=`` chooses ``first``, ``max`` or ``raise``).
- ``top_k_in`` and ``top_k_out`` (not in ranx) give what truncating ranx's inputs and its
  output would give.
- Without the JIT (``NUMBA_DISABLE_JIT=1``) ranx's code runs as Python: its ties follow numpy's
  argsort, as ours then do, and its ``zmuv`` sums with numpy's pairwise summation where ours
  keeps numba's order: the values agree to about 1e-15 relative, not always to the bit.
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
    "train": ".trained",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
