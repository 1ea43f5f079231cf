"""Execution logs read raw: one JSON object per JSON Lines line or Parquet row, or the whole log as Arrow columns.

The records themselves (retrieval telemetry, with ``id``, ``response`` and ``invoked_tools``) are
described in :mod:`retrieval_eval.executions.batch.log`, which validates them; this module only
reads the files. A path ending in ``.parquet`` or ``.pq`` (in any case) is a Parquet log
(:func:`is_parquet_log`), any other JSON Lines.

- :func:`iter_log_objects`: each record as Python values, in file order: a JSON Lines line read as
  :mod:`.jsonio` reads JSON (UTF-8, at most ``MAX_DEPTH`` levels deep, no key repeated in an
  object; blank lines skipped), a Parquet row with every null field left out (Parquet cannot tell
  a missing field from a null one; a null element of a list stays null).
- :func:`read_json_lines_columns`, :func:`read_parquet_columns`: the whole log as Arrow reads it,
  against :data:`LOG_SCHEMA` (every field of the models with a type to check), or None wherever
  Arrow's reading could differ from the line-by-line one, so that the caller reads it that way.
  Arrow is given a JSON Lines file only when every line holds one value (checked on the bytes).
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from ..errors import InputError
from ..kernels.text.json_depth import json_nesting
from .formats import table_format
from .jsonio import MAX_DEPTH, parse_json_line

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
        ("invoked_tools", pa.list_(_TEXT)),  # the names; objects with a name make Arrow fail
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
#: The columns of a record itself, beside its executions.
RECORD_COLUMNS = ("id", "response", "invoked_tools")
# The fields the checks read, as paths below retrieval_executions (list levels left out).
_READ_FIELDS = frozenset(
    [("capability",), ("status",), ("queries", "queryString"), ("retrievalHits", "rank"), ("retrievalHits", "webUrl"),
     ("retrievalHits", "extracts", "text")]
)  # fmt: skip


def is_parquet_log(path: str) -> bool:
    """Whether ``path`` names a Parquet log (its extension is a parquet one of :mod:`.formats`: ``.parquet``
    or ``.pq``, in any case)."""
    return table_format(path) == "parquet"


def iter_log_objects(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each record of a log with its number (its line, or its row, from 1), in file order (see the module docstring).

    Raises
    ------
    InputError
        The file cannot be read; a line is not valid UTF-8 or JSON, nests too deep or repeats a key in
        an object (naming the line and column), or is not an object.
    """
    if is_parquet_log(path):
        with pq.ParquetFile(path) as file:
            rows = (row for batch in file.iter_batches() for row in batch.to_pylist())
            for number, row in enumerate(rows, start=1):
                yield number, _without_null_fields(row)
        return
    try:
        stream = open(path, "rb")
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror}", source=path) from exc
    with stream:
        for number, raw in enumerate(stream, start=1):
            record = _parse_line(raw, number, path)
            if record is not None:
                yield number, record


def _parse_line(raw: bytes, number: int, label: str) -> dict[str, Any] | None:
    record = parse_json_line(raw, label, number)
    if record is None or isinstance(record, dict):
        return record
    raise InputError(f"a record must be a JSON object, got {type(record).__name__}", source=label, row=number)


def _without_null_fields(value: Any) -> Any:
    """``value`` with every null field of its objects removed, at any depth (null elements of lists stay)."""
    if isinstance(value, dict):
        return {key: _without_null_fields(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_null_fields(item) for item in value]
    return value


def read_json_lines_columns(path: str) -> pa.Table | None:
    """A JSON Lines log read by Arrow against :data:`LOG_SCHEMA` (the other fields inferred), or None where its
    reading could differ from the line-by-line one (see :func:`iter_log_objects`): not valid UTF-8, a line nesting
    too deep, leaving a value open or holding two objects, a type the schema does not take, the raw form
    (``executions``)."""
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
    return table


def read_parquet_columns(path: str) -> pa.Table | None:
    """A Parquet log's :data:`RECORD_COLUMNS` (nulls of their type where the log has none) and its
    ``retrieval_executions`` with only the fields the checks read; None where the models might not take a value
    as Arrow reads it (a type that does not fit :data:`LOG_SCHEMA`, no ``retrieval_executions``, a field the checks
    read missing)."""
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
    return pa.table({name: _column(table, name) for name in (*RECORD_COLUMNS, "retrieval_executions")})


def _column(table: pa.Table, name: str) -> pa.ChunkedArray:
    """The column ``name`` of a log's table, or nulls of its type when the log has none."""
    if name in table.column_names:
        return table.column(name)
    return pa.chunked_array([pa.nulls(table.num_rows, LOG_SCHEMA.field(name).type)])


def _fits(actual: pa.DataType, expected: pa.DataType) -> bool:
    """Whether the models take every value of type ``actual`` where ``expected`` (a type of :data:`LOG_SCHEMA`) is,
    and the checks' flattening can read it.

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
    """The Parquet columns to read: the record columns and the fields the checks read; None when one of those fields is missing.

    Parquet stores each leaf field as a column; the Arrow schema lists them in the same order.
    """
    leaves = [leaf for field in file.schema_arrow for leaf in _leaves(field.type, (field.name,))]
    if len(leaves) != file.metadata.num_columns:  # a type whose leaves are not its fields (e.g. an extension type)
        return None
    wanted = {("retrieval_executions", *field) for field in _READ_FIELDS}
    if not wanted <= set(leaves):
        return None
    wanted |= {(name,) for name in RECORD_COLUMNS}
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
