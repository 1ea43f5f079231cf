"""Shared answer tokens: the token counts of SQuAD-style answer F1, over Arrow-style UTF-8 string buffers.

A text is normalized as azure-ai-evaluation's F1 score does it (``retrieval_eval.azure.answer_f1``
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
read the same, code point by code point: hashes only find candidates. A row where two distinct
tokens share a 64-bit hash is flagged instead of counted, for the caller to count with the
definition.

``str.lower`` maps each code point on its own to one code point, with two exceptions, both
reproduced here: capital I with dot (U+0130) becomes two code points, ``i`` and a combining dot
above (U+0307); capital sigma (U+03A3) becomes final sigma (U+03C2) when a cased letter comes
before it and none after it, skipping case-ignorable code points both ways, within the text,
and small sigma (U+03C3) otherwise (Unicode's Final_Sigma condition, as CPython tests it).

The caller gives, for the non-ASCII code points of the data (sorted ``points``), a ``table``
(rows :data:`LOWERED`, :data:`CLASS`, :data:`FLAGS`) made by :func:`describe`, and for ASCII
:data:`ASCII_TABLE` (the same rows). Classes, of the
lower-cased code point: :data:`OTHER` (kept, not a word character), :data:`WORD` (``\\w``:
``str.isalnum`` or ``_``), :data:`SPACE` (``str.isspace``), :data:`DROPPED` (ASCII
punctuation), and the two exceptions :data:`SIGMA` and :data:`DOTTED_I`. Flags, of the code
point itself: :data:`CASED`, :data:`CASE_IGNORABLE`.
"""

from __future__ import annotations

import functools
import string

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from .contains import _code_point

OTHER, WORD, SPACE, DROPPED, SIGMA, DOTTED_I = 0, 1, 2, 3, 4, 5
CASED, CASE_IGNORABLE = 1, 2
#: Rows of a code-point table.
LOWERED, CLASS, FLAGS = 0, 1, 2
CAPITAL_SIGMA, SMALL_SIGMA, FINAL_SIGMA = 0x3A3, 0x3C3, 0x3C2
DOTTED_CAPITAL_I, SMALL_I, COMBINING_DOT = 0x130, 0x69, 0x307
# Rows per unit of parallel work: scratch arrays are allocated once per chunk, not per row.
_CHUNK = 1024
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


def char_class(char: str) -> int:
    """The class of a (lower-cased) character: DROPPED, SPACE, WORD or OTHER."""
    if char in string.punctuation:
        return DROPPED
    if char.isspace():
        return SPACE
    if char.isalnum() or char == "_":
        return WORD
    return OTHER


def case_flags(char: str) -> int:
    """CASED and CASE_IGNORABLE as ``str.lower`` sees them, read from ``str.lower`` itself.

    Cased is Lowercase, Uppercase or Titlecase (``islower``/``isupper``/``istitle`` of one
    character). Python exposes no case-ignorable test, so it is read off the final-sigma rule:
    a cased character before a capital sigma decides it (final) unless it is skipped as
    case-ignorable; a character that is not cased, between a capital sigma and a cased letter,
    is skipped (small sigma) exactly when it is case-ignorable.
    """
    cased = char.islower() or char.isupper() or char.istitle()
    if cased:
        ignorable = (char + "\u03a3").lower()[-1] == "\u03c3"
    else:
        ignorable = ("A\u03a3" + char + "B").lower()[1] == "\u03c3"
    return CASED * cased | CASE_IGNORABLE * ignorable


@functools.cache
def describe(point: int) -> tuple[int, int, int]:
    """(lower-cased code point, its class, the code point's flags): one column of a code-point table.

    Cached: a process meets the same alphabet file after file.
    """
    char = chr(point)
    if point == CAPITAL_SIGMA:
        return point, SIGMA, case_flags(char)
    if point == DOTTED_CAPITAL_I:
        return point, DOTTED_I, case_flags(char)
    lowered = char.lower()
    if len(lowered) != 1:
        raise ValueError(f"str.lower maps U+{point:04X} to {len(lowered)} code points; the kernel expects one")
    return ord(lowered), char_class(lowered), case_flags(char)


def _ascii_table() -> np.ndarray:
    table = np.zeros((3, 128), dtype=np.uint8)
    for point in range(128):
        table[:, point] = describe(point)
    return read_only(table, np.uint8)


