"""Shared answer tokens: the token counts of SQuAD-style answer F1, over Arrow-style UTF-8 string buffers.

A text is normalized as azure-ai-evaluation's F1 score does it (``retrieval_eval.azure.f1_score``
states the definition in Python): lower-cased (``str.lower``), its ASCII punctuation
(``string.punctuation``) deleted, every article deleted (a maximal run of word characters,
Python's Unicode ``\\w``, that is ``a``, ``an`` or ``the``: what ``re.sub(r"\\b(a|an|the)\\b", " ",
text)`` replaces by a space), and split on Unicode whitespace (``str.split``). For each row the
kernel counts the response's tokens, the ground truth's tokens, and the size of the multiset
intersection of the two.

The text is read once, code point by code point, without writing the normalized text: a token
is hashed (FNV-1a over its lower-cased code points) as it is read, and remembered by its byte
span; a word run that turns out to be an article gives back the token as it was before the
run. The ground truth's tokens go into a small open-addressing table (hash -> first token, its
count); each response token takes one from its entry. Two tokens are equal only if their spans
read the same, code point by code point: hashes only find candidates.

The caller gives, for the non-ASCII code points of the data (sorted), the code point of their
lower case and its class; ASCII is handled inline. ``str.lower`` maps a code point to exactly one
code point, on its own, except for two: capital sigma (U+03A3, whose lower case depends on its
neighbours) and capital I with dot (U+0130, two code points). The caller marks them
:data:`UNREAD`; a row holding one, or two distinct tokens with one 64-bit hash, is flagged
instead of counted, for the caller to count with the definition.

Classes: :data:`OTHER` (kept, not a word character), :data:`WORD` (``\\w``: ``str.isalnum`` or
``_``), :data:`SPACE` (``str.isspace``), :data:`DROPPED` (ASCII punctuation), :data:`UNREAD`.
"""

from __future__ import annotations

import string

import numpy as np

from ._config import jit, parallel_jit, prange, read_only
from .contains import _code_point

OTHER, WORD, SPACE, DROPPED, UNREAD = 0, 1, 2, 3, 4
#: The code points whose lower case the kernel does not compute (see the module docstring).
UNREAD_POINTS = (0x130, 0x3A3)
# Rows per unit of parallel work: scratch arrays are allocated once per chunk, not per row.
_CHUNK = 1024
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


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


#: The class of each ASCII code point (lower-casing keeps it).
ASCII_CLASSES = _ascii_classes()


def _example() -> tuple:
    data = read_only(list("The café".encode()), np.uint8)
    offsets = read_only([0, len(data)], np.int64)
    points = read_only([0xE9], np.int64)
    return offsets, data, offsets, data, points, points, read_only([WORD], np.uint8), ASCII_CLASSES


def _work(r_offsets: np.ndarray, r_data: np.ndarray, t_offsets: np.ndarray, t_data: np.ndarray, *_: np.ndarray) -> int:
    # The kernel's time goes with the bytes it reads, not with its rows.
    return r_data.shape[0] + t_data.shape[0]


