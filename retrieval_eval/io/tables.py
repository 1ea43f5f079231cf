"""Load the needed columns of any tabular source as raw Arrow columns.

Tabular sources are CSV/TSV, JSON/JSON Lines and parquet files, pandas DataFrames,
pyarrow Tables (and polars frames, as Tables), lists of dicts, and the Python objects of
:mod:`retrieval_eval.io.ecosystem` (nested dicts, ranx objects, named tuples, ir_datasets
datasets). Each becomes, for every canonical column, the user's column as an Arrow array;
typing it (ids, scores, labels) is :mod:`retrieval_eval.io.coerce`'s job. Python objects are
touched only where the input already is Python objects (lists of dicts, nested dicts, named
tuples, pandas object columns) or on error paths.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.io.arrays import arrow_array, text_array
from retrieval_eval.io.columns import resolve_columns
from retrieval_eval.io.ecosystem import dataset_rows, nested_columns, tuple_columns
from retrieval_eval.io.jsonio import has_temporal, read_json_records, read_json_source
from retrieval_eval.io.mixed import conversion_error
from retrieval_eval.io.sources import Source, open_stream, read_all

if TYPE_CHECKING:
    import pandas as pd

_HEADER_BLOCK = 1 << 16
_COUNT_BLOCK = 16 << 20  # bytes read at a time to count quotes
_LINE_END = re.compile(rb"\r\n|\n|\r")
_QUOTE = ord('"')

#: Column names found -> canonical name -> the column chosen (see ``resolve_columns``).
Resolver = Callable[[Iterable[Hashable]], dict[str, Hashable]]


@dataclass(frozen=True)
class RawColumns:
    """The user's columns for each canonical name, not yet typed.

    Attributes
    ----------
    data:
        Canonical name -> the column's values.
    fields:
        Canonical name -> the user's column name (named in error messages).
    from_text:
        True for CSV/TSV, where a string column may still hold numbers to parse.
    num_rows:
        Number of data rows.
    """

    data: dict[str, pa.ChunkedArray]
    fields: dict[str, str]
    from_text: bool
    num_rows: int


def load_columns(
    src: Source,
    candidates: Mapping[str, Sequence[str]],
    roles: Mapping[str, str],
    *,
    overrides: Mapping[str, str] | None = None,
    optional: Iterable[str] = (),
) -> RawColumns:
    """Resolve and load the columns named by ``candidates`` from a tabular source.

    ``roles`` gives each canonical name's role: ``"id"``, ``"score"``, ``"relevance"``,
    ``"text"`` (free text, such as an answer), ``"list"`` (lists of ids, texts or verdicts) or
    ``"nested"`` (Azure's lists of objects). Roles decide how CSV columns are typed (ids stay
    strings) and how pandas/Python values convert (NaN is a missing value except in scores). They also
    decide what an ir_datasets dataset gives:
    its results (``scoreddocs_iter()``) when a ``"score"`` is wanted, else its judgments.

    Raises
    ------
    InputError
        A column is missing or ambiguous, the file cannot be parsed, a column mixes
        value types, or there are no data rows.
    """

    def resolve(found: Iterable[Hashable]) -> dict[str, Hashable]:
        return resolve_columns(
            found, candidates, source=src.label, overrides=overrides, optional=optional
        )

    fmt = src.format
    if fmt in ("table", "dataframe", "nested") and len(src.obj) == 0:
        # Before resolving columns: with no rows, that is the news.
        raise InputError("no rows", source=src.label)
    if fmt in ("csv", "tsv"):
        table, resolved = _read_csv(src, "," if fmt == "csv" else "\t", resolve)
        return _finish(src, table, resolved, from_text=True)
    if fmt == "parquet":
        table, resolved = read_parquet(src, resolve)
        return _finish(src, table, resolved, from_text=False)
    if fmt in ("json", "jsonl"):
        loaded = read_json_source(src)
        if isinstance(loaded, pa.Table):
            if loaded.num_rows == 0:  # blank lines only: no columns to resolve either
                return _checked(src, {}, {}, False, 0)
            resolved = resolve(loaded.column_names)
            types = {canonical: loaded.schema.field(str(name)).type for canonical, name in resolved.items()}
            if not any(_inexact(kind, roles[canonical]) for canonical, kind in types.items()):
                return _finish(src, loaded, resolved, from_text=False)
            # Arrow guessed timestamps from date-like strings (ids such as "2024-01-01"), or read
            # numbers as floats where only integers belong (an integer past int64, 2^63, becomes
            # 9.22e18): read again keeping the strings and the integers as written.
            loaded = read_json_records(src)
        return _from_records(src, loaded, roles, resolve)
    if fmt == "table":
        return _finish(src, src.obj, resolve(src.obj.column_names), from_text=False)
    if fmt == "records":
        return _from_records(src, src.obj, roles, resolve)
    if fmt == "dataframe":
        return _from_dataframe(src, src.obj, roles, resolve)
    if fmt == "nested":
        return _from_nested(src, candidates, roles, resolve, overrides)
    if fmt in ("tuples", "dataset"):
        rows = src.obj if fmt == "tuples" else dataset_rows(src.obj, src.label, scored="score" in roles.values())
        columns, resolved = tuple_columns(rows, resolve, src.label)
        return _from_columns(src, columns, resolved, roles)
    raise InputError(f"a {fmt} file has no named columns", source=src.label)


def _finish(
    src: Source, table: pa.Table, resolved: Mapping[str, Hashable], *, from_text: bool
) -> RawColumns:
    data = {canonical: table.column(name) for canonical, name in resolved.items()}
    return _checked(src, data, resolved, from_text, table.num_rows)


def _checked(
    src: Source,
    data: dict[str, pa.ChunkedArray],
    resolved: Mapping[str, Hashable],
    from_text: bool,
    num_rows: int,
) -> RawColumns:
    if num_rows == 0:
        raise InputError("empty file (no data rows)" if src.is_file else "no rows", source=src.label)
    fields = {canonical: str(name) for canonical, name in resolved.items()}
    return RawColumns(data, fields, from_text, num_rows)


def _from_records(
    src: Source, rows: object, roles: Mapping[str, str], resolve: Resolver
) -> RawColumns:
    if not isinstance(rows, list):
        raise InputError("expected a list of records (objects)", source=src.label)
    if not rows:  # before resolving columns: an empty list has none
        return _checked(src, {}, {}, False, 0)
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise InputError(
                f"expected a record (object), got {type(row).__name__}",
                source=src.label,
                row=number,
            )
    # Keys in first-seen order over all rows: later rows may add keys.
    resolved = resolve(dict.fromkeys(key for row in rows for key in row))
    data = {
        canonical: to_arrow(
            [row.get(name) for row in rows], roles[canonical], src.label, str(name)
        )
        for canonical, name in resolved.items()
    }
    return _checked(src, data, resolved, False, len(rows))


def _from_nested(
    src: Source,
    candidates: Mapping[str, Sequence[str]],
    roles: Mapping[str, str],
    resolve: Resolver,
    overrides: Mapping[str, str] | None,
) -> RawColumns:
    """``{query_id: {doc_id: value}}``: its levels are the columns, the value a score or a label."""
    if overrides:
        raise ConfigError("columns= does not apply to a nested dict {query_id: {doc_id: value}}: its levels are positional")
    value = "score" if "score" in candidates else "relevance"
    # Resolved as a table of these columns would be, so that a reader wanting other columns
    # (judgment groups) is told which it misses.
    resolved = resolve(("query_id", "doc_id", value))
    return _from_columns(src, nested_columns(src.obj, list(resolved), src.label), resolved, roles)


def _from_columns(
    src: Source, columns: Mapping[str, list], resolved: Mapping[str, Hashable], roles: Mapping[str, str]
) -> RawColumns:
    """Columns gathered as Python lists (canonical name -> values), converted as a list of dicts' are."""
    data = {canonical: to_arrow(columns[canonical], roles[canonical], src.label, str(name)) for canonical, name in resolved.items()}
    return _checked(src, data, resolved, False, len(next(iter(columns.values()), ())))


