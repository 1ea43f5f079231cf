"""The depth scan against the depth of parsed values, its builds against each other, and the JSON Lines readers
on hostile bytes: each file either reads as json.loads reads it, line by line, or raises InputError naming the
file and a line that json.loads (or the depth limit, or a repeated key) refuses; never another exception."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import InputError
from retrieval_eval.executions.batch.log import iter_execution_records, read_execution_log
from retrieval_eval.io.jsonio import MAX_DEPTH, read_json_records, read_json_source
from retrieval_eval.io.sources import resolve_source
from retrieval_eval.kernels.text.json_depth import _json_nesting_numpy, json_nesting

# Strings full of what the scan must not take for structure.
_TEXT = st.text(alphabet='ab{}[]"\\:,\n\u00e9', max_size=6)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=12,
)
_NOISE = st.sampled_from([b"{", b"}", b"[", b"]", b'"', b"\\", b",", b":", b"\n", b" ", b"\xff", b"\xc3", b"1", b"[" * 70])


def _depth(value) -> int:
    """How deep a JSON value nests: a container is one level more than its deepest element."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _array(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype=np.uint8)


def _nesting(data: bytes, limit: int, lines: bool) -> tuple[int, int, bool]:
    """The scan's definition (module docstring of kernels.json_depth), byte by byte; and whether it may have
    read a byte above 0x7F (it stops at a bracket too deep)."""
    level, in_string, backslashes, not_one, bracketed = 0, False, 0, -1, False
    for i, byte in enumerate(data):
        if byte == ord("\\"):
            backslashes += 1
            continue
        if byte == ord('"') and backslashes % 2 == 0:
            in_string = not in_string
        elif lines and byte == ord("\n"):
            if level > 0 and not_one < 0:
                not_one = i  # the line leaves a value open
            in_string, level, bracketed = False, 0, False
        elif not in_string and byte in b"{[":
            if lines and level == 0 and bracketed and not_one < 0:
                not_one = i  # a second value on the line
            level, bracketed = level + 1, True
            if level > limit:
                return i, not_one, True
        elif not in_string and byte in b"}]":
            level, bracketed = level - 1, True
        backslashes = 0
    return -1, not_one, not data.isascii()


@given(_VALUES, st.integers(0, 6), st.sampled_from([None, 1]))
def test_the_scan_finds_the_depth_of_any_json_value(value, limit, indent):
    data = json.dumps(value, ensure_ascii=False, indent=indent).encode()
    deep, _, _ = json_nesting(_array(data), limit, False)
    assert (deep >= 0) == (_depth(value) > limit)
    if deep >= 0:  # the bracket that opens level limit + 1
        assert data[deep : deep + 1] in (b"[", b"{")
    if _depth(value) <= limit:  # as JSON Lines: a value over several lines leaves its first line open
        assert json_nesting(_array(data), limit, True) == (-1, data.find(b"\n"), not data.isascii())


@given(st.lists(st.sampled_from(list(b'{}[]"\\\na \xc3')), max_size=300).map(bytes), st.integers(0, 4), st.booleans())
def test_the_builds_agree_with_the_definition_on_any_bytes(data, limit, lines):
    # Up to 300 bytes: several of the compiled build's 64-byte blocks, with and without backslashes.
    expected = _nesting(data, limit, lines)
    assert _json_nesting_numpy(_array(data), limit, lines) == expected
    assert json_nesting(_array(data), limit, lines) == expected


def _unique(pairs):
    keys = [key for key, _ in pairs]
    if len(set(keys)) < len(keys):
        raise ValueError("duplicate key")
    return dict(pairs)


def _bad_lines(data: bytes) -> tuple[set[int], list | None]:
    """The lines (from 1) that json.loads refuses, nests too deep or repeats a key in; and the values, if none."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    bad, values = set(), []
    for number, line in enumerate(data.split(b"\n"), start=1):
        try:
            text = line.decode("utf-8")
            if not text.strip():
                continue
            value = json.loads(text, object_pairs_hook=_unique)
            if _depth(value) > MAX_DEPTH:
                raise ValueError("too deep")
            values.append(value)
        except (ValueError, RecursionError):
            bad.add(number)
    return bad, None if bad else values


def _corrupted(records: list, edits: list[tuple[int, bytes]]) -> bytes:
    data = b"".join(json.dumps(record, ensure_ascii=False).encode() + b"\n" for record in records)
    for position, noise in edits:
        at = position % (len(data) + 1)
        data = data[:at] + noise + data[at + 1 :]
    return data


_FILES = st.one_of(
    st.binary(max_size=80),
    st.builds(
        _corrupted,
        st.lists(st.dictionaries(_TEXT, _VALUES, max_size=3), min_size=1, max_size=4),
        st.lists(st.tuples(st.integers(0, 10_000), _NOISE), max_size=3),
    ),
)


def _check(read, path: Path, data: bytes) -> None:
    bad, values = _bad_lines(data)
    try:
        result = read(path)
    except InputError as error:
        assert error.source == str(path)
        if error.row is None:  # named as a whole: gzip by its first bytes, or one JSON document over lines
            first = data.split(b"\n", 1)[0].strip()
            assert data.startswith(b"\x1f\x8b") or (first in (b"{", b"[") and 1 in bad), (error, bad)
            return
        assert error.row in bad, (error, bad)
        return
    assert not bad, bad
    assert result == values


@given(_FILES)
def test_the_checked_json_lines_reader_reads_what_json_loads_reads_or_names_a_bad_line(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "x.jsonl"
    path.write_bytes(data)
    _check(lambda p: read_json_records(resolve_source(p)), path, data)


@given(_FILES)
def test_the_fast_json_lines_reader_reads_every_line_or_names_a_bad_one(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "x.jsonl"
    path.write_bytes(data)

    def read(p: Path):
        loaded = read_json_source(resolve_source(p))
        if isinstance(loaded, list):
            return loaded
        # Arrow's table: a row for each line json.loads reads, in order (typed by Arrow, so compared by keys).
        values = _bad_lines(data)[1] or []
        assert loaded.num_rows == len(values)
        assert set(loaded.column_names) == {key for value in values for key in value}
        return values

    _check(read, path, data)


_LOG_RECORDS = st.lists(
    st.fixed_dictionaries(
        {"retrieval_executions": st.lists(st.fixed_dictionaries({"capability": st.sampled_from(["Email", "x"])}), max_size=2)},
        optional={"response": _TEXT, "extra": _VALUES},
    ),
    min_size=1,
    max_size=3,
)


@given(_LOG_RECORDS, st.lists(st.tuples(st.integers(0, 10_000), _NOISE), max_size=3))
def test_both_readings_of_a_log_agree_on_hostile_bytes(tmp_path_factory, records, edits):
    data = _corrupted(records, edits)
    path = tmp_path_factory.mktemp("fuzz") / "log.jsonl"
    path.write_bytes(data)
    bad, _ = _bad_lines(data)
    outcomes = []
    for read in (read_execution_log, lambda p: list(iter_execution_records(p))):
        try:
            read(path)
            outcomes.append(None)
        except InputError as error:  # a bad line, or a loader rule on a line json.loads reads
            assert error.source == str(path)
            outcomes.append(error.row)
    assert outcomes[0] == outcomes[1]
    if bad:
        assert outcomes[0] is not None and outcomes[0] <= min(bad)