#: :func:`describe` of each ASCII code point, as a (3, 128) table.
ASCII_TABLE = _ascii_table()
# The class of the combining dot that follows "i" when a capital I with dot is lower-cased.
_DOT_CLASS = char_class(chr(COMBINING_DOT))


def code_point_table(points: np.ndarray) -> np.ndarray:
    """The (3, n) int64 table of the sorted non-ASCII ``points`` (:func:`describe` of each), read-only."""
    columns = np.array([describe(point) for point in points.tolist()], dtype=np.int64).reshape(-1, 3)
    table = np.ascontiguousarray(columns.T)
    table.setflags(write=False)
    return table


def _example() -> tuple:
    data = read_only(list("The café ΣΑΣ İ".encode()), np.uint8)
    offsets = read_only([0, len(data)], np.int64)
    points = read_only([0xE9, DOTTED_CAPITAL_I, 0x391, CAPITAL_SIGMA], np.int64)
    return offsets, data, offsets, data, points, code_point_table(points), ASCII_TABLE


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
    table: np.ndarray,
    ascii_table: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row: (response tokens, ground-truth tokens, shared tokens, flagged), int64 x 3 and bool.

    Row ``i`` of the responses is ``r_data[r_offsets[i]:r_offsets[i + 1]]`` (valid UTF-8), and
    the same for the ground truths. ``points``, ``table`` and ``ascii_table`` as the module
    docstring says. A flagged row's counts are 0.
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
            r_text = (r_offsets[row], r_offsets[row + 1])
            t_text = (t_offsets[row], t_offsets[row + 1])
            n_r = _tokens(r_data, r_text[0], r_text[1], points, table, ascii_table, r_hashes, r_spans)
            n_t = _tokens(t_data, t_text[0], t_text[1], points, table, ascii_table, t_hashes, t_spans)
            common = _shared(
                r_data, r_text[0], r_text[1], r_hashes, r_spans, n_r,
                t_data, t_text[0], t_text[1], t_hashes, t_spans, n_t,
                slots, counts, points, table, ascii_table,
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
def _read_wide(data: np.ndarray, j: int, points: np.ndarray, table: np.ndarray) -> tuple[int, int, int]:
    """(lower-cased code point, its class, next byte) for the non-ASCII code point at byte ``j``.

    Callers read ASCII themselves: most bytes are ASCII, and reading them inline is faster.
    """
    point, width = _code_point(data, j)
    at = np.searchsorted(points, point)
    return table[LOWERED, at], table[CLASS, at], j + width


@jit
def _flags_at(data: np.ndarray, j: int, points: np.ndarray, table: np.ndarray, ascii_table: np.ndarray) -> tuple[int, int]:
    """(flags, byte length) of the code point at byte ``j``."""
    lead = np.int64(data[j])
    if lead < 0x80:
        return np.int64(ascii_table[FLAGS, lead]), 1
    point, width = _code_point(data, j)
    return table[FLAGS, np.searchsorted(points, point)], width


@jit
def _sigma(
    data: np.ndarray, j: int, first: int, last: int, points: np.ndarray, table: np.ndarray, ascii_table: np.ndarray
) -> int:
    """The lower case of the capital sigma at byte ``j`` of the text ``data[first:last]``: final or small."""
    final = False
    k = j
    while k > first:
        k -= 1
        while k > first and (data[k] & 0xC0) == 0x80:  # back to the start of the previous code point
            k -= 1
        flags, _ = _flags_at(data, k, points, table, ascii_table)
        if not flags & CASE_IGNORABLE:
            final = (flags & CASED) != 0
            break
    k = j + 2  # capital sigma is two bytes
    while final and k < last:
        flags, width = _flags_at(data, k, points, table, ascii_table)
        if not flags & CASE_IGNORABLE:
            final = (flags & CASED) == 0
            break
        k += width
    return FINAL_SIGMA if final else SMALL_SIGMA


@jit
def _next_kept(
    data: np.ndarray,
    j: int,
    end: int,
    pending: int,
    first: int,
    last: int,
    points: np.ndarray,
    table: np.ndarray,
    ascii_table: np.ndarray,
) -> tuple[int, int, int]:
    """(next lower-cased code point not dropped, at or after byte ``j``; the byte after it; the next pending point).

    The point is -1 at ``end``. ``pending`` (or -1) is the second code point of a capital I
    with dot read before, returned first.
    """
    if pending >= 0:
        return pending, j, -1
    while j < end:
        lead = np.int64(data[j])
        if lead < 0x80:
            j += 1
            if ascii_table[CLASS, lead] != DROPPED:
                return np.int64(ascii_table[LOWERED, lead]), j, -1
        else:
            at = j
            point, kind, j = _read_wide(data, j, points, table)
            if kind == SIGMA:
                return _sigma(data, at, first, last, points, table, ascii_table), j, -1
            if kind == DOTTED_I:
                return SMALL_I, j, COMBINING_DOT
            if kind != DROPPED:
                return point, j, -1
    return -1, j, -1


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
    table: np.ndarray,
    ascii_table: np.ndarray,
    hashes: np.ndarray,
    spans: np.ndarray,
) -> int:
    """Write the tokens of ``data[first:last]`` into ``hashes`` and ``spans`` (start, end bytes); their count."""
    count = 0
    is_open = False  # a token is being read
    value, start, end = _FNV_OFFSET, 0, 0
    in_run = False  # a run of word characters is being read
    run_length, c0, c1, c2 = 0, 0, 0, 0
    open_before, value_before, end_before = False, _FNV_OFFSET, 0
    pending = -1  # the combining dot after the "i" of a capital I with dot
    j = first
    while j <= last:
        at = j
        if pending >= 0:
            point, kind, pending = pending, _DOT_CLASS, -1
        elif j == last:
            point, kind, j = 0x20, SPACE, j + 1  # the end closes what is open, like a space
        else:
            lead = np.int64(data[j])
            if lead < 0x80:
                point, kind, j = np.int64(ascii_table[LOWERED, lead]), ascii_table[CLASS, lead], j + 1
            else:
                point, kind, j = _read_wide(data, j, points, table)
                if kind == SIGMA:
                    point, kind = _sigma(data, at, first, last, points, table, ascii_table), WORD
                elif kind == DOTTED_I:
                    point, kind, pending = SMALL_I, WORD, COMBINING_DOT
        if kind == DROPPED:
            continue
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
    a_span: tuple[int, int],
    a_text: tuple[int, int],
    b_data: np.ndarray,
    b_span: tuple[int, int],
    b_text: tuple[int, int],
    points: np.ndarray,
    table: np.ndarray,
    ascii_table: np.ndarray,
) -> bool:
    """The two byte spans hold the same token: the same lower-cased code points once ASCII punctuation is skipped.

    Equal bytes read the same; other spans are read (a sigma's case looks at its text around the span).
    """
    if _same_bytes(a_data, a_span[0], a_span[1], b_data, b_span[0], b_span[1]):
        return True
    i, j, a_pending, b_pending = a_span[0], b_span[0], -1, -1
    while True:
        a_point, i, a_pending = _next_kept(a_data, i, a_span[1], a_pending, a_text[0], a_text[1], points, table, ascii_table)
        b_point, j, b_pending = _next_kept(b_data, j, b_span[1], b_pending, b_text[0], b_text[1], points, table, ascii_table)
        if a_point != b_point:
            return False
        if a_point < 0:
            return True


