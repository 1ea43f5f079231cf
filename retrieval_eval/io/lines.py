"""Read a text file as an Arrow string array of its lines, fast, with exact line numbers.

Line ``i`` of the result (0-based, over all chunks) is line ``i + 1`` of the file:
blank lines are kept, so that parsers can report the line a user sees in an editor. Lines
end as in Arrow's CSV reader: at ``\n``, ``\r\n`` or a ``\r`` alone.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa

from retrieval_eval.errors import InputError
from retrieval_eval.io.coerce import cast_exactly
from retrieval_eval.io.sources import Source, open_stream, read_all

_BOM = b"\xef\xbb\xbf"
_CHUNK_LINES = 1 << 20  # chunk size of the numpy path, so chunks can be parsed in parallel
_BLOCK_BYTES = 4 << 20  # CSV reader block: fewer, larger chunks parse faster
_LF, _CR = ord("\n"), ord("\r")


def read_lines(src: Source) -> list[pa.Array]:
    """All lines of a text file, in chunks (string arrays) in file order.

    A line may keep its terminator: parsers treat it as the whitespace it is.

    Raises
    ------
    InputError
        The file cannot be read, or is not valid UTF-8 (naming the line).
    """
    if not src.gzip and source_size(src) < _BLOCK_BYTES:
        # Less than one block of Arrow's reader, whose threads parse one block each: numpy
        # splits the lines in about half the time, and hands no work to a thread pool.
        return _read_lines_exact(src)
    import pyarrow.csv as pa_csv  # here, not at import: only large text files need it

    # Arrow's CSV reader splits lines with several threads; with a delimiter that (almost)
    # never occurs and quoting off, each line is one string field.
    read = pa_csv.ReadOptions(column_names=["line"], block_size=_BLOCK_BYTES)
    parse = pa_csv.ParseOptions(
        delimiter="\x01", quote_char=False, double_quote=False, escape_char=False, ignore_empty_lines=False
    )
    convert = pa_csv.ConvertOptions(column_types={"line": pa.string()}, strings_can_be_null=False)
    try:
        with open_stream(src) as stream:
            table = pa_csv.read_csv(stream, read, parse, convert)
        return table.column(0).chunks
    except pa.ArrowInvalid:
        # The fast path gives up on an empty file, a \x01 byte inside a line, or
        # invalid UTF-8; the exact path handles the first two and locates the third.
        return _read_lines_exact(src)


def source_size(src: Source) -> int:
    """The bytes of a file source as stored (compressed for gzip); one block when it cannot be told."""
    if src.data is not None:
        return src.data.size
    try:
        return os.stat(src.path).st_size
    except OSError:
        return _BLOCK_BYTES  # the reader that opens the file says why it cannot


def _read_lines_exact(src: Source) -> list[pa.Array]:
    """The lines of a file read whole, split with numpy; each keeps its terminator."""
    data = read_all(src)
    if data.slice(0, min(3, data.size)).to_pybytes() == _BOM:
        data = data.slice(3)  # as the fast path does, a UTF-8 byte-order mark is not text
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = raw == _LF  # the last byte of each line terminator
    carriage = raw == _CR
    if carriage.any():
        carriage[:-1] &= ~ends[1:]  # a \r followed by \n is not a terminator: \r\n is one
        ends |= carriage
    breaks = np.flatnonzero(ends)
    large = raw.size >= 2**31 - 1
    offsets = np.empty(breaks.size + 2, dtype=np.int64 if large else np.int32)
    offsets[0] = 0
    offsets[1:-1] = breaks + 1
    offsets[-1] = raw.size
    if raw.size and ends[-1]:
        offsets = offsets[:-1]  # a final terminator ends the last line, it does not start one
    count = offsets.size - 1
    binary = pa.Array.from_buffers(
        pa.large_binary() if large else pa.binary(), count, [None, pa.py_buffer(offsets), data]
    )
    text_type = pa.large_string() if large else pa.string()
    text = cast_exactly(binary, text_type, lambda bad: InputError("invalid UTF-8 text", source=src.label, row=bad + 1))
    return [text.slice(start, _CHUNK_LINES) for start in range(0, count, _CHUNK_LINES)]
