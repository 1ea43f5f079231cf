"""Execution logs: retrieval telemetry, one record per JSON Lines line or per Parquet row.

A record is a JSON object: ``{"id"?: string, "retrieval_executions": [...], "source"?: ...}``
(the normalized form) or ``{"id"?: string, "executions": [{"name", "status", "debugInfo"},
...]}`` (the raw Work IQ form); other keys are allowed. Two more keys serve the checks of the
agent's answer: ``response`` (a string: what the agent answered, for KeywordMatch) and
``invoked_tools`` (the tools or topics the agent invoked, for ToolUse: a list of names or of
objects with a ``name``, see :mod:`..checks.tool_use`); null or missing, either means "not recorded".
A record may leave out the executions when it has one of these two. Everything else but
``id`` is read by :func:`~..model.normalize.load_executions`, with its loader rules. Blank lines are
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
the reference's. The files are read raw by :mod:`retrieval_eval.io.execution_logs` (each line as
:mod:`retrieval_eval.io.jsonio` reads JSON; Arrow given the file only when every line holds one value);
here the records are validated and flattened.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ...errors import InputError
from ...io.execution_logs import (
    RECORD_COLUMNS,
    is_parquet_log,
    iter_log_objects,
    read_json_lines_columns,
    read_parquet_columns,
)
from ...io.sniff import PRETTY_JSON, check_kind, is_pretty_json, read_head
from ..checks.tool_use import INVOKED_TOOLS, tool_names
from ..model.models import RetrievalTelemetry
from ..model.normalize import load_executions
from .tables import ExecutionTables, flatten_nested, flatten_records


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
    load = _RecordLoader(label, "row" if is_parquet_log(label) else "line")
    for number, record in iter_log_objects(label):
        yield load(record, number)


class _RecordLoader:
    """The reference loading of a log's records, in order: the ``id`` rules, then :func:`~..model.normalize.load_executions`.

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
    if not is_parquet_log(label) and is_pretty_json(read_head(label)):
        raise InputError(
            f"{PRETTY_JSON}: an evaluation document is check's DOCUMENT, a log goes with --executions", source=label
        )
    check_kind(label, "parquet" if is_parquet_log(label) else "jsonl")
    try:
        tables = _read_parquet_with_arrow(label) if is_parquet_log(label) else _read_with_arrow(label)
        return tables if tables is not None else _read_reference(label)
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", source=label) from exc
    except pa.ArrowException as exc:  # Parquet's; the JSON Lines reading declines on Arrow's errors
        raise InputError(f"cannot read the file: {exc}", source=label) from exc


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


def _read_parquet_with_arrow(path: str) -> ExecutionTables | None:
    """The tables of a Parquet log from its columns, or None where the reference reading might differ."""
    table = read_parquet_columns(path)
    return None if table is None else _flattened(table)


def _read_with_arrow(path: str) -> ExecutionTables | None:
    """The tables of a JSON Lines log read by Arrow, or None where the reference reading might differ."""
    table = read_json_lines_columns(path)
    return None if table is None else _flattened(table)


def _flattened(table: pa.Table) -> ExecutionTables | None:
    return flatten_nested(*(table.column(name) for name in RECORD_COLUMNS), table.column("retrieval_executions"))
