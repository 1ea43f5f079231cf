"""The fusion kernels' bundled arguments: named tuples of arrays (see :mod:`retrieval_eval.kernels.core.bundles`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class StackedRuns(NamedTuple):
    """Two or more runs' rows concatenated (run 0's rows, then run 1's, ...), sliced by query and run.

    ``starts[q, r]:stops[q, r]`` (int64[n_queries, n_runs]) is the slice of ``order`` (rows
    grouped by query, input order kept) holding run r's rows of query q, empty when run r lacks
    the query. Per row: ``keys`` (uint64 document id keys), ``offsets``/``data`` (the ids' bytes;
    unused for integer ids) and ``scores`` (float64). ``in_ranx_order`` (bool[n_runs]): run r's
    rows are in ranx's order already. ``capacity_offsets`` (int64[n_queries + 1]): query q's
    output slots start at ``capacity_offsets[q]``, with room for all its rows.
    """

    starts: np.ndarray
    stops: np.ndarray
    order: np.ndarray
    keys: np.ndarray
    offsets: np.ndarray
    data: np.ndarray
    scores: np.ndarray
    in_ranx_order: np.ndarray
    capacity_offsets: np.ndarray
