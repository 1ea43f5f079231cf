"""Fuzzing the text readers (TREC qrels, TREC run, CSV, TSV) against plain-Python references.

Each input, random bytes or valid lines with random corruption, either reads as
``tests/reference/text_formats.py`` says, or raises the library's InputError naming the file
(and, for a TREC line at fault, one of the lines the reference finds at fault); never another
exception.
"""

from __future__ import annotations

import math
import os
import tempfile

from hypothesis import example, given
from hypothesis import strategies as st

from retrieval_eval.errors import InputError
from retrieval_eval.io import COLUMN_ALIASES, read_qrels_table, read_run_table
from tests.reference.text_formats import Malformed, read_csv, read_trec

# Pieces valid lines are made of, and the bytes corruption inserts: every class of character
# the formats give a meaning to (separators, line ends, quotes, comment marks, signs, digits).
_ID = st.text(alphabet="abcXYZ019#-_.é\"", min_size=1, max_size=5)
_LABEL = st.sampled_from(["0", "1", "2", "-1", "007", "+1", "1.0", "0.5", "-1.5", "1e-1", "inf", "0x1", "99999999999999999999"])
_SCORE = st.sampled_from(["1", "0.5", "-2.25e3", "inf", "-Infinity", "nan", "1e400", "9007199254740993", ".5", "5.", "+1"])
_NASTY = st.sampled_from(list(b" \t\n\r\x0b\x0c#\"',-+.0x9e\x00\xff\xc3") + [0xEF])
_QRELS, _RUN = "qrels", "run"


def _write(data: bytes, suffix: str) -> str:
    handle, path = tempfile.mkstemp(suffix=suffix)
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    return path


def _same(got: list[tuple], expected: list[tuple]) -> bool:
    def key(value):
        return "nan" if isinstance(value, float) and math.isnan(value) else value

    return [tuple(map(key, row)) for row in got] == [tuple(map(key, row)) for row in expected]


def _check(data: bytes, suffix: str, read, reference, *, lines_located: bool) -> None:
    path = _write(data, suffix)
    try:
        try:
            expected = reference(data)
        except Malformed as malformed:
            expected = malformed
        try:
            table = read(path)
        except InputError as error:
            assert error.source == path, error
            if lines_located and isinstance(expected, Malformed) and expected.places and error.row is not None:
                assert error.row in expected.places, (error, expected.places)
            return
        assert not isinstance(expected, Malformed), f"read {table.to_pylist()}, but malformed at {expected.places}"
        got = [tuple(row.values()) for row in table.to_pylist()]
        assert _same(got, expected), (got, expected)
    finally:
        os.unlink(path)


@st.composite
def _corrupted(draw, lines: st.SearchStrategy) -> bytes:
    data = bytearray("".join(draw(st.lists(lines, min_size=1, max_size=6))).encode())
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        if action == "insert" or not data:
            data[at:at] = bytes([draw(_NASTY)])
        elif action == "delete":
            del data[min(at, len(data) - 1)]
        else:
            data[min(at, len(data) - 1)] = draw(_NASTY)
    return bytes(data)


_QRELS_LINE = st.builds(lambda q, d, r, end: f"{q} 0 {d} {r}{end}", _ID, _ID, _LABEL, st.sampled_from(["\n", "\r\n", "\r"]))
_RUN_LINE = st.builds(
    lambda q, d, s, end: f"{q} Q0 {d} 1 {s} tag{end}", _ID, _ID, _SCORE, st.sampled_from(["\n", "\r\n", " extra\n"])
)
_COMMENT = st.sampled_from(["# a comment\n", "#1 0 d 1\n", "  #q Q0 d 1 2 t\n", "\n", "   \n"])


def _trec(kind: str):
    read = read_qrels_table if kind == _QRELS else read_run_table
    return lambda path: read(path, format="trec"), lambda data: read_trec(data, kind)


@given(st.binary(max_size=120))
@example(b"\xef\xbb\xbf1 0 d 1\n")
@example(b"#1 0 d 1\n1 0 d 1")
def test_trec_qrels_random_bytes(data):
    read, reference = _trec(_QRELS)
    _check(data, ".txt", read, reference, lines_located=True)


@given(st.binary(max_size=120))
@example(b"1 Q0 d 1 9007199254740993 t\n")
def test_trec_run_random_bytes(data):
    read, reference = _trec(_RUN)
    _check(data, ".txt", read, reference, lines_located=True)


@given(_corrupted(st.one_of(_QRELS_LINE, _COMMENT)))
def test_trec_qrels_corrupted_lines(data):
    read, reference = _trec(_QRELS)
    _check(data, ".txt", read, reference, lines_located=True)


@given(_corrupted(st.one_of(_RUN_LINE, _COMMENT)))
def test_trec_run_corrupted_lines(data):
    read, reference = _trec(_RUN)
    _check(data, ".txt", read, reference, lines_located=True)


def _csv_field(text: str, delimiter: str) -> str:
    # Quoted as RFC 4180 says when it must be, and sometimes when it need not.
    if any(c in text for c in (delimiter, '"', "\n", "\r")) or text.startswith("é"):
        return '"' + text.replace('"', '""') + '"'
    return text


def _csv_lines(delimiter: str, value: st.SearchStrategy) -> st.SearchStrategy:
    field = st.one_of(_ID, st.text(alphabet=f"ab{delimiter}\n\"", min_size=1, max_size=4))
    row = st.builds(lambda q, d, v: delimiter.join(_csv_field(x, delimiter) for x in (q, d, v)) + "\n", field, field, value)
    return row


@given(data=st.data(), delimiter=st.sampled_from([",", "\t"]), kind=st.sampled_from([_QRELS, _RUN]), raw=st.booleans())
def test_csv_and_tsv(data, delimiter, kind, raw):
    value_name, value = ("relevance", _LABEL) if kind == _QRELS else ("score", _SCORE)
    header = delimiter.join(["query_id", "doc_id", value_name]) + "\n"
    if raw:
        body = header.encode() + data.draw(st.binary(max_size=80))
    else:
        body = data.draw(_corrupted(_csv_lines(delimiter, value)))
        body = header.encode() + body if data.draw(st.booleans()) else data.draw(_corrupted(st.just(header))) + body
    roles = {"query_id": "id", "doc_id": "id", value_name: value_name}
    aliases = {name: COLUMN_ALIASES[name] for name in roles}
    read = read_qrels_table if kind == _QRELS else read_run_table
    suffix = ".csv" if delimiter == "," else ".tsv"
    _check(body, suffix, read, lambda b: read_csv(b, delimiter, aliases, roles), lines_located=False)
