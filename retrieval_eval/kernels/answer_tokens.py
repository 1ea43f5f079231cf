"""Shared answer tokens: the token counts of SQuAD-style answer F1, over Arrow-style UTF-8 string buffers.

A text is normalized as azure-ai-evaluation's F1 score does it (``retrieval_eval.azure.f1_score``
states the definition in Python): lower-cased (``str.lower``), its ASCII punctuation
(``string.punctuation``) deleted, every article deleted (a maximal run of word characters,
Python's Unicode ``\\w``, that is ``a``, ``an`` or ``the``: what ``re.sub(r"\\b(a|an|the)\\b", " ",
text)`` replaces by a space), and split on Unicode whitespace (``str.split``). For each row the
kernel counts the response's tokens, the ground truth's tokens, and the size of the multiset
intersection of the two.

``str.lower`` maps each code point on its own except capital sigma (U+03A3), whose lower case
depends on its neighbours (final sigma). The caller gives, for the non-ASCII code points of the
data, their lower case and the class of each lowered code point; ASCII is handled inline. A row
holding a capital sigma, or two distinct tokens with one 64-bit hash, is flagged instead of
counted, for the caller to count it with the definition (both are rare, and so are left to
Python rather than made exact here).

Code-point classes: :data:`OTHER` (kept, not a word character), :data:`WORD` (``\\w``: ``str.isalnum``
or ``_``), :data:`SPACE` (``str.isspace``), :data:`DROPPED` (ASCII punctuation).
"""

from __future__ import annotations

import string

import numpy as np

from ._config import jit, parallel_jit, prange, read_only
from .contains import _code_point

OTHER, WORD, SPACE, DROPPED = 0, 1, 2, 3
CAPITAL_SIGMA = 0x3A3


def _ascii_classes() -> np.ndarray:
    classes = np.full(128, OTHER, dtype=np.uint8)
    for point in range(128):
        char = chr(point)
        if char in string.punctuation:
            classes[point] = DROPPED
        elif char.isspace():
            classes[point] = SPACE
        elif char.isalnum() or char == "_":
            classes[point] = WORD
    return read_only(classes, np.uint8)


#: The class of each ASCII code point (after lower-casing, which keeps classes).
ASCII_CLASSES = _ascii_classes()
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


def _example() -> tuple:
    data = read_only(list(b"The cat"), np.uint8)
    offsets = read_only([0, len(data)], np.int64)
    points = read_only(np.empty(0, dtype=np.int64), np.int64)
    return offsets, data, offsets, data, points, points, points, points, read_only([], np.uint8), ASCII_CLASSES


