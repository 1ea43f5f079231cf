"""Execution logs: retrieval telemetry, one record per JSON Lines line or per Parquet row.

A record is a JSON object: ``{"id"?: string, "retrieval_executions": [...], "source"?: ...}``
(the normalized form) or ``{"id"?: string, "executions": [{"name", "status", "debugInfo"},
...]}`` (the raw Work IQ form); other keys are allowed. Two more keys serve the checks of the
agent's answer: ``response`` (a string: what the agent answered, for KeywordMatch) and
``invoked_tools`` (the tools or topics the agent invoked, for ToolUse: a list of names or of
objects with a ``name``, see :mod:`.tool_use`); null or missing, either means "not recorded".
A record may leave out the executions when it has one of these two. Everything else but
``id`` is read by :func:`~.normalize.load_executions`, with its loader rules. Blank lines are
skipped; ids, when given, must be strings and unique.

A Parquet log (a path ending in ``.parquet`` or ``.pq``) holds the same records, one per row,
one column per key: ``id`` (string), ``response`` (string), ``invoked_tools`` (a list of
strings, or of structs with a ``name``) and ``retrieval_executions`` (a list of structs with the
fields of the normalized form: ``capability``, ``status``, ``queries`` (a list of structs with
``queryString``, ...), ``retrievalHits`` (``rank``, ``webUrl``, ``extracts`` (``text``, ...),
...), ...), or ``executions`` in the raw form. Parquet cannot tell a missing field from a null
one, so a null field of a row or of a struct is read as missing (a null list of queries is no
queries, where JSON Lines' ``null`` is an error); a null element of a list stays null.

:func:`iter_execution_records` reads a log record by record (JSON Lines with the json module,
Parquet rows as Python values) and validates each with pydantic: the reference, with errors
naming the file, the line (or row, from 1) and the field. :func:`read_execution_log` gives the
same tables as flattening the reference's records, faster: Arrow reads the whole file (JSON
Lines against a schema of the normalized form; Parquet's columns as they are, only the fields
the checks read), and wherever Arrow's reading could differ from the reference (a type that
does not fit the models, the raw form, missing lists, invalid UTF-8, two objects on one line,
duplicate ids, ...), the file is read the reference way, so that the result and the errors are
the reference's. Each line is read as :mod:`retrieval_eval.io.jsonio` reads JSON: UTF-8, at most
``MAX_DEPTH`` levels deep (checked on the bytes before Arrow or the json module parse them), no
key repeated in an object; Arrow is given the file only when every line holds one value.
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from ...errors import InputError
from ...io.jsonio import MAX_DEPTH, parse_json_line
from ...io.sniff import PRETTY_JSON, check_kind, is_pretty_json, read_head
from ...kernels.text.json_depth import json_nesting
from ..model.models import RetrievalTelemetry
from ..model.normalize import load_executions
from .tables import ExecutionTables, flatten_nested, flatten_records
from ..checks.tool_use import INVOKED_TOOLS, tool_names

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
        ("response", _TEXT),
        (INVOKED_TOOLS, pa.list_(_TEXT)),  # the names; objects with a name make Arrow fail
        ("source", _TEXT),
        ("retrieval_executions", pa.list_(_EXECUTION)),
        ("raw_artifact", pa.struct([])),  # any object
    ]
)
# Other fields are parsed too ("infer", not "ignore"), so that Arrow refuses a key repeated anywhere in a
# record, as the reference reading does (then that reading names it); a field whose type changes
# between records makes Arrow fail as well (and the reference reading takes the log).
_PARSE = pa_json.ParseOptions(explicit_schema=LOG_SCHEMA, unexpected_field_behavior="infer")
# Larger blocks parse faster; a line longer than a block makes Arrow fail (and the reference reads it).
_BLOCK_BYTES = 64 << 20
_SCAN_BYTES = 1 << 20  # small enough for the comparison to stay in cache
_WINDOW_BYTES = 64 << 20
_JSON_SPACE = b" \t\r"
_BOM = b"\xef\xbb\xbf"
PARQUET_SUFFIXES = (".parquet", ".pq")
# The columns of a record itself, beside its executions, in flatten_nested's order.
_RECORD_COLUMNS = ("id", "response", INVOKED_TOOLS)
# The fields flatten_nested reads, as paths below retrieval_executions (list levels left out).
_READ_FIELDS = frozenset(
    [("capability",), ("status",), ("queries", "queryString"), ("retrievalHits", "rank"), ("retrievalHits", "webUrl"),
     ("retrievalHits", "extracts", "text")]
)  # fmt: skip


@dataclass(frozen=True)
class ExecutionRecord:
    """One record of an execution log: its line (JSON Lines) or row (Parquet), from 1; its ``id`` (None: none); its telemetry.

    ``has_executions`` is False for a record without executions (its telemetry is then empty);
    ``response`` and ``invoked_tools`` (the names) are None when not recorded.
    """

    line: int
    id: str | None
    telemetry: RetrievalTelemetry
    has_executions: bool = True
    response: str | None = None
    invoked_tools: tuple[str, ...] | None = None


def iter_execution_records(path: str | os.PathLike[str]) -> Iterator[ExecutionRecord]:
    """The records of a log, in file order, validated one at a time: the reference reading.

    Raises
    ------
    InputError
        The file cannot be read; a line is not valid UTF-8 or JSON, nests too deep or repeats a key
        in an object (naming the line and column), or is not an object; an ``id`` is not a string or repeats an earlier one (naming both
        lines); a record cannot be loaded (naming the line and the field). For a Parquet log, the
        same with its rows.
    """
    label = os.fspath(path)
    if _is_parquet(label):
        yield from _parquet_records(label)
        return
    load = _RecordLoader(label, "line")
    try:
        stream = open(label, "rb")
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror}", source=label) from exc
    with stream:
        for number, raw in enumerate(stream, start=1):
            record = _parse_line(raw, number, label)
            if record is not None:
                yield load(record, number)


class _RecordLoader:
    """The reference loading of a log's records, in order: the ``id`` rules, then :func:`~.normalize.load_executions`.

    Errors name the file, the record's number (``unit``: its line, or its row) and the field.
    """

    def __init__(self, label: str, unit: str) -> None:
        self.label = label
        self.unit = unit
        self.first: dict[str, int] = {}  # the number of each id's record

    def __call__(self, record: dict[str, Any], number: int) -> ExecutionRecord:
        record_id = record.pop("id", None)
        if record_id is not None:
            if not isinstance(record_id, str):
                message = f"must be a string, got {type(record_id).__name__}"
                raise InputError(message, source=self.label, row=number, field="id")
            if record_id in self.first:
                message = f"duplicate id {record_id!r} (first on {self.unit} {self.first[record_id]})"
                raise InputError(message, source=self.label, row=number, field="id")
            self.first[record_id] = number
        response = record.pop("response", None)
        if response is not None and not isinstance(response, str):
            message = f"must be a string, got {type(response).__name__}"
            raise InputError(message, source=self.label, row=number, field="response")
        tools = record.pop(INVOKED_TOOLS, None)
        answered = response is not None or tools is not None
        has_executions = not answered or "retrieval_executions" in record or "executions" in record
        try:
            names = None if tools is None else tuple(tool_names(tools))
            telemetry = load_executions(record) if has_executions else RetrievalTelemetry()
        except InputError as exc:
            raise InputError(exc.detail, source=self.label, row=number, field=exc.field) from None
        return ExecutionRecord(number, record_id, telemetry, has_executions, response, names)


def _parse_line(raw: bytes, number: int, label: str) -> dict[str, Any] | None:
    record = parse_json_line(raw, label, number)
    if record is None or isinstance(record, dict):
        return record
    raise InputError(f"a record must be a JSON object, got {type(record).__name__}", source=label, row=number)


def read_execution_log(path: str | os.PathLike[str]) -> ExecutionTables:
    """The tables of a log (see the module docstring): Arrow's reading when it agrees, else the reference's.

    A path ending in ``.parquet`` or ``.pq`` (in any case) is a Parquet log; any other, JSON Lines.

    Raises
    ------
    InputError
        The file cannot be read (or is no Parquet file); as :func:`iter_execution_records` for
        JSON Lines, and with the same errors, naming the row, for Parquet's records.
    """
    label = os.fspath(path)
    if not _is_parquet(label) and is_pretty_json(read_head(label)):
        raise InputError(
            f"{PRETTY_JSON}: an evaluation document is check's DOCUMENT, a log goes with --executions", source=label
        )
    check_kind(label, "parquet" if _is_parquet(label) else "jsonl")
    try:
        tables = _read_parquet_with_arrow(label) if _is_parquet(label) else _read_with_arrow(label)
        return tables if tables is not None else _read_reference(label)
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", source=label) from exc
    except pa.ArrowException as exc:  # Parquet's; the JSON Lines reading declines on Arrow's errors
        raise InputError(f"cannot read the file: {exc}", source=label) from exc


def _is_parquet(path: str) -> bool:
    return Path(path).suffix.lower() in PARQUET_SUFFIXES


def _read_reference(path: str) -> ExecutionTables:
    """The reference reading: the records loaded one by one, then flattened; errors name the record's line or row."""
    records = list(iter_execution_records(path))
    numbers = [record.line for record in records]
    try:
        return flatten_records(
            [record.telemetry for record in records],
            ids=[record.id for record in records],
            responses=[record.response for record in records],
            invoked_tools=[record.invoked_tools for record in records],
        )
    except InputError as exc:  # flatten_records numbers the records from 1, not as the file does
        row = None if exc.row is None else numbers[exc.row - 1]
        raise InputError(exc.detail, source=path, row=row, field=exc.field) from None


