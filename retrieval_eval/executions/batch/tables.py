"""Retrieval executions as Arrow tables: one table per level, each row naming its parent by index.

An execution log of many records becomes five flat tables (:class:`ExecutionTables`); only the
fields the checks read are kept. Indices are 0-based row numbers of the parent table, and every
child table lists its rows in parent order (all children of parent 0, then of parent 1, ...),
in the order the input gave them: the checks rely on both.

Two ways in, with the same result: :func:`flatten_records` from telemetry objects (or anything
:func:`~..model.normalize.load_executions` reads), and :func:`flatten_nested` from the nested Arrow
columns of a log read by Arrow (JSON Lines or Parquet, see :mod:`.log`). Both apply the loader rules of
:mod:`..model.normalize`: the first by loading each record, the second by keeping to the inputs on
which it is sure to agree with loading them (it declines the others).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import InputError
from ..checks.tool_use import tool_names
from ..model.models import RetrievalTelemetry
from ..model.normalize import ExecutionsLike, load_executions

_INDEX = pa.int64()
_NAMES = pa.list_(pa.string())
RECORDS_SCHEMA = pa.schema([("id", pa.string()), ("response", pa.string()), ("invoked_tools", _NAMES)])
EXECUTIONS_SCHEMA = pa.schema([("record", _INDEX), ("capability", pa.string()), ("status", pa.string())])
QUERIES_SCHEMA = pa.schema([("execution", _INDEX), ("queryString", pa.string())])
HITS_SCHEMA = pa.schema([("execution", _INDEX), ("rank", pa.int64()), ("webUrl", pa.string())])
EXTRACTS_SCHEMA = pa.schema([("hit", _INDEX), ("text", pa.string())])
_INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class ExecutionTables:
    """The retrieval executions of many records, flattened.

    - ``records``: one row per record: ``id`` (string, null when the record has none),
      ``response`` (string, null: not recorded), ``invoked_tools`` (the names of the tools or
      topics invoked, in order: a list of non-empty strings, null: not recorded);
    - ``executions``: ``record`` (index into ``records``), ``capability``, ``status`` (null: none);
    - ``queries``: ``execution``, ``queryString`` (null: none);
    - ``hits``: ``execution``, ``rank`` (int64, >= 1), ``webUrl`` (null: none);
    - ``extracts``: ``hit`` (index into ``hits``), ``text``.

    A record without executions (no telemetry, or an empty list) has no rows below ``records``;
    the checks treat both alike (a retrieval failure).
    """

    records: pa.Table
    executions: pa.Table
    queries: pa.Table
    hits: pa.Table
    extracts: pa.Table

    @property
    def n_records(self) -> int:
        """The number of records."""
        return self.records.num_rows

    def equals(self, other: ExecutionTables) -> bool:
        """Same schemas and values in every table (chunk boundaries do not matter)."""
        return all(getattr(self, name).equals(getattr(other, name)) for name in _TABLES)


_TABLES = ("records", "executions", "queries", "hits", "extracts")


def flatten_records(
    records: Sequence[RetrievalTelemetry | ExecutionsLike | None],
    ids: Sequence[str | None] | None = None,
    *,
    responses: Sequence[str | None] | None = None,
    invoked_tools: Sequence[Any] | None = None,
) -> ExecutionTables:
    """The tables of ``records``: each is telemetry in any form :func:`~..model.normalize.load_executions` reads.

    None stands for a record without telemetry. ``ids`` (default: none) names the records;
    ``responses`` (strings) and ``invoked_tools`` (each an ``invoked_tools`` value, see
    :mod:`..checks.tool_use`) are theirs (default: none recorded; None for one record: not recorded).

    Raises
    ------
    InputError
        A record cannot be loaded, or its response or invoked tools are not of those shapes
        (naming its position as the row, and the field), or a rank does not fit in 64 bits
        (the per-item checks take any integer; the tables cannot).
    """
    for name, values in (("ids", ids), ("responses", responses), ("invoked_tools", invoked_tools)):
        if values is not None and len(values) != len(records):
            raise ValueError(f"{len(values)} {name} for {len(records)} records")
    columns = _Columns()
    for index, record in enumerate(records):
        if record is None:
            continue
        try:
            telemetry = load_executions(record)
        except InputError as exc:
            raise InputError(exc.detail, source=exc.source, row=index + 1, field=exc.field) from None
        columns.add(index, telemetry)
    none = [None] * len(records)
    for index, response in enumerate(responses or ()):
        if response is not None and not isinstance(response, str):
            raise InputError(f"must be a string, got {type(response).__name__}", row=index + 1, field="response")
    if invoked_tools is not None:
        invoked_tools = [_names(value, index) for index, value in enumerate(invoked_tools)]
    try:
        return columns.tables(
            pa.table(
                [none if values is None else list(values) for values in (ids, responses, invoked_tools)],
                schema=RECORDS_SCHEMA,
            )
        )
    except UnicodeEncodeError as exc:
        raise InputError("a string is not valid Unicode (it holds a lone surrogate)") from exc


def _names(value: Any, index: int) -> list[str] | None:
    if value is None:
        return None
    try:
        return tool_names(value)
    except InputError as exc:
        raise InputError(exc.detail, row=index + 1, field=exc.field) from None


class _Columns:
    """The flat columns, filled record by record."""

    def __init__(self) -> None:
        self.record: list[int] = []
        self.capability: list[str] = []
        self.status: list[str | None] = []
        self.query_execution: list[int] = []
        self.query_string: list[str | None] = []
        self.hit_execution: list[int] = []
        self.rank: list[int] = []
        self.web_url: list[str | None] = []
        self.extract_hit: list[int] = []
        self.text: list[str] = []

    def add(self, index: int, telemetry: RetrievalTelemetry) -> None:
        for position, execution in enumerate(telemetry.retrieval_executions):
            execution_index = len(self.record)
            self.record.append(index)
            self.capability.append(execution.capability)
            self.status.append(execution.status)
            for query in execution.queries:
                self.query_execution.append(execution_index)
                self.query_string.append(query.queryString)
            for number, hit in enumerate(execution.retrievalHits):
                if hit.rank > _INT64_MAX:
                    field = f"retrieval_executions[{position}].retrievalHits[{number}].rank"
                    raise InputError(f"rank {hit.rank} does not fit in 64 bits", row=index + 1, field=field)
                hit_index = len(self.rank)
                self.hit_execution.append(execution_index)
                self.rank.append(hit.rank)
                self.web_url.append(hit.webUrl)
                for extract in hit.extracts:
                    self.extract_hit.append(hit_index)
                    self.text.append(extract.text)

    def tables(self, records: pa.Table) -> ExecutionTables:
        return ExecutionTables(
            records=records,
            executions=_table(EXECUTIONS_SCHEMA, self.record, self.capability, self.status),
            queries=_table(QUERIES_SCHEMA, self.query_execution, self.query_string),
            hits=_table(HITS_SCHEMA, self.hit_execution, self.rank, self.web_url),
            extracts=_table(EXTRACTS_SCHEMA, self.extract_hit, self.text),
        )


def _table(schema: pa.Schema, *columns: list) -> pa.Table:
    return pa.table([pa.array(values, field.type) for values, field in zip(columns, schema)], schema=schema)


def flatten_nested(
    ids: pa.ChunkedArray, responses: pa.ChunkedArray, invoked_tools: pa.ChunkedArray, executions: pa.ChunkedArray
) -> ExecutionTables | None:
    """The tables of nested Arrow columns, or None where loading the records might disagree with them.

    ``ids`` and ``responses`` are string columns, ``invoked_tools`` a ``list<string>`` column
    (declined when a name is null or empty: loading rejects it); ``executions`` a ``list<struct<capability, status, queries:
    list<struct<queryString>>, retrievalHits: list<struct<rank: int64, webUrl, extracts:
    list<struct<text>>>>>>`` column, as Arrow reads the normalized form (other struct fields are
    ignored). Arrow cannot tell a missing field from a null, nor see the raw form's fields, so
    None (decline: load the records instead) is returned for: a null list of executions, a null
    execution or query, a missing or null list of queries, hits or extracts (of a ranked hit), a
    missing, null or empty capability, a rank below 1, and duplicate ids. What Arrow does
    represent is handled as loading would: a hit without a rank (or a null hit) is dropped, and
    so is an extract without text (or a null extract).
    """
    if _has_duplicates(ids) or not _valid_names(invoked_tools):
        return None
    parts: list[_Part] = []
    before = (0, 0, 0)  # the records, executions and hits of the earlier chunks
    for chunk in executions.chunks:
        part = _flatten_chunk(chunk)
        if part is None:
            return None
        parts.append(part.shifted(*before))
        before = (before[0] + len(chunk), before[1] + part.n_executions, before[2] + part.n_hits)
    return ExecutionTables(
        records=pa.table(
            [ids.cast(pa.string()), responses.cast(pa.string()), invoked_tools.cast(_NAMES)], schema=RECORDS_SCHEMA
        ),
        executions=_chunked_table(EXECUTIONS_SCHEMA, [(p.record, p.capability, p.status) for p in parts]),
        queries=_chunked_table(QUERIES_SCHEMA, [(p.query_execution, p.query_string) for p in parts]),
        hits=_chunked_table(HITS_SCHEMA, [(p.hit_execution, p.rank, p.web_url) for p in parts]),
        extracts=_chunked_table(EXTRACTS_SCHEMA, [(p.extract_hit, p.text) for p in parts]),
    )


@dataclass(frozen=True)
class _Part:
    """One chunk's flat columns; indices are local to the chunk until :meth:`shifted`."""

    record: np.ndarray
    capability: pa.Array
    status: pa.Array
    query_execution: np.ndarray
    query_string: pa.Array
    hit_execution: np.ndarray
    rank: pa.Array
    web_url: pa.Array
    extract_hit: np.ndarray
    text: pa.Array

    @property
    def n_executions(self) -> int:
        return len(self.capability)

    @property
    def n_hits(self) -> int:
        return len(self.rank)

    def shifted(self, records: int, executions: int, hits: int) -> _Part:
        """The part with its indices counted from the given numbers of earlier records, executions and hits."""
        return _Part(
            self.record + records, self.capability, self.status,
            self.query_execution + executions, self.query_string,
            self.hit_execution + executions, self.rank, self.web_url,
            self.extract_hit + hits, self.text,
        )  # fmt: skip


