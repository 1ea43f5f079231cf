"""Substring containment and code-point scans over Arrow-style UTF-8 string buffers.

A string column is ``offsets`` (int64, length n + 1) and ``data`` (uint8): the bytes of row
``i`` are ``data[offsets[i]:offsets[i + 1]]`` (see :mod:`.hashing`). Containment is tested on
bytes: for valid UTF-8 that is the same as containment of code-point sequences, because no
code point's encoding occurs inside another's (UTF-8 is self-synchronizing). Callers casefold
both sides first; the kernels know nothing about case.

An empty needle is never contained, as :func:`retrieval_eval.executions.matching.contains`
has it (upstream's containment helper treats an empty needle as "not contained").
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._config import jit, parallel_jit

#: One past the largest Unicode code point: the size of a per-code-point table.
CODE_POINTS = 0x110000


@jit
def contains_at(
    h_offsets: np.ndarray, h_data: np.ndarray, h_row: int, n_offsets: np.ndarray, n_data: np.ndarray, n_row: int
) -> bool:
    """Row ``n_row`` of the needles occurs in row ``h_row`` of the haystacks (False for an empty needle)."""
    n_start = n_offsets[n_row]
    length = n_offsets[n_row + 1] - n_start
    if length == 0:
        return False
    first = n_data[n_start]
    for i in range(h_offsets[h_row], h_offsets[h_row + 1] - length + 1):
        if h_data[i] != first:
            continue
        j = 1
        while j < length and h_data[i + j] == n_data[n_start + j]:
            j += 1
        if j == length:
            return True
    return False


@parallel_jit
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
def _shifts(n_offsets: np.ndarray, n_data: np.ndarray, n_row: int) -> np.ndarray:
    """Horspool's shift for each byte value: how far a window may move when it ends on that byte."""
    start = n_offsets[n_row]
    length = n_offsets[n_row + 1] - start
    shifts = np.full(256, length, dtype=np.int64)
    for k in range(length - 1):
        shifts[n_data[start + k]] = length - 1 - k
    return shifts


@jit
def _occurs(
    h_offsets: np.ndarray,
    h_data: np.ndarray,
    h_row: int,
    n_offsets: np.ndarray,
    n_data: np.ndarray,
    n_row: int,
    shifts: np.ndarray,
) -> bool:
    # Boyer-Moore-Horspool: compare the window from its start once its last byte matches.
    n_start = n_offsets[n_row]
    length = n_offsets[n_row + 1] - n_start
    if length == 0:
        return False
    last = n_data[n_start + length - 1]
    i = h_offsets[h_row]
    end = h_offsets[h_row + 1] - length
    while i <= end:
        byte = h_data[i + length - 1]
        if byte == last:
            j = 0
            while j < length - 1 and h_data[i + j] == n_data[n_start + j]:
                j += 1
            if j == length - 1:
                return True
        i += shifts[byte]
    return False


@parallel_jit
def best_hits(
    candidate_offsets: np.ndarray,
    candidate_hits: np.ndarray,
    hit_rank: np.ndarray,
    extract_offsets: np.ndarray,
    x_offsets: np.ndarray,
    x_data: np.ndarray,
    item_owner: np.ndarray,
    n_offsets: np.ndarray,
    n_data: np.ndarray,
) -> np.ndarray:
    """For each item ``i``, the best-ranked candidate hit with an extract containing needle ``i``, or -1.

    Item ``i`` belongs to check ``item_owner[i]``, whose candidates are
    ``candidate_hits[candidate_offsets[c]:candidate_offsets[c + 1]]`` (hit indices, in candidate
    order); hit ``h`` has rank ``hit_rank[h]`` (>= 1) and the extract texts
    ``extract_offsets[h]:extract_offsets[h + 1]`` of the ``x`` strings. The best-ranked hit is the
    one with the lowest rank, ties going to the earlier candidate.
    """
    n_items = item_owner.shape[0]
    out = np.full(n_items, -1, dtype=np.int64)
    for i in prange(n_items):
        owner = item_owner[i]
        shifts = _shifts(n_offsets, n_data, i)
        best = -1
        best_rank = 0
        for c in range(candidate_offsets[owner], candidate_offsets[owner + 1]):
            hit = candidate_hits[c]
            rank = hit_rank[hit]
            # A later candidate only wins with a strictly lower rank: skip its texts otherwise.
            if best >= 0 and rank >= best_rank:
                continue
            for x in range(extract_offsets[hit], extract_offsets[hit + 1]):
                if _occurs(x_offsets, x_data, x, n_offsets, n_data, i, shifts):
                    best = hit
                    best_rank = rank
                    break
            if best >= 0 and best_rank == 1:
                break  # ranks start at 1: nothing can beat it
        out[i] = best
    return out


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


@jit
def code_points_present(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """A table over code points (length :data:`CODE_POINTS`): True for the non-ASCII ones that occur in the rows."""
    present = np.zeros(CODE_POINTS, dtype=np.bool_)
    j = offsets[0]
    end = offsets[offsets.shape[0] - 1]
    while j < end:
        if data[j] < 0x80:
            j += 1
        else:
            point, width = _code_point(data, j)
            present[point] = True
            j += width
    return present


@jit
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


@jit
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
