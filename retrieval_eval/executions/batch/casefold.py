"""Python's ``str.casefold`` over Arrow string columns, exactly, without a Python call per string.

Arrow has no casefold, and its ``utf8_lower`` differs from ``str.casefold`` on ``ß``, ``İ``,
``ς``, ``ﬁ``, Cherokee and more (and follows another Unicode version). But ``str.casefold``
maps each code point on its own, with no context (unlike ``str.lower``'s final-sigma rule), so a
string's casefold is the concatenation of its code points' casefolds. A kernel rewrites the
UTF-8 bytes accordingly: ASCII letters lower-cased inline, every other code point replaced by
the UTF-8 of ``chr(c).casefold()``, which Python computes once per process for each code point
met in the data.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...data.ids import read_only
from ...io.arrays import string_buffers
from ...kernels.text.bundles import TextBuffer
from ...kernels.text.contains import (
    CODE_POINTS,
    code_points_in_rows,
    fold_into,
    folded_offsets,
    rows_with_any,
)

_EMPTY_BYTES = read_only(np.empty(0, dtype=np.uint8))
_ASCII = 0x80


def casefold(values: pa.Array | pa.ChunkedArray) -> pa.LargeStringArray:
    """``s.casefold()`` for every string ``s`` of ``values``, as one ``large_string`` array (nulls stay null)."""
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    buffers = [string_buffers(chunk) for chunk in chunks]
    present = np.zeros(CODE_POINTS, dtype=bool)
    for offsets, data in buffers:
        present |= code_points_in_rows(offsets, data, np.arange(len(offsets) - 1))
    start, length, folds = _FOLDS.tables(present)
    parts = [folded_offsets(offsets, data, length) for offsets, data in buffers]
    sizes = np.array([part[-1] for part in parts], dtype=np.int64)
    out = np.empty(int(sizes.sum()), dtype=np.uint8)
    bases = np.concatenate([[0], np.cumsum(sizes)])
    for (offsets, data), at in zip(buffers, bases):
        fold_into(offsets, data, start, length, folds, out, at)
    joined = np.concatenate([[0]] + [part[1:] + at for part, at in zip(parts, bases)])
    valid = None
    if values.null_count:
        mask = values.is_valid()
        mask = mask.combine_chunks() if isinstance(mask, pa.ChunkedArray) else mask
        valid = pa.py_buffer(np.packbits(mask.to_numpy(zero_copy_only=False), bitorder="little"))
    return pa.Array.from_buffers(pa.large_string(), len(values), [valid, pa.py_buffer(joined), pa.py_buffer(out)])


@dataclass(frozen=True)
class Haystacks:
    """A string column ready for casefolded search, copied only where it must be.

    ``casefold`` maps each code point on its own, and the search kernel lower-cases ASCII
    letters as it reads; so a row whose other code points are their own casefold (most accented
    small letters, dashes, quotes: "café – l’été") is searched in its chunk's own buffers, and
    only the rows holding a code point that casefolding changes ("É", "ß", "İ") are casefolded,
    into one new buffer. :attr:`buffers` lists the text buffers as the kernel
    :func:`~retrieval_eval.kernels.text.contains.best_hits_in` takes them
    (:class:`~retrieval_eval.kernels.text.bundles.TextBuffer`): row ``x`` of ``row_first:row_last`` is
    row ``local_row[x - row_first]`` of the buffer (-1: elsewhere). A null reads as "".
    """

    buffers: tuple[TextBuffer, ...]

    @classmethod
    def of(cls, values: pa.ChunkedArray) -> Haystacks:
        """The haystacks of ``values``."""
        non_ascii = ~pc.fill_null(pc.string_is_ascii(values), True).to_numpy(zero_copy_only=False)
        chunks = [(chunk, *string_buffers(chunk)) for chunk in values.chunks]
        bounds = np.cumsum([0] + [len(chunk) for chunk in values.chunks])
        rows = [np.flatnonzero(non_ascii[first:last]) for first, last in zip(bounds, bounds[1:])]
        present = np.zeros(CODE_POINTS, dtype=bool)
        for (_, offsets, data), chunk_rows in zip(chunks, rows):
            present |= code_points_in_rows(offsets, data, chunk_rows)
        changed = _FOLDS.changed(present)
        fold = np.zeros(len(values), dtype=bool)
        for (_, offsets, data), chunk_rows, first in zip(chunks, rows, bounds):
            fold[first + chunk_rows] = rows_with_any(offsets, data, chunk_rows, changed)
        # The chunks' rows: themselves, or -1 where their fold is in the last buffer.
        chunk_row = np.where(fold, -1, np.arange(len(values)))
        buffers = [
            TextBuffer(first, last, read_only(chunk_row[first:last] - first), offsets, data)
            for (_, offsets, data), first, last in zip(chunks, bounds, bounds[1:])
            if not np.all(fold[first:last])
        ]
        if np.any(fold):
            folded = string_buffers(casefold(values.filter(pa.array(fold))))
            buffers.append(TextBuffer(0, len(values), read_only(np.where(fold, np.cumsum(fold) - 1, -1)), *folded))
        return cls(tuple(buffers))


class _Folds:
    """``chr(c).casefold()`` in UTF-8 for the non-ASCII code points ``c`` met so far, as kernel tables.

    ``length[c]`` bytes at ``data[start[c]:]``. The tables are replaced, never changed, when new
    code points are learnt, so that a caller can keep using the ones it was given.
    """

    def __init__(self) -> None:
        self._known = np.zeros(CODE_POINTS, dtype=bool)
        self._changed = read_only(np.zeros(CODE_POINTS, dtype=bool))
        self._start = read_only(np.zeros(CODE_POINTS, dtype=np.int64))
        self._length = read_only(np.zeros(CODE_POINTS, dtype=np.uint8))
        self._data = _EMPTY_BYTES
        self._lock = threading.Lock()

    def tables(self, present: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The (start, length, data) tables, with every non-ASCII code point that ``present`` marks."""
        with self._lock:
            new = np.flatnonzero(present & ~self._known)
            new = new[new >= _ASCII]
            if new.size:
                folded = [chr(point).casefold().encode("utf-8") for point in new]
                lengths = np.array([len(text) for text in folded], dtype=np.int64)
                start, length = self._start.copy(), self._length.copy()
                start[new] = len(self._data) + np.concatenate([[0], np.cumsum(lengths)[:-1]])
                length[new] = lengths
                self._data = read_only(np.concatenate([self._data, np.frombuffer(b"".join(folded), dtype=np.uint8)]))
                self._start, self._length = read_only(start), read_only(length)
                changed = self._changed.copy()
                changed[new] = [chr(point).casefold() != chr(point) for point in new]
                self._changed = read_only(changed)
                self._known[new] = True
            return self._start, self._length, self._data

    def changed(self, present: np.ndarray) -> np.ndarray:
        """A table over code points: True for those that casefolding changes (known for those ``present`` marks)."""
        self.tables(present)
        return self._changed


_FOLDS = _Folds()