def _flatten_chunk(lists: pa.ListArray) -> _Part | None:
    if lists.null_count:
        return None
    executions = pc.list_flatten(lists)
    capability = pc.struct_field(executions, "capability")
    if executions.null_count or capability.null_count or _any(pc.equal(capability, "")):
        return None
    query_lists = pc.struct_field(executions, "queries")
    queries = pc.list_flatten(query_lists)
    hit_lists = pc.struct_field(executions, "retrievalHits")
    if query_lists.null_count or queries.null_count or hit_lists.null_count:
        return None
    hits = pc.list_flatten(hit_lists)
    hit_execution = _parents(hit_lists)
    rank = pc.struct_field(hits, "rank")
    if _any(pc.less(rank, 1)):
        return None
    if rank.null_count:  # hits without a rank are ignored, as the loader ignores them
        ranked = rank.is_valid()
        hits, rank, hit_execution = hits.filter(ranked), rank.filter(ranked), hit_execution[ranked.to_numpy(False)]
    extract_lists = pc.struct_field(hits, "extracts")
    if extract_lists.null_count:
        return None
    extract_hit = _parents(extract_lists)
    text = pc.struct_field(pc.list_flatten(extract_lists), "text")
    if text.null_count:  # so are extracts without text
        has_text = text.is_valid()
        text, extract_hit = text.filter(has_text), extract_hit[has_text.to_numpy(False)]
    return _Part(
        _parents(lists), capability, pc.struct_field(executions, "status"),
        _parents(query_lists), pc.struct_field(queries, "queryString"),
        hit_execution, rank, pc.struct_field(hits, "webUrl"),
        extract_hit, text,
    )  # fmt: skip


def _parents(lists: pa.ListArray) -> np.ndarray:
    return pc.list_parent_indices(lists).to_numpy().astype(np.int64, copy=False)


def _array(values: np.ndarray | pa.Array, kind: pa.DataType) -> pa.Array:
    return values.cast(kind) if isinstance(values, pa.Array) else pa.array(values, kind)


def _any(mask: pa.Array) -> bool:
    return bool(pc.any(mask).as_py())


def _valid_names(lists: pa.ChunkedArray) -> bool:
    names = pc.list_flatten(lists.cast(_NAMES))  # a Parquet column of empty lists may have null-typed names
    return names.null_count == 0 and not _any(pc.equal(pc.binary_length(names), 0))


def _has_duplicates(ids: pa.ChunkedArray) -> bool:
    named = ids.drop_null()
    return len(pc.unique(named)) != len(named)


def _chunked_table(schema: pa.Schema, parts: list[tuple]) -> pa.Table:
    columns = []
    for index, field in enumerate(schema):
        chunks = [_array(part[index], field.type) for part in parts]
        columns.append(pa.chunked_array(chunks, field.type))
    return pa.table(columns, schema=schema)
