"""Substring containment and code-point scans over Arrow-style UTF-8 string buffers.

A string column is ``offsets`` (int64, length n + 1) and ``data`` (uint8): the bytes of row
``i`` are ``data[offsets[i]:offsets[i + 1]]`` (see :mod:`.hashing`). Containment is tested on
bytes: for valid UTF-8 that is the same as containment of code-point sequences, because no
code point's encoding occurs inside another's (UTF-8 is self-synchronizing). Callers casefold
both sides first, with one exception: :func:`best_hits_in` lower-cases ASCII letters while it
searches, so that the texts whose casefold is just that (the ASCII ones) are never copied.

An empty needle is never contained, as :func:`retrieval_eval.executions.matching.contains`
has it (upstream's containment helper treats an empty needle as "not contained").
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from .bundles import BestHits, HitCandidates, Needles, TextBuffer

#: One past the largest Unicode code point: the size of a per-code-point table.
CODE_POINTS = 0x110000
# The word table of a search without word boundaries (never read).
_NO_WORDS = read_only([0], np.uint8)
# Each byte lower-cased if it is an ASCII capital letter: a table read is cheaper than a branch.
_LOWER = np.arange(256, dtype=np.uint8)
_LOWER[0x41:0x5B] += 32
# Each byte as it is.
_SAME = np.arange(256, dtype=np.uint8)


def _text(text: str) -> tuple[np.ndarray, np.ndarray]:
    """One row holding ``text``, as the read-only offsets and bytes of an Arrow buffer (for examples)."""
    data = text.encode()
    return read_only([0, len(data)], np.int64), read_only(list(data), np.uint8)


def _rows() -> np.ndarray:
    return read_only([0], np.int64)


@jit
def contains_at(
    h_offsets: np.ndarray, h_data: np.ndarray, h_row: int, n_offsets: np.ndarray, n_data: np.ndarray, n_row: int
) -> bool:
    """Row ``n_row`` of the needles occurs in row ``h_row`` of the haystacks (False for an empty needle)."""
    n_start = n_offsets[n_row]
    return first_occurrence(
        h_data, h_offsets[h_row], h_offsets[h_row + 1], h_offsets[h_row], n_data, n_start, n_offsets[n_row + 1] - n_start,
        _NO_WORDS, False,
    ) >= 0


@jit
def first_occurrence(
    h_data: np.ndarray,
    begin: int,
    stop: int,
    row_start: int,
    n_data: np.ndarray,
    n_start: int,
    length: int,
    word: np.ndarray,
    boundaries: bool,
) -> int:
    """The first byte at or after ``begin`` where the needle's ``length`` bytes occur before ``stop``; -1 if none.

    With ``boundaries``, only an occurrence whose neighbouring code points (the one just before,
    not before ``row_start``, and the one just after, before ``stop``) are not word characters
    (``word``: a table over code points, 1 for a word character). An empty needle is never found.

    The search compares bytes from each position where the needle's first byte occurs: fast on
    text, but up to ``length`` comparisons a position on a needle that overlaps itself ("aaaa" in
    a run of "a"). Past a budget of a few comparisons per byte, it goes on with Knuth-Morris-Pratt,
    which reads each byte once: linear in ``stop - begin + length`` on any input.
    """
    if length == 0:
        return -1
    first = n_data[n_start]
    budget = 4 * (stop - begin + length) + 64
    work = 0
    for i in range(begin, stop - length + 1):
        if h_data[i] != first:
            continue
        j = 1
        while j < length and h_data[i + j] == n_data[n_start + j]:
            j += 1
        work += j
        if j == length and (not boundaries or _between_non_words(h_data, i, i + length, row_start, stop, word)):
            return i
        if work > budget:
            return _first_occurrence_kmp(h_data, i + 1, stop, row_start, n_data, n_start, length, word, boundaries, _SAME)
    return -1


@jit
def _first_occurrence_kmp(
    h_data: np.ndarray,
    begin: int,
    stop: int,
    row_start: int,
    n_data: np.ndarray,
    n_start: int,
    length: int,
    word: np.ndarray,
    boundaries: bool,
    byte_map: np.ndarray,
) -> int:
    """:func:`first_occurrence` by Knuth-Morris-Pratt: each byte of the haystack read once, as ``byte_map`` maps it.

    ``byte_map`` is :data:`_SAME`, or :data:`_LOWER` to search a text with its ASCII letters lower-cased.
    """
    failure = np.zeros(length, dtype=np.int64)  # failure[q]: the longest border of the needle's first q + 1 bytes
    k = 0
    for q in range(1, length):
        while k > 0 and n_data[n_start + q] != n_data[n_start + k]:
            k = failure[k - 1]
        if n_data[n_start + q] == n_data[n_start + k]:
            k += 1
        failure[q] = k
    k = 0
    for i in range(begin, stop):
        byte = byte_map[h_data[i]]
        while k > 0 and byte != n_data[n_start + k]:
            k = failure[k - 1]
        if byte == n_data[n_start + k]:
            k += 1
        if k == length:
            start = i + 1 - length
            if not boundaries or _between_non_words(h_data, start, i + 1, row_start, stop, word):
                return start
            k = failure[k - 1]
    return -1


@jit
def _between_non_words(data: np.ndarray, start: int, end: int, row_start: int, stop: int, word: np.ndarray) -> bool:
    """The code points just before ``start`` (from ``row_start``) and at ``end`` (before ``stop``) are not word characters."""
    if start > row_start:
        k = start - 1
        while k > row_start and (data[k] & 0xC0) == 0x80:  # back to the start of the code point
            k -= 1
        if word[np.int64(data[k]) if data[k] < 0x80 else _code_point(data, k)[0]]:
            return False
    if end < stop and word[np.int64(data[end]) if data[end] < 0x80 else _code_point(data, end)[0]]:
        return False
    return True


@parallel_jit(example=lambda: (*_text("ab"), _rows(), *_text("b"), _rows()))
def contains_pairs(
    h_offsets: np.ndarray,
    h_data: np.ndarray,
    h_rows: np.ndarray,
    n_offsets: np.ndarray,
    n_data: np.ndarray,
    n_rows: np.ndarray,
) -> np.ndarray:
    """``out[k]``: needle ``n_rows[k]`` occurs in haystack ``h_rows[k]``."""
    out = np.empty(h_rows.shape[0], dtype=np.bool_)
    for k in prange(h_rows.shape[0]):
        out[k] = contains_at(h_offsets, h_data, h_rows[k], n_offsets, n_data, n_rows[k])
    return out


@jit
def _fill_shifts(shifts: np.ndarray, n_offsets: np.ndarray, n_data: np.ndarray, n_row: int) -> None:
    """Horspool's shift for each byte value: how far a window may move when it ends on that byte."""
    start = n_offsets[n_row]
    length = n_offsets[n_row + 1] - start
    shifts[:] = length
    for k in range(length - 1):
        shifts[n_data[start + k]] = length - 1 - k