@parallel_jit(example=_example)
def answer_token_counts(
    r_offsets: np.ndarray,
    r_data: np.ndarray,
    t_offsets: np.ndarray,
    t_data: np.ndarray,
    points: np.ndarray,
    lower_start: np.ndarray,
    lower_count: np.ndarray,
    lower_points: np.ndarray,
    lower_classes: np.ndarray,
    ascii_classes: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row: (response tokens, ground-truth tokens, shared tokens, flagged), int64 x 3 and bool.

    Row ``i`` of the responses is ``r_data[r_offsets[i]:r_offsets[i + 1]]`` (valid UTF-8), and
    the same for the ground truths. ``points`` are the sorted non-ASCII code points that occur;
    the lower case of ``points[j]`` is ``lower_points[lower_start[j]:][:lower_count[j]]``, whose
    classes are the same slice of ``lower_classes``. A flagged row's counts are 0.
    """
    rows = r_offsets.shape[0] - 1
    predicted = np.zeros(rows, dtype=np.int64)
    reference = np.zeros(rows, dtype=np.int64)
    shared = np.zeros(rows, dtype=np.int64)
    flagged = np.zeros(rows, dtype=np.bool_)
    for row in prange(rows):
        r_points, r_starts, r_lengths, r_hashes, r_ok = _tokens(
            r_data, r_offsets[row], r_offsets[row + 1], points, lower_start, lower_count, lower_points,
            lower_classes, ascii_classes,
        )
        t_points, t_starts, t_lengths, t_hashes, t_ok = _tokens(
            t_data, t_offsets[row], t_offsets[row + 1], points, lower_start, lower_count, lower_points,
            lower_classes, ascii_classes,
        )
        if not (r_ok and t_ok):
            flagged[row] = True
            continue
        common, exact = _shared(r_points, r_starts, r_lengths, r_hashes, t_points, t_starts, t_lengths, t_hashes)
        if not exact:
            flagged[row] = True
            continue
        predicted[row], reference[row], shared[row] = r_hashes.shape[0], t_hashes.shape[0], common
    return predicted, reference, shared, flagged


@jit
def _tokens(
    data: np.ndarray,
    first: int,
    last: int,
    points: np.ndarray,
    lower_start: np.ndarray,
    lower_count: np.ndarray,
    lower_points: np.ndarray,
    lower_classes: np.ndarray,
    ascii_classes: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]:
    """The normalized code points of one text, its tokens (start, length, FNV-1a hash) and whether it could be read.

    False (and empty tokens) when the text holds a capital sigma.
    """
    # A code point takes at least one byte and lower-cases to at most two.
    normalized = np.empty(2 * (last - first), dtype=np.int64)
    classes = np.empty(2 * (last - first), dtype=np.uint8)
    size = 0
    j = first
    while j < last:
        lead = np.int64(data[j])
        if lead < 0x80:
            j += 1
            kind = ascii_classes[lead]
            if kind != DROPPED:
                normalized[size] = lead + 32 if 0x41 <= lead <= 0x5A else lead
                classes[size] = kind
                size += 1
            continue
        point, width = _code_point(data, j)
        j += width
        if point == CAPITAL_SIGMA:
            empty = np.empty(0, dtype=np.int64)
            return normalized[:0], empty, empty, np.empty(0, dtype=np.uint64), False
        at = np.searchsorted(points, point)
        for k in range(lower_start[at], lower_start[at] + lower_count[at]):
            if lower_classes[k] != DROPPED:
                normalized[size] = lower_points[k]
                classes[size] = lower_classes[k]
                size += 1
    _blank_articles(normalized, classes, size)
    starts = np.empty(size, dtype=np.int64)
    lengths = np.empty(size, dtype=np.int64)
    hashes = np.empty(size, dtype=np.uint64)
    count = 0
    i = 0
    while i < size:
        if classes[i] == SPACE:
            i += 1
            continue
        start = i
        value = _FNV_OFFSET
        while i < size and classes[i] != SPACE:
            value = (value ^ np.uint64(normalized[i])) * _FNV_PRIME
            i += 1
        starts[count], lengths[count], hashes[count] = start, i - start, value
        count += 1
    return normalized, starts[:count], lengths[:count], hashes[:count], True


@jit
def _blank_articles(normalized: np.ndarray, classes: np.ndarray, size: int) -> None:
    """Turn every maximal word run that is ``a``, ``an`` or ``the`` into spaces, in place."""
    i = 0
    while i < size:
        if classes[i] != WORD:
            i += 1
            continue
        start = i
        while i < size and classes[i] == WORD:
            i += 1
        length = i - start
        first = normalized[start]
        article = (
            (length == 1 and first == 0x61)
            or (length == 2 and first == 0x61 and normalized[start + 1] == 0x6E)
            or (length == 3 and first == 0x74 and normalized[start + 1] == 0x68 and normalized[start + 2] == 0x65)
        )
        if article:
            classes[start:i] = SPACE


@jit
def _shared(
    r_points: np.ndarray,
    r_starts: np.ndarray,
    r_lengths: np.ndarray,
    r_hashes: np.ndarray,
    t_points: np.ndarray,
    t_starts: np.ndarray,
    t_lengths: np.ndarray,
    t_hashes: np.ndarray,
) -> tuple[int, bool]:
    """The size of the multiset intersection of two token lists, and False if a hash was shared by distinct tokens.

    Tokens are grouped by hash (sorted), and every token of a group is compared, code point by
    code point, with the group's first response token.
    """
    r_order = np.argsort(r_hashes)
    t_order = np.argsort(t_hashes)
    common = 0
    i = j = 0
    while i < r_order.shape[0] and j < t_order.shape[0]:
        r_hash, t_hash = r_hashes[r_order[i]], t_hashes[t_order[j]]
        if r_hash < t_hash:
            i += 1
        elif t_hash < r_hash:
            j += 1
        else:
            anchor = r_order[i]
            r_end = i
            while r_end < r_order.shape[0] and r_hashes[r_order[r_end]] == r_hash:
                if not _same(r_points, r_starts[anchor], r_lengths[anchor], r_points, r_starts[r_order[r_end]], r_lengths[r_order[r_end]]):
                    return 0, False
                r_end += 1
            t_end = j
            while t_end < t_order.shape[0] and t_hashes[t_order[t_end]] == t_hash:
                if not _same(r_points, r_starts[anchor], r_lengths[anchor], t_points, t_starts[t_order[t_end]], t_lengths[t_order[t_end]]):
                    return 0, False
                t_end += 1
            common += min(r_end - i, t_end - j)
            i, j = r_end, t_end
    return common, True


@jit
def _same(a: np.ndarray, a_start: int, a_length: int, b: np.ndarray, b_start: int, b_length: int) -> bool:
    if a_length != b_length:
        return False
    for k in range(a_length):
        if a[a_start + k] != b[b_start + k]:
            return False
    return True
