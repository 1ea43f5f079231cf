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

from ._config import jit, parallel_jit, prange, read_only
from .contains import CODE_POINTS, _code_point


@jit
def _code_point_before(data: np.ndarray, row_start: int, j: int) -> int:
    # The code point whose encoding ends at byte j - 1 (j > row_start): back over continuation bytes.
    k = j - 1
    while k > row_start and (data[k] & 0xC0) == 0x80:
        k -= 1
    if data[k] < 0x80:
        return np.int64(data[k])
    return _code_point(data, k)[0]


@jit
def _code_point_at(data: np.ndarray, j: int) -> int:
    if data[j] < 0x80:
        return np.int64(data[j])
    return _code_point(data, j)[0]


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
    """Needle ``n_row`` occurs in haystack ``h_row`` (with ``boundaries``: between non-word neighbours)."""
    n_start = n_offsets[n_row]
    length = n_offsets[n_row + 1] - n_start
    if length == 0:
        return False
    h_start, h_stop = h_offsets[h_row], h_offsets[h_row + 1]
    first = n_data[n_start]
    for i in range(h_start, h_stop - length + 1):
        if h_data[i] != first:
            continue
        j = 1
        while j < length and h_data[i + j] == n_data[n_start + j]:
            j += 1
        if j < length:
            continue
        if not boundaries:
            return True
        if i > h_start and word[_code_point_before(h_data, h_start, i)]:
            continue
        if i + length < h_stop and word[_code_point_at(h_data, i + length)]:
            continue
        return True
    return False


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