@jit
def _occurs_lowered(
    data: np.ndarray, start: int, stop: int, n_offsets: np.ndarray, n_data: np.ndarray, n_row: int, shifts: np.ndarray
) -> bool:
    # Boyer-Moore-Horspool on data[start:stop] with its ASCII letters lower-cased on the fly (the
    # needle is casefolded, so it holds no upper-case ASCII): compare the window once its last byte matches.
    n_start = n_offsets[n_row]
    length = n_offsets[n_row + 1] - n_start
    if length == 0:
        return False
    last = n_data[n_start + length - 1]
    i = start
    end = stop - length
    # Past a few comparisons per byte (a needle that overlaps itself), Knuth-Morris-Pratt: linear.
    budget = 4 * (stop - start + length) + 64
    work = 0
    while i <= end:
        byte = _LOWER[data[i + length - 1]]
        if byte == last:
            j = 0
            while j < length - 1 and _LOWER[data[i + j]] == n_data[n_start + j]:
                j += 1
            if j == length - 1:
                return True
            work += j + 1
            if work > budget:
                return _first_occurrence_kmp(data, i + 1, stop, start, n_data, n_start, length, _NO_WORDS, False, _LOWER) >= 0
        i += shifts[byte]
    return False


def _best_hits_example() -> tuple:
    """One check whose one candidate, hit 0 (rank 1), has one extract, "ab", searched for the needle "b"."""
    two = read_only([0, 1], np.int64)
    return (
        HitCandidates(two, _rows(), read_only([1], np.int64), two),
        TextBuffer(0, 1, _rows(), *_text("ab")),
        Needles(two, *_text("b")),
        BestHits(np.full(1, -1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.full(1, -1, dtype=np.int64)),
    )


@parallel_jit(example=_best_hits_example)
def best_hits_in(candidates: HitCandidates, haystack: TextBuffer, needles: Needles, best_hits: BestHits) -> None:
    """Improve each needle's best-ranked supporting hit with the extract rows of one text buffer (``haystack``).

    Check ``c`` has the candidate hits ``candidates`` gives and the needles ``needles`` gives
    (:mod:`retrieval_eval.kernels.text.bundles`). An extract row is read with its ASCII letters
    lower-cased (:func:`_occurs_lowered`).

    Needle ``i``'s best so far is candidate ``best_hits.candidate[i]`` (hit ``best_hits.hit[i]``,
    rank ``best_hits.rank[i]``; -1, 0, -1 when none): a supporting candidate replaces it when its
    rank is lower, or equal and it comes earlier. That order does not depend on the order in which
    the buffers are searched, so a column's chunks can be searched one after the other.
    """
    candidate_offsets, candidate_hits, hit_rank, extract_offsets = candidates
    row_first, row_last, local_row, x_offsets, x_data = haystack
    item_offsets, n_offsets, n_data = needles
    best, best_rank, best_candidate = best_hits
    for c in prange(item_offsets.shape[0] - 1):
        first, last = item_offsets[c], item_offsets[c + 1]
        k_first, k_last = candidate_offsets[c], candidate_offsets[c + 1]
        if first == last or k_first == k_last:
            continue
        # Candidates come in hit order, and extract rows in hit order: skip checks outside the range.
        if extract_offsets[candidate_hits[k_first]] >= row_last:
            continue
        if extract_offsets[candidate_hits[k_last - 1] + 1] <= row_first:
            continue
        shifts = np.empty((last - first, 256), dtype=np.int64)
        for i in range(first, last):
            _fill_shifts(shifts[i - first], n_offsets, n_data, i)
        for k in range(k_first, k_last):
            hit = candidate_hits[k]
            rank = hit_rank[hit]
            for x in range(max(extract_offsets[hit], row_first), min(extract_offsets[hit + 1], row_last)):
                local = local_row[x - row_first]
                if local < 0:
                    continue
                for i in range(first, last):
                    if best[i] >= 0 and (rank > best_rank[i] or (rank == best_rank[i] and k >= best_candidate[i])):
                        continue
                    start, stop = x_offsets[local], x_offsets[local + 1]
                    if _occurs_lowered(x_data, start, stop, n_offsets, n_data, i, shifts[i - first]):
                        best[i], best_rank[i], best_candidate[i] = hit, rank, k


@jit
def _code_point(data: np.ndarray, j: int) -> tuple[int, int]:
    # The code point whose encoding starts at byte j (valid UTF-8, not ASCII) and its length.
    lead = np.int64(data[j])
    if lead < 0xE0:
        return ((lead & 0x1F) << 6) | (np.int64(data[j + 1]) & 0x3F), 2
    if lead < 0xF0:
        return ((lead & 0x0F) << 12) | ((np.int64(data[j + 1]) & 0x3F) << 6) | (np.int64(data[j + 2]) & 0x3F), 3
    return (
        ((lead & 0x07) << 18)
        | ((np.int64(data[j + 1]) & 0x3F) << 12)
        | ((np.int64(data[j + 2]) & 0x3F) << 6)
        | (np.int64(data[j + 3]) & 0x3F)
    ), 4


@jit(example=lambda: (*_text("é"), np.zeros(1, dtype=np.int64)))
def code_points_in_rows(offsets: np.ndarray, data: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A table over code points (length :data:`CODE_POINTS`): True for the non-ASCII ones in the rows ``rows``."""
    present = np.zeros(CODE_POINTS, dtype=np.bool_)
    for row in rows:
        j = offsets[row]
        while j < offsets[row + 1]:
            if data[j] < 0x80:
                j += 1
            else:
                point, width = _code_point(data, j)
                present[point] = True
                j += width
    return present


@jit(example=lambda: (*_text("ab"), np.zeros(1, dtype=np.int64), read_only([False], np.bool_)))
def rows_with_any(offsets: np.ndarray, data: np.ndarray, rows: np.ndarray, marked: np.ndarray) -> np.ndarray:
    """For each of the rows ``rows``: does it hold a non-ASCII code point ``c`` with ``marked[c]``?"""
    out = np.zeros(rows.shape[0], dtype=np.bool_)
    for k in range(rows.shape[0]):
        j = offsets[rows[k]]
        while j < offsets[rows[k] + 1]:
            if data[j] < 0x80:
                j += 1
                continue
            point, width = _code_point(data, j)
            if marked[point]:
                out[k] = True
                break
            j += width
    return out


@jit(example=lambda: (*_text("ab"), read_only([1], np.uint8)))
def folded_offsets(offsets: np.ndarray, data: np.ndarray, fold_length: np.ndarray) -> np.ndarray:
    """The offsets (from 0) of the rows once each non-ASCII code point ``c`` becomes ``fold_length[c]`` bytes."""
    n = offsets.shape[0] - 1
    out = np.empty(n + 1, dtype=np.int64)
    out[0] = 0
    total = 0
    for i in range(n):
        j = offsets[i]
        while j < offsets[i + 1]:
            if data[j] < 0x80:
                total += 1
                j += 1
            else:
                point, width = _code_point(data, j)
                total += np.int64(fold_length[point])
                j += width
        out[i + 1] = total
    return out


@jit(
    example=lambda: (*_text("AB"), read_only([0], np.int64), read_only([1], np.uint8), read_only([97], np.uint8),
                     np.zeros(2, dtype=np.uint8), 0)
)
def fold_into(
    offsets: np.ndarray,
    data: np.ndarray,
    fold_start: np.ndarray,
    fold_length: np.ndarray,
    fold_data: np.ndarray,
    out: np.ndarray,
    at: int,
) -> None:
    """Write the rows' bytes to ``out[at:]``: ASCII lower-cased, each other code point ``c`` replaced.

    Its replacement is ``fold_data[fold_start[c]:fold_start[c] + fold_length[c]]``.
    """
    k = at
    j = offsets[0]
    end = offsets[offsets.shape[0] - 1]
    while j < end:
        byte = data[j]
        if byte < 0x80:
            out[k] = byte + 32 if 0x41 <= byte <= 0x5A else byte
            k += 1
            j += 1
        else:
            point, width = _code_point(data, j)
            start = fold_start[point]
            length = np.int64(fold_length[point])
            for b in range(length):
                out[k + b] = fold_data[start + b]
            k += length
            j += width