def _parquet_records(path: str) -> Iterator[ExecutionRecord]:
    """Each row of a Parquet log, numbered from 1, with its id and telemetry: its Python values, null fields left out."""
    load = _RecordLoader(path, "row")
    with pq.ParquetFile(path) as file:
        rows = (row for batch in file.iter_batches() for row in batch.to_pylist())
        for number, row in enumerate(rows, start=1):
            yield load(_without_null_fields(row), number)


def _without_null_fields(value: Any) -> Any:
    """``value`` with every null field of its objects removed, at any depth (null elements of lists stay)."""
    if isinstance(value, dict):
        return {key: _without_null_fields(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_null_fields(item) for item in value]
    return value


def _read_parquet_with_arrow(path: str) -> ExecutionTables | None:
    """The tables of a Parquet log from its columns, or None where the reference reading might differ."""
    with pq.ParquetFile(path) as file:
        schema = file.schema_arrow
        known = [field for field in schema if field.name in LOG_SCHEMA.names]
        if "retrieval_executions" not in schema.names or not all(
            _fits(field.type, LOG_SCHEMA.field(field.name).type) for field in known
        ):
            return None
        columns = _read_columns(file)
        if columns is None:
            return None
        table = file.read(columns=columns)
    return flatten_nested(*(_column(table, name) for name in _RECORD_COLUMNS), table.column("retrieval_executions"))


def _column(table: pa.Table, name: str) -> pa.ChunkedArray:
    """The column ``name`` of a record table, or nulls of its type when the log has none."""
    if name in table.column_names:
        return table.column(name)
    return pa.chunked_array([pa.nulls(table.num_rows, LOG_SCHEMA.field(name).type)])


def _fits(actual: pa.DataType, expected: pa.DataType) -> bool:
    """Whether the models take every value of type ``actual`` where ``expected`` (a type of :data:`LOG_SCHEMA`) is,
    and :func:`~.tables.flatten_nested` can read it.

    Strings for strings; integers within 64 bits for integers; those or 32- and 64-bit floats for
    numbers; nulls for scalars and objects; lists (not null) of structs for lists; a struct for a
    struct, whose fields that ``expected`` has fit, and whose others may be anything (the models
    keep them as they are).
    """
    if pa.types.is_null(actual):
        return not pa.types.is_list(expected)
    if pa.types.is_struct(expected):
        return pa.types.is_struct(actual) and all(
            _fits(field.type, expected.field(field.name).type)
            for field in actual
            if expected.get_field_index(field.name) >= 0
        )
    if pa.types.is_list(expected):
        return (pa.types.is_list(actual) or pa.types.is_large_list(actual)) and _fits(
            actual.value_type, expected.value_type
        )
    if expected == _TEXT:
        return pa.types.is_string(actual) or pa.types.is_large_string(actual)
    if pa.types.is_integer(actual):
        return actual != pa.uint64()
    return expected == _NUMBER and actual in (pa.float32(), pa.float64())


def _read_columns(file: pq.ParquetFile) -> list[str] | None:
    """The Parquet columns to read: ``id`` and the fields flatten_nested reads; None when one of those fields is missing.

    Parquet stores each leaf field as a column; the Arrow schema lists them in the same order.
    """
    leaves = [leaf for field in file.schema_arrow for leaf in _leaves(field.type, (field.name,))]
    if len(leaves) != file.metadata.num_columns:  # a type whose leaves are not its fields (e.g. an extension type)
        return None
    wanted = {("retrieval_executions", *field) for field in _READ_FIELDS}
    if not wanted <= set(leaves):
        return None
    wanted |= {(name,) for name in _RECORD_COLUMNS}
    return [file.schema.column(index).path for index, leaf in enumerate(leaves) if leaf in wanted]


def _leaves(kind: pa.DataType, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    """The paths of the leaf fields of a field of type ``kind`` at ``path``, depth first (list levels left out)."""
    if pa.types.is_struct(kind):
        for field in kind:
            yield from _leaves(field.type, (*path, field.name))
    elif pa.types.is_map(kind):
        yield from _leaves(kind.key_type, (*path, "key"))
        yield from _leaves(kind.item_type, (*path, "value"))
    elif pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        yield from _leaves(kind.value_type, path)
    else:
        yield path


def _read_with_arrow(path: str) -> ExecutionTables | None:
    objects = _object_lines(path)
    if objects is None:
        return None
    try:
        table = pa_json.read_json(path, pa_json.ReadOptions(block_size=_BLOCK_BYTES), _PARSE)
    except pa.ArrowInvalid:
        return None
    # Arrow reads "{...} {...}" on one line as two records; the reference rejects the line. Records in the
    # raw form ("executions") are the reference's too.
    if table.num_rows != objects or "executions" in table.column_names:
        return None
    return flatten_nested(*(table.column(name) for name in _RECORD_COLUMNS), table.column("retrieval_executions"))


def _object_lines(path: str) -> int | None:
    """The number of non-blank lines of the file, or None when it is not valid UTF-8, a line nests too deep
    (more than :data:`~retrieval_eval.io.jsonio.MAX_DEPTH` levels, where Arrow's reader could crash) or leaves
    a value open (Arrow's reader would parse on into the next lines).

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
    """The non-blank lines of ``window`` (whole lines), or None when they are not valid UTF-8, or one nests too
    deep or leaves a value open."""
    deep, not_one, non_ascii = json_nesting(window, MAX_DEPTH, True)
    if deep >= 0 or not_one >= 0:
        return None
    ends = _line_ends(window)
    starts = np.concatenate([[0], ends[:-1] + 1])
    if non_ascii:  # ASCII is UTF-8
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
