"""Ids as integer keys: query ids factorized into codes, document ids kept as keys plus bytes.

Ids are strings or integers. A string id's key is the FNV-1a 64 hash of its UTF-8 bytes and
equality is always confirmed on the bytes; an integer id's key is its value. Ids are never
turned into floats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..io.arrays import arrow_array, numpy_view, read_only, string_buffers
from ..kernels.core.grouping import counting_sort, segment_starts
from ..kernels.core.hashing import fnv1a_hashes
from ..kernels.core.lookup import positions_by_key

_EMPTY_BYTES = read_only(np.empty(0, dtype=np.uint8))
_NO_OFFSETS = read_only(np.zeros(1, dtype=np.int64))
_NO_KEYS = read_only(np.empty(0, dtype=np.uint64))


@dataclass(frozen=True, eq=False)
class IdColumn:
    """One id column: ``keys`` (uint64 per row), and for strings the Arrow ``offsets``/``data`` buffers.

    ``keys`` is empty for a string column built with ``hashed=False`` (grouping compares bytes).
    """

    values: pa.Array
    keys: np.ndarray
    offsets: np.ndarray
    data: np.ndarray
    is_string: bool

    def __len__(self) -> int:
        return len(self.values)

    @property
    def kind(self) -> str:
        return "string" if self.is_string else "integer"


def id_column(column: pa.Array | pa.ChunkedArray, *, field: str, source: str, hashed: bool = True) -> IdColumn:
    """Wrap an Arrow id column (string-like or integer) without per-row Python objects."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    if column.null_count:
        first = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0]) + 1
        raise InputError(f"{column.null_count} missing id(s)", source=source, row=first, field=field)
    if pa.types.is_integer(column.type):
        values = column.cast(pa.int64())
        return IdColumn(values, read_only(numpy_view(values).view(np.uint64)), _NO_OFFSETS, _EMPTY_BYTES, False)
    if pa.types.is_string_view(column.type):
        column = column.cast(pa.large_string())
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        offsets, data = string_buffers(column)
        keys = read_only(fnv1a_hashes(offsets, data)) if hashed else _NO_KEYS
        return IdColumn(column, keys, offsets, data, True)
    raise InputError(f"ids must be strings or integers, found {column.type}", source=source, field=field)


@dataclass(frozen=True, eq=False)
class IdLookup:
    """Where ids are among distinct ``ids``: keys sorted once, then a binary search per id, confirmed on the bytes.

    Built once per Qrels, it answers every run's (or chunk's) lookup of its query ids.
    """

    ids: IdColumn
    rows_by_key: np.ndarray
    sorted_keys: np.ndarray

    @classmethod
    def of(cls, ids: pa.Array) -> "IdLookup":
        column = id_column(ids, field="query_id", source="<ids>")
        rows = read_only(np.argsort(column.keys, kind="stable"))
        return cls(column, rows, read_only(column.keys[rows]))

    def positions(self, needles: pa.Array) -> np.ndarray:
        """The position of each needle in ``ids`` (-1 when absent); needles of the same kind (string or integer)."""
        wanted = id_column(needles, field="query_id", source="<ids>")
        return positions_by_key(
            wanted.keys,
            wanted.offsets,
            wanted.data,
            self.rows_by_key,
            self.sorted_keys,
            self.ids.offsets,
            self.ids.data,
            self.ids.is_string,
        )


@dataclass(frozen=True, eq=False)
class QueryGroups:
    """Rows grouped by query: query ``c`` owns rows ``order[offsets[c]:offsets[c + 1]]`` (input order kept)."""

    query_ids: pa.Array
    order: np.ndarray
    offsets: np.ndarray

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @property
    def rows_per_query(self) -> np.ndarray:
        return np.diff(self.offsets)

    @classmethod
    def one_query(cls, query_id: int, n_rows: int) -> "QueryGroups":
        """All ``n_rows`` rows belong to ``query_id`` (no query at all when there are no rows)."""
        ids = arrow_array(np.array([query_id] if n_rows else [], dtype=np.int64))
        offsets = np.array([0, n_rows] if n_rows else [0], dtype=np.int64)
        return cls(ids, read_only(np.arange(n_rows, dtype=np.int64)), read_only(offsets))


def group_by_query(ids: IdColumn) -> QueryGroups:
    """Factorize query ids in order of first appearance and group rows by them.

    Only the heads of runs of equal consecutive ids are dictionary-encoded, so an input
    written query by query costs one linear pass and no sort.
    """
    n = len(ids)
    starts = segment_starts(ids.keys, ids.offsets, ids.data, ids.is_string)
    encoded = pc.dictionary_encode(ids.values.take(arrow_array(starts)))
    head_codes = numpy_view(encoded.indices)
    query_ids = encoded.dictionary
    bounds = np.append(starts, n)
    if len(query_ids) == len(starts):
        return QueryGroups(query_ids, read_only(np.arange(n, dtype=np.int64)), read_only(bounds.astype(np.int64)))
    codes = np.repeat(head_codes.astype(np.int64), np.diff(bounds))
    order, offsets = counting_sort(codes, len(query_ids))
    return QueryGroups(query_ids, read_only(order), read_only(offsets))