@jit
def _shared(
    r_data: np.ndarray,
    r_first: int,
    r_last: int,
    r_hashes: np.ndarray,
    r_spans: np.ndarray,
    n_r: int,
    t_data: np.ndarray,
    t_first: int,
    t_last: int,
    t_hashes: np.ndarray,
    t_spans: np.ndarray,
    n_t: int,
    slots: np.ndarray,
    counts: np.ndarray,
    points: np.ndarray,
    table: np.ndarray,
    ascii_table: np.ndarray,
) -> int:
    """The size of the multiset intersection of the two token lists; -1 if a hash is shared by distinct tokens.

    ``slots`` is an open-addressing table (linear probing) of the first ground-truth token of
    each distinct hash; ``counts`` how many of that token are still unmatched.
    """
    r_text, t_text = (r_first, r_last), (t_first, t_last)
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
                span, other = (t_spans[0, first], t_spans[1, first]), (t_spans[0, k], t_spans[1, k])
                if not _same(t_data, span, t_text, t_data, other, t_text, points, table, ascii_table):
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
                span, other = (r_spans[0, k], r_spans[1, k]), (t_spans[0, first], t_spans[1, first])
                if not _same(r_data, span, r_text, t_data, other, t_text, points, table, ascii_table):
                    return -1
                if counts[first] > 0:
                    counts[first] -= 1
                    common += 1
                break
            slot = np.int64(np.uint64(slot + 1) & mask)
    return common