def _from_dataframe(
    src: Source, frame: pd.DataFrame, roles: Mapping[str, str], resolve: Resolver
) -> RawColumns:
    resolved = resolve(frame.columns)
    data = {
        canonical: to_arrow(frame[name], roles[canonical], src.label, str(name))
        for canonical, name in resolved.items()
    }
    return _checked(src, data, resolved, False, len(frame))


def _inexact(kind: pa.DataType, role: str) -> bool:
    """Whether Arrow's JSON reading may have changed a column of ``role``: timestamps guessed from text,
    or floats in a column that takes integers or text (ids, labels), which the exact reading names."""
    return has_temporal(kind) or (pa.types.is_floating(kind) and role not in ("score", "level", "nested"))


def to_arrow(values: Sequence | pd.Series, role: str, label: str, field: str) -> pa.ChunkedArray:
    """Convert Python values or a pandas Series to Arrow, naming the row that breaks it.

    NaN counts as missing (null) except for scores, where NaN is a value the data layer
    judges; so is it in Arrow's ``from_pandas`` convention.
    """
    try:
        plain = _plain_list_array(values, role) if isinstance(values, list) else None
        if plain is not None:
            return pa.chunked_array([plain])
        array = pa.array(values, from_pandas=role != "score")
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError) as exc:
        # OverflowError: a Python int beyond int64 (Arrow raises it bare).
        raise conversion_error(values, role, label, field, exc) from exc
    except UnicodeEncodeError:
        raise _lone_surrogate(values, label, field) from None
    # A pandas column backed by several Arrow chunks (pandas 3 strings from read_parquet) already
    # converts to a ChunkedArray; wrapping it again would rebuild it one Python value at a time.
    return array if isinstance(array, pa.ChunkedArray) else pa.chunked_array([array])


