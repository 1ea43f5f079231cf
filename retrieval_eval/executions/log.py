"""Execution logs: JSON Lines files of retrieval telemetry, one record per line.

A record is a JSON object: ``{"id"?: string, "retrieval_executions": [...], "source"?: ...}``
(the normalized form) or ``{"id"?: string, "executions": [{"name", "status", "debugInfo"},
...]}`` (the raw Work IQ form); other keys are allowed. Everything but ``id`` is read by
:func:`~.normalize.load_executions`, with its loader rules. Blank lines are skipped; ids, when
given, must be strings and unique.

:func:`iter_execution_records` reads record by record with the json module and pydantic: the
reference, with errors naming the file, the line and the field. :func:`read_execution_log`
gives the same tables as flattening those records, faster: Arrow parses the whole file against
a schema of the normalized form, and wherever Arrow's reading could differ from the reference
(a type that does not fit the schema, the raw form, missing lists, invalid UTF-8, two objects
on one line, duplicate ids, ...), the file is read the reference way, so that the result and
the errors are the reference's.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.json as pa_json

from ..errors import InputError
from .models import RetrievalTelemetry
from .normalize import load_executions
from .tables import ExecutionTables, flatten_nested, flatten_records

_TEXT = pa.string()
_NUMBER = pa.float64()
_INTEGER = pa.int64()
# Every field of the models with a type to check, so that a value the models reject makes Arrow
# fail (and the reference reading report it); resourceMetadata takes any value.
_EXTRACT = pa.struct([("text", _TEXT), ("relevanceScore", _NUMBER)])
_HIT = pa.struct(
    [("rank", _INTEGER), ("webUrl", _TEXT), ("extracts", pa.list_(_EXTRACT)), ("resourceType", _TEXT)]
)
_QUERY = pa.struct([("queryString", _TEXT), ("filterExpression", _TEXT), ("maximumNumberOfResults", _INTEGER)])
_EXECUTION = pa.struct(
    [
        ("capability", _TEXT),
        ("status", _TEXT),
        ("queries", pa.list_(_QUERY)),
        ("latencyMs", _NUMBER),
        ("totalResultCount", _INTEGER),
        ("retrievalHits", pa.list_(_HIT)),
        ("executionId", _TEXT),
        ("startedAt", _TEXT),
        ("completedAt", _TEXT),
    ]
)
LOG_SCHEMA = pa.schema(
    [
        ("id", _TEXT),
        ("source", _TEXT),
        ("retrieval_executions", pa.list_(_EXECUTION)),
        ("raw_artifact", pa.struct([])),  # any object
    ]
)
_PARSE = pa_json.ParseOptions(explicit_schema=LOG_SCHEMA, unexpected_field_behavior="ignore")
# Larger blocks parse faster; a line longer than a block makes Arrow fail (and the reference reads it).
_BLOCK_BYTES = 64 << 20
_SCAN_BYTES = 1 << 20  # small enough for the comparison to stay in cache
_WINDOW_BYTES = 64 << 20
_JSON_SPACE = b" \t\r"
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class ExecutionRecord:
    """One record of an execution log: its line (1-based), its ``id`` (None: none) and its telemetry."""

    line: int
    id: str | None
    telemetry: RetrievalTelemetry


def iter_execution_records(path: str | os.PathLike[str]) -> Iterator[ExecutionRecord]:
    """The records of a log, in file order, validated one line at a time.

    Raises
    ------
    InputError
        The file cannot be read; a line is not valid UTF-8 or JSON (naming the line and column),
        or not an object; an ``id`` is not a string or repeats an earlier one (naming both
        lines); a record cannot be loaded (naming the line and the field).
    """
    label = os.fspath(path)
    first_line: dict[str, int] = {}
    try:
        stream = open(label, "rb")
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror}", source=label) from exc
    with stream:
        for number, raw in enumerate(stream, start=1):
            record = _parse_line(raw, number, label)
            if record is None:
                continue
            record_id = record.pop("id", None)
            if record_id is not None:
                if not isinstance(record_id, str):
                    message = f"must be a string, got {type(record_id).__name__}"
                    raise InputError(message, source=label, row=number, field="id")
                if record_id in first_line:
                    message = f"duplicate id {record_id!r} (first on line {first_line[record_id]})"
                    raise InputError(message, source=label, row=number, field="id")
                first_line[record_id] = number
            try:
                telemetry = load_executions(record)
            except InputError as exc:
                raise InputError(exc.detail, source=label, row=number, field=exc.field) from None
            yield ExecutionRecord(number, record_id, telemetry)


def _parse_line(raw: bytes, number: int, label: str) -> dict[str, Any] | None:
    try:
        # A byte-order mark may open the file, as Arrow allows it there too.
        text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError:
        raise InputError("invalid UTF-8 text", source=label, row=number) from None
    if not text.strip():
        return None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON at column {exc.colno}: {exc.msg}", source=label, row=number) from None
    if not isinstance(record, dict):
        raise InputError(f"a record must be a JSON object, got {type(record).__name__}", source=label, row=number)
    return record


def read_execution_log(path: str | os.PathLike[str]) -> ExecutionTables:
    """The tables of a log (see the module docstring): Arrow's reading when it agrees, else the reference's.

    Raises
    ------
    InputError
        As :func:`iter_execution_records`.
    """
    label = os.fspath(path)
    try:
        tables = _read_with_arrow(label)
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", source=label) from exc
    if tables is not None:
        return tables
    records = list(iter_execution_records(label))
    return flatten_records([record.telemetry for record in records], ids=[record.id for record in records])


def _read_with_arrow(path: str) -> ExecutionTables | None:
    objects = _object_lines(path)
    if objects is None:
        return None
    try:
        table = pa_json.read_json(path, pa_json.ReadOptions(block_size=_BLOCK_BYTES), _PARSE)
    except pa.ArrowInvalid:
        return None
    # Arrow reads "{...} {...}" on one line as two records; the reference rejects the line.
    if table.num_rows != objects:
        return None
    return flatten_nested(table.column("id"), table.column("retrieval_executions"))


def _object_lines(path: str) -> int | None:
    """The number of non-blank lines of the file, or None when it is not valid UTF-8.

    The file is read through a memory map, a window of whole lines at a time; each window's pages
    are let go once counted, so that the file does not stay in the process's memory.
    """
    with open(path, "rb") as file:
        if os.fstat(file.fileno()).st_size == 0:
            return 0
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        objects = 0
        start = len(_BOM) if mapped[: len(_BOM)] == _BOM else 0
        while start < len(mapped):
            stop = _window_end(mapped, start)
            counted = _object_lines_in(np.frombuffer(mapped, dtype=np.uint8, count=stop - start, offset=start))
            if counted is None:
                return None
            objects += counted
            _release(mapped, start, stop)
            start = stop
        return objects
    finally:
        with contextlib.suppress(BufferError):  # a view still in use: the map closes when collected
            mapped.close()


def _window_end(mapped: mmap.mmap, start: int) -> int:
    """Where the window from ``start`` ends: after its last newline, or at the end of the data.

    A line longer than a window makes a window of its own.
    """
    limit = start + _WINDOW_BYTES
    if limit >= len(mapped):
        return len(mapped)
    last = mapped.rfind(b"\n", start, limit)
    if last >= 0:
        return last + 1
    following = mapped.find(b"\n", limit)
    return following + 1 if following >= 0 else len(mapped)


def _release(mapped: mmap.mmap, start: int, stop: int) -> None:
    """Let the process's mapping of the whole pages in ``start:stop`` go (the file stays cached by the system)."""
    first, last = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE, stop // mmap.PAGESIZE * mmap.PAGESIZE
    if hasattr(mmap, "MADV_DONTNEED") and last > first:
        mapped.madvise(mmap.MADV_DONTNEED, first, last - first)


