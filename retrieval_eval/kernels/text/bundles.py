"""The text kernels' bundled arguments: named tuples of arrays (see :mod:`retrieval_eval.kernels.core.bundles`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class HitCandidates(NamedTuple):
    """Each check's candidate hits and each hit's rank and extracts.

    Check c's candidates are ``hits[offsets[c] : offsets[c + 1]]`` (hit indices, in candidate
    order); hit h has rank ``rank[h]`` (>= 1) and the extract rows
    ``extract_offsets[h] : extract_offsets[h + 1]``.
    """

    offsets: np.ndarray
    hits: np.ndarray
    rank: np.ndarray
    extract_offsets: np.ndarray


class TextBuffer(NamedTuple):
    """The extract rows ``row_first : row_last`` of one text buffer: row x is row ``local_row[x - row_first]``
    of ``offsets``/``data`` (-1: not in this buffer)."""

    row_first: int
    row_last: int
    local_row: np.ndarray
    offsets: np.ndarray
    data: np.ndarray


class Needles(NamedTuple):
    """Each check's needles: rows ``item_offsets[c] : item_offsets[c + 1]`` of ``offsets``/``data`` (casefolded)."""

    item_offsets: np.ndarray
    offsets: np.ndarray
    data: np.ndarray


class BestHits(NamedTuple):
    """Each needle's best supporting hit so far (updated in place): ``hit``, its ``rank`` and its ``candidate``
    (-1, 0, -1 when none)."""

    hit: np.ndarray
    rank: np.ndarray
    candidate: np.ndarray