def _lone_surrogate(values: Sequence | pd.Series, label: str, field: str) -> InputError:
    """The error for a string no UTF-8 text can hold (a lone surrogate), naming its row."""
    listed = list(values)
    row = next(i for i, value in enumerate(listed, start=1) if isinstance(value, str) and not _encodes(value))
    return InputError(
        f"{listed[row - 1]!r} holds a lone surrogate, half of a pair and no character: it cannot be UTF-8 text",
        source=label, row=row, field=field,
    )  # fmt: skip


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _plain_list_array(values: list, role: str) -> pa.Array | None:
    """A list of only strs (ids, groups), only ints, or only floats (scores) as Arrow, through its
    bytes or numpy: ``pa.array`` imports pandas (0.3 s) to check for a Series. None for any other
    list, which ``pa.array`` converts (and names the value that breaks it)."""
    if not values or role not in ("id", "group", "text", "score", "relevance", "level"):
        return None
    if role in ("id", "group", "text"):
        try:
            return text_array(values)
        except (TypeError, UnicodeEncodeError):
            pass
    kinds = set(map(type, values))
    # Floats only as scores: elsewhere NaN means missing, which pa.array's from_pandas decides.
    if kinds == {float} and role == "score":
        return arrow_array(np.array(values, dtype=np.float64))
    if kinds == {int}:
        try:
            return arrow_array(np.array(values, dtype=np.int64))
        except OverflowError:  # past int64: pa.array's error names the value
            return None
    return None


def read_parquet(src: Source, resolve: Resolver) -> tuple[pa.Table, dict[str, Hashable]]:
    """The columns ``resolve`` chooses of a parquet file source (a file, gzipped or piped, or a partitioned
    dataset), and what it chose; a file Arrow cannot read is an :class:`InputError` naming it."""
    # Imported here, as every file format's module: each costs import time on every other path
    # (pyarrow.dataset about 0.15 s).
    import pyarrow.parquet as pq

    try:
        if src.path.is_dir():  # a partitioned dataset
            import pyarrow.dataset as pa_ds

            handle = str(src.path)
            names = pa_ds.dataset(handle, format="parquet", partitioning="hive").schema.names
        else:
            # A gzipped parquet file needs random access, so it is read into memory (as a
            # pipe's bytes already are).
            handle = pa.BufferReader(read_all(src)) if src.gzip or src.data is not None else str(src.path)
            names = pq.read_schema(handle).names
        resolved = resolve(names)
        return pq.read_table(handle, columns=[str(n) for n in resolved.values()]), resolved
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"cannot read parquet file: {exc}", source=src.label) from exc


