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
from retrieval_eval.executions.log import iter_execution_records, read_execution_log
from retrieval_eval.io.jsonio import MAX_DEPTH, read_json_records
from retrieval_eval.io.sources import resolve_source
from retrieval_eval.kernels.json_depth import _first_too_deep_numpy, first_too_deep

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


@given(_VALUES, st.integers(0, 6))
def test_the_scan_finds_the_depth_of_any_json_value(value, limit):
    data = json.dumps(value, ensure_ascii=False).encode()
    for lines in (True, False):
        found = first_too_deep(_array(data), limit, lines)
        assert (found >= 0) == (_depth(value) > limit)
        if found >= 0:  # the bracket that opens level limit + 1
            assert data[found : found + 1] in (b"[", b"{")


@given(st.lists(st.sampled_from(list(b'{}[]"\\\na ')), max_size=60).map(bytes), st.integers(0, 4))
def test_the_builds_agree_on_any_bytes(data, limit):
    array = _array(data)
    for lines in (True, False):
        loop = first_too_deep.function(array, limit, lines)  # the definition, run as Python
        assert _first_too_deep_numpy(array, limit, lines) == loop
        assert first_too_deep(array, limit, lines) == loop


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
        assert error.row in bad, (error, bad)
        return
    assert not bad, bad
    assert result == values


@given(_FILES)
def test_the_checked_json_lines_reader_reads_what_json_loads_reads_or_names_a_bad_line(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "x.jsonl"
    path.write_bytes(data)
    _check(lambda p: read_json_records(resolve_source(p)), path, data)


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
