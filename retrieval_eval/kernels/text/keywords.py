"""Keyword search over Arrow-style UTF-8 string buffers, with optional word boundaries.

Strings are ``offsets`` (int64, length n + 1) and ``data`` (uint8), as in :mod:`.contains`;
callers casefold both sides first when the search is case-insensitive. A keyword (needle) is
found in a text (haystack) when its bytes occur there; with word boundaries, only at an
occurrence whose neighbouring code points (the one just before it and the one just after it,
where they exist) are not word characters. ``word`` is a table over code points (length
:data:`~.contains.CODE_POINTS`, uint8 so that it does not count as rows): 1 for a word
character, 0 otherwise; the caller fills it (Python's ``\\w``) for the code points of the texts.

A match of valid UTF-8 bytes starts and ends on code point boundaries (a lead byte never
occurs inside another code point), so the neighbours are whole code points. An empty needle is
never found, as :func:`retrieval_eval.executions.matching.contains` has it.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from .contains import CODE_POINTS, first_occurrence


@jit
def found_at(
    h_offsets: np.ndarray,
    h_data: np.ndarray,
    h_row: int,
    n_offsets: np.ndarray,
    n_data: np.ndarray,
    n_row: int,
    word: np.ndarray,
    boundaries: bool,
) -> bool:
    """Needle ``n_row`` occurs in haystack ``h_row`` (with ``boundaries``: between non-word neighbours).

    Linear in the two lengths on any input (:func:`~.contains.first_occurrence`).
    """
    n_start = n_offsets[n_row]
    h_start, h_stop = h_offsets[h_row], h_offsets[h_row + 1]
    return first_occurrence(
        h_data, h_start, h_stop, h_start, n_data, n_start, n_offsets[n_row + 1] - n_start, word, boundaries
    ) >= 0


def _example() -> tuple:
    text = read_only([0, 2], np.int64), read_only(list(b"ab"), np.uint8)
    needle = read_only([0, 1], np.int64), read_only(list(b"b"), np.uint8)
    row, word = read_only([0], np.int64), read_only(np.zeros(CODE_POINTS), np.uint8)
    return (*text, row, *needle, row, word, read_only([True], np.bool_))


@parallel_jit(example=_example)
def keywords_found(
    h_offsets: np.ndarray,
    h_data: np.ndarray,
    h_rows: np.ndarray,
    n_offsets: np.ndarray,
    n_data: np.ndarray,
    n_rows: np.ndarray,
    word: np.ndarray,
    boundaries: np.ndarray,
) -> np.ndarray:
    """``out[k]``: needle ``n_rows[k]`` is found in haystack ``h_rows[k]``, with word boundaries if ``boundaries[k]``."""
    out = np.empty(h_rows.shape[0], dtype=np.bool_)
    for k in prange(h_rows.shape[0]):
        out[k] = found_at(h_offsets, h_data, h_rows[k], n_offsets, n_data, n_rows[k], word, boundaries[k])
    return out