def _object_lines_in(window: np.ndarray) -> int | None:
    """The non-blank lines of ``window`` (whole lines), or None when they are not valid UTF-8."""
    ends = _line_ends(window)
    starts = np.concatenate([[0], ends[:-1] + 1])
    offsets = pa.py_buffer(np.append(starts, window.size))
    try:
        pa.Array.from_buffers(pa.large_string(), len(starts), [None, offsets, pa.py_buffer(window)]).validate(full=True)
    except pa.ArrowInvalid:
        return None
    filled = ends > starts
    # A line that opens with "{" holds an object (or Arrow fails); any other is blank unless it has
    # more than JSON white space (then Arrow fails, or reads a value that is no record).
    opens_object = filled.copy()
    opens_object[filled] = window[starts[filled]] == ord("{")
    others = np.flatnonzero(filled & ~opens_object)
    return int(opens_object.sum()) + sum(bool(window[starts[i] : ends[i]].tobytes().strip(_JSON_SPACE)) for i in others)


def _line_ends(raw: np.ndarray) -> np.ndarray:
    """Where each line ends: the position of each newline, then the end of the data."""
    pieces = [
        np.flatnonzero(raw[start : start + _SCAN_BYTES] == ord("\n")) + start for start in range(0, raw.size, _SCAN_BYTES)
    ]
    return np.concatenate(pieces + [np.array([raw.size], dtype=np.int64)]).astype(np.int64, copy=False)
