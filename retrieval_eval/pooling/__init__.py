"""Pooling (the unjudged documents in the top of several runs, to be judged) and merging new judgments.

Names are loaded on first use, so that the command line's ``--help`` loads neither pandas nor numba.
"""

from .._lazy import lazy_attributes

_EXPORTS = {
    "MergeConflicts": ".merge",
    "MERGE_POLICIES": ".merge",
    "merge_qrels": ".merge",
    "pool": ".pools",
    "pool_table": ".pools",
    "write_pool": ".files",
    "write_qrels": ".files",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
