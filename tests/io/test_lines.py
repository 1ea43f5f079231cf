"""Lines of text files: the numpy path (files below one block) splits them as Arrow's CSV reader does."""

from __future__ import annotations

import os
import tempfile

import pyarrow as pa
import pyarrow.csv as pa_csv
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.io.lines import read_lines
from retrieval_eval.io.sources import resolve_source

# Arrow's CSV reader with one field per line: the reader files of a block or more go through.
_ARROW = (
    pa_csv.ReadOptions(column_names=["line"]),
    pa_csv.ParseOptions(delimiter="\x01", quote_char=False, double_quote=False, escape_char=False, ignore_empty_lines=False),
    pa_csv.ConvertOptions(column_types={"line": pa.string()}, strings_can_be_null=False),
)
_PIECES = st.sampled_from([b"q1 0 d1 1", b"x", b" ", b"\t", b"#", b"\n", b"\r", b"\r\n", b"\n\r", "é".encode()])


def _lines(data: bytes, suffix: str = ".txt") -> list[str]:
    handle, path = tempfile.mkstemp(suffix=suffix)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        chunks = read_lines(resolve_source(path, "trec"))
    finally:
        os.unlink(path)
    # Lines may keep their terminator; a line holds no \r or \n but its terminator.
    return [line.rstrip("\r\n") for chunk in chunks for line in chunk.to_pylist()]


@given(st.lists(_PIECES, min_size=1, max_size=40).map(b"".join), st.booleans())
def test_lines_are_split_as_arrows_csv_reader_splits_them(data, bom):
    data = (b"\xef\xbb\xbf" if bom else b"") + data
    expected = pa_csv.read_csv(pa.py_buffer(data), *_ARROW).column("line").to_pylist()
    assert _lines(data) == expected


def test_line_numbers_count_every_terminator():
    # \r\n is one terminator, a \r alone is one, blank lines count.
    assert _lines(b"a\r\nb\rc\n\nd") == ["a", "b", "c", "", "d"]
    assert _lines(b"a\r\r\nb\n") == ["a", "", "b"]
    assert _lines(b"") == [""]