def _read_csv(src: Source, delimiter: str, resolve: Resolver) -> tuple[pa.Table, dict[str, Hashable]]:
    import pyarrow.csv as pa_csv

    header = _read_header(src, delimiter)
    if header is None:
        raise InputError("empty file (no header line)", source=src.label)
    resolved = resolve(header)
    _check_quotes(src)
    # Every column is read as text: ids are strings whatever they look like ("001" must not
    # become 1), and labels and scores are parsed by the same text rules as in TREC files
    # (coerce.py), not by Arrow's type inference (which reads "0x10" as 16 and "2.0" as 2).
    convert = pa_csv.ConvertOptions(
        column_types={str(name): pa.string() for name in resolved.values()},
        include_columns=[str(n) for n in resolved.values()],
        null_values=[""],  # only an empty field is missing; "NA" may be a doc id
        strings_can_be_null=True,
    )
    # Quoted values with line breaks are rare and slow Arrow's parallel parsing down,
    # so they are allowed only on a second attempt.
    for newlines_in_values in (False, True):
        parse = pa_csv.ParseOptions(delimiter=delimiter, newlines_in_values=newlines_in_values)
        try:
            with open_stream(src) as stream:
                return pa_csv.read_csv(stream, parse_options=parse, convert_options=convert), resolved
        except pa.ArrowInvalid as exc:
            failure = exc
    raise _locate_csv_error(src, delimiter, failure) from failure


def _check_quotes(src: Source) -> None:
    """Raise if the double quotes of a CSV file do not pair up, naming the line of the last one.

    Arrow's reader takes a quoted field that is never closed as running to the end of the
    file, rows and all, without an error. In a well-formed file (RFC 4180) quotes come in
    pairs (around a field, or doubled inside one), so an odd count means a field left open,
    or a stray quote; where the count is odd, the last quote is the one left open.
    """
    quotes = 0
    with open_stream(src) as stream:
        # numpy counts a block about 3x as fast as bytes.count does.
        while (block := stream.read_buffer(_COUNT_BLOCK)).size:
            quotes += int(np.count_nonzero(np.frombuffer(block, dtype=np.uint8) == _QUOTE))
    if quotes % 2 == 0:
        return
    data = np.frombuffer(read_all(src), dtype=np.uint8)
    last = int(np.flatnonzero(data == _QUOTE)[-1])
    before = data[:last]
    # Lines end at \n, \r\n or a lone \r, as the reader ends them: count the \n and the \r
    # not followed by \n.
    lone_cr = (before[:-1] == ord("\r")) & (before[1:] != ord("\n")) if last else before[:0]
    line = 1 + int(np.count_nonzero(before == ord("\n"))) + int(np.count_nonzero(lone_cr)) + int(last > 0 and before[-1] == ord("\r"))
    raise InputError(
        f"unterminated quoted field: the double quote on line {line} is never closed "
        "(or is a stray quote: quotes must come in pairs)",
        source=src.label,
    )


def _read_header(src: Source, delimiter: str) -> list[str] | None:
    """The first non-empty line, split as CSV; None if there is none.

    As Arrow's reader, which takes it as the header: empty lines are skipped (a line of
    blanks is not empty), and lines end at LF, CRLF or a lone CR. Each byte is scanned
    once, so a huge first line costs its length, not its square.
    """
    head, start = bytearray(), 0  # the lines before ``start`` are empty
    with open_stream(src) as stream:
        while True:
            scanned = len(head)
            block = stream.read(_HEADER_BLOCK)
            head += block
            for end in _LINE_END.finditer(head, max(start, scanned)):
                if end.start() > start:
                    return _split_header(bytes(head[start : end.start()]), delimiter, src)
                start = end.end()
            if not block:
                break
    last = bytes(head[start:])
    return _split_header(last, delimiter, src) if last else None


def _split_header(line: bytes, delimiter: str, src: Source) -> list[str]:
    text = line.decode("utf-8-sig", errors="replace")
    try:
        return next(csv.reader([text], delimiter=delimiter))
    except csv.Error as exc:  # a quoted header name left open
        raise InputError(f"cannot parse the header line: {exc}", source=src.label, row=None) from exc


def _locate_csv_error(src: Source, delimiter: str, exc: pa.ArrowInvalid) -> InputError:
    """Re-scan a CSV file that Arrow rejected, to name the row at fault."""
    data = read_all(src).to_pybytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        return InputError(f"invalid UTF-8 text at line {line}", source=src.label, row=line)
    records = (r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter) if r)
    header = next(records, [])
    number = 0
    for number, record in enumerate(records, start=1):  # data rows, as Arrow counts them
        if len(record) != len(header):
            return InputError(
                f"expected {len(header)} fields (as in the header), found {len(record)}",
                source=src.label,
                row=number,
            )
    if number == 0:  # Arrow's reader fails on a header without a line end and nothing after
        return InputError("empty file (no data rows)", source=src.label)
    return InputError(f"cannot parse file: {exc}", source=src.label)