@parallel_jit(example=_example, work=_work)
def answer_token_counts(
    r_offsets: np.ndarray,
    r_data: np.ndarray,
    t_offsets: np.ndarray,
    t_data: np.ndarray,
    points: np.ndarray,
    lowered: np.ndarray,
    classes: np.ndarray,
    ascii_classes: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row: (response tokens, ground-truth tokens, shared tokens, flagged), int64 x 3 and bool.

    Row ``i`` of the responses is ``r_data[r_offsets[i]:r_offsets[i + 1]]`` (valid UTF-8), and
    the same for the ground truths. ``points`` are the sorted non-ASCII code points that occur,
    ``lowered[j]`` the lower case of ``points[j]`` and ``classes[j]`` its class. A flagged row's
    counts are 0.
    """
    rows = r_offsets.shape[0] - 1
    predicted = np.zeros(rows, dtype=np.int64)
    reference = np.zeros(rows, dtype=np.int64)
    shared = np.zeros(rows, dtype=np.int64)
    flagged = np.zeros(rows, dtype=np.bool_)
    for chunk in prange((rows + _CHUNK - 1) // _CHUNK):
        first, last = chunk * _CHUNK, min(rows, (chunk + 1) * _CHUNK)
        # k tokens take at least 2k - 1 bytes (a separator between each two).
        r_cap = np.max(r_offsets[first + 1 : last + 1] - r_offsets[first:last]) // 2 + 1
        t_cap = np.max(t_offsets[first + 1 : last + 1] - t_offsets[first:last]) // 2 + 1
        r_hashes, r_spans = np.empty(r_cap, dtype=np.uint64), np.empty((2, r_cap), dtype=np.int64)
        t_hashes, t_spans = np.empty(t_cap, dtype=np.uint64), np.empty((2, t_cap), dtype=np.int64)
        slots = np.empty(_table_size(t_cap), dtype=np.int64)
        counts = np.empty(t_cap, dtype=np.int64)
        for row in range(first, last):
            n_r = _tokens(r_data, r_offsets[row], r_offsets[row + 1], points, lowered, classes, ascii_classes, r_hashes, r_spans)
            n_t = _tokens(t_data, t_offsets[row], t_offsets[row + 1], points, lowered, classes, ascii_classes, t_hashes, t_spans)
            common = -1
            if n_r >= 0 and n_t >= 0:
                common = _shared(
                    r_data, r_hashes, r_spans, n_r, t_data, t_hashes, t_spans, n_t, slots, counts,
                    points, lowered, classes, ascii_classes,
                )
            if common < 0:
                flagged[row] = True
            else:
                predicted[row], reference[row], shared[row] = n_r, n_t, common
    return predicted, reference, shared, flagged


@jit
def _table_size(tokens: int) -> int:
    """The smallest power of two at least twice ``tokens`` (and at least 1): a table never full."""
    size = 1
    while size < 2 * tokens:
        size *= 2
    return size


@jit
def _read_wide(
    data: np.ndarray, j: int, points: np.ndarray, lowered: np.ndarray, classes: np.ndarray
) -> tuple[int, int, int]:
    """(lower-cased code point, its class, next byte) for the non-ASCII code point at byte ``j``.

    Callers read ASCII themselves: a call per byte costs ten times the reading.
    """
    point, width = _code_point(data, j)
    at = np.searchsorted(points, point)
    return lowered[at], classes[at], j + width


@jit
def _next_kept(
    data: np.ndarray, j: int, end: int, points: np.ndarray, lowered: np.ndarray, classes: np.ndarray,
    ascii_classes: np.ndarray,
) -> tuple[int, int]:
    """(the next lower-cased code point at or after byte ``j`` that is not dropped, the byte after it); -1 at ``end``."""
    while j < end:
        lead = np.int64(data[j])
        if lead < 0x80:
            j += 1
            if ascii_classes[lead] != DROPPED:
                return (lead + 32 if 0x41 <= lead <= 0x5A else lead), j
        else:
            point, kind, j = _read_wide(data, j, points, lowered, classes)
            if kind != DROPPED:
                return point, j
    return -1, j


@jit
def _is_article(length: int, c0: int, c1: int, c2: int) -> bool:
    return (
        (length == 1 and c0 == 0x61)
        or (length == 2 and c0 == 0x61 and c1 == 0x6E)
        or (length == 3 and c0 == 0x74 and c1 == 0x68 and c2 == 0x65)
    )


@jit
def _tokens(
    data: np.ndarray,
    first: int,
    last: int,
    points: np.ndarray,
    lowered: np.ndarray,
    classes: np.ndarray,
    ascii_classes: np.ndarray,
    hashes: np.ndarray,
    spans: np.ndarray,
) -> int:
    """Write the tokens of ``data[first:last]`` into ``hashes`` and ``spans`` (start, end bytes); their count.

    -1 when the text holds an :data:`UNREAD` code point.
    """
    count = 0
    is_open = False  # a token is being read
    value, start, end = _FNV_OFFSET, 0, 0
    in_run = False  # a run of word characters is being read
    run_length, c0, c1, c2 = 0, 0, 0, 0
    open_before, value_before, end_before = False, _FNV_OFFSET, 0
    j = first
    while j <= last:
        if j == last:
            kind, point, at, j = SPACE, 0x20, j, j + 1  # the end closes what is open, like a space
        else:
            at = j
            lead = np.int64(data[j])
            if lead < 0x80:
                point, kind, j = (lead + 32 if 0x41 <= lead <= 0x5A else lead), ascii_classes[lead], j + 1
            else:
                point, kind, j = _read_wide(data, j, points, lowered, classes)
        if kind == DROPPED:
            continue
        if kind == UNREAD:
            return -1
        if kind == WORD:
            if not in_run:
                in_run, run_length = True, 0
                open_before, value_before, end_before = is_open, value, end
            if run_length == 0:
                c0 = point
            elif run_length == 1:
                c1 = point
            elif run_length == 2:
                c2 = point
            run_length += 1
        elif in_run:
            in_run = False
            if _is_article(run_length, c0, c1, c2):
                # The run is a space: the token before it, if any, ends where it ended.
                if open_before:
                    hashes[count], spans[0, count], spans[1, count] = value_before, start, end_before
                    count += 1
                is_open = False
        if kind == SPACE:
            if is_open:
                hashes[count], spans[0, count], spans[1, count] = value, start, end
                count += 1
                is_open = False
            continue
        if not is_open:
            is_open, value, start = True, _FNV_OFFSET, at
        value = (value ^ np.uint64(point)) * _FNV_PRIME
        end = j
    return count


@jit
def _same_bytes(a_data: np.ndarray, a_start: int, a_end: int, b_data: np.ndarray, b_start: int, b_end: int) -> bool:
    if a_end - a_start != b_end - b_start:
        return False
    for k in range(a_end - a_start):
        if a_data[a_start + k] != b_data[b_start + k]:
            return False
    return True


@jit
def _same(
    a_data: np.ndarray,
    a_start: int,
    a_end: int,
    b_data: np.ndarray,
    b_start: int,
    b_end: int,
    points: np.ndarray,
    lowered: np.ndarray,
    classes: np.ndarray,
    ascii_classes: np.ndarray,
) -> bool:
    """The two byte spans hold the same token: the same lower-cased code points once ASCII punctuation is skipped."""
    i, j = a_start, b_start
    while True:
        a_point, i = _next_kept(a_data, i, a_end, points, lowered, classes, ascii_classes)
        b_point, j = _next_kept(b_data, j, b_end, points, lowered, classes, ascii_classes)
        if a_point != b_point:
            return False
        if a_point < 0:
            return True


@jit
def _shared(
    r_data: np.ndarray,
    r_hashes: np.ndarray,
    r_spans: np.ndarray,
    n_r: int,
    t_data: np.ndarray,
    t_hashes: np.ndarray,
    t_spans: np.ndarray,
    n_t: int,
    slots: np.ndarray,
    counts: np.ndarray,
    points: np.ndarray,
    lowered: np.ndarray,
    classes: np.ndarray,
    ascii_classes: np.ndarray,
) -> int:
    """The size of the multiset intersection of the two token lists; -1 if a hash is shared by distinct tokens.

    ``slots`` is an open-addressing table (linear probing) of the first ground-truth token of
    each distinct hash; ``counts`` how many of that token are still unmatched.
    """
    mask = np.uint64(_table_size(n_t) - 1)
    slots[: _table_size(n_t)] = -1
    for k in range(n_t):
        slot = np.int64(t_hashes[k] & mask)
        while True:
            first = slots[slot]
            if first < 0:
                slots[slot], counts[k] = k, 1
                break
            if t_hashes[first] == t_hashes[k]:
                if not (
                    _same_bytes(t_data, t_spans[0, first], t_spans[1, first], t_data, t_spans[0, k], t_spans[1, k])
                    or _same(t_data, t_spans[0, first], t_spans[1, first], t_data, t_spans[0, k], t_spans[1, k],
                             points, lowered, classes, ascii_classes)
                ):
                    return -1
                counts[first] += 1
                break
            slot = np.int64(np.uint64(slot + 1) & mask)
    common = 0
    for k in range(n_r):
        slot = np.int64(r_hashes[k] & mask)
        while slots[slot] >= 0:
            first = slots[slot]
            if t_hashes[first] == r_hashes[k]:
                if not (
                    _same_bytes(r_data, r_spans[0, k], r_spans[1, k], t_data, t_spans[0, first], t_spans[1, first])
                    or _same(r_data, r_spans[0, k], r_spans[1, k], t_data, t_spans[0, first], t_spans[1, first],
                             points, lowered, classes, ascii_classes)
                ):
                    return -1
                if counts[first] > 0:
                    counts[first] -= 1
                    common += 1
                break
            slot = np.int64(np.uint64(slot + 1) & mask)
    return common
