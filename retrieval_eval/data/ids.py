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
from ..kernels.grouping import counting_sort, segment_starts
from ..kernels.hashing import fnv1a_hashes

_EMPTY_BYTES = np.empty(0, dtype=np.uint8)
_NO_OFFSETS = np.zeros(1, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class IdColumn:
    """One id column: ``keys`` (uint64 per row), and for strings the Arrow ``offsets``/``data`` buffers."""

    values: pa.Array
    keys: np.ndarray
    offsets: np.ndarray
    data: np.ndarray
    is_string: bool

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def kind(self) -> str:
        return "string" if self.is_string else "integer"


def id_column(column: pa.Array | pa.ChunkedArray, *, field: str, source: str) -> IdColumn:
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
        keys = values.to_numpy().view(np.uint64)
        return IdColumn(values, keys, _NO_OFFSETS, _EMPTY_BYTES, False)
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type) or pa.types.is_string_view(column.type):
        values = column.cast(pa.large_string())
        _, offsets_buffer, data_buffer = values.buffers()
        offsets = np.frombuffer(offsets_buffer, dtype=np.int64)[values.offset : values.offset + len(values) + 1]
        data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else _EMPTY_BYTES
        return IdColumn(values, fnv1a_hashes(offsets, data), offsets, data, True)
    raise InputError(f"ids must be strings or integers, found {column.type}", source=source, field=field)


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


def group_by_query(ids: IdColumn) -> QueryGroups:
    """Factorize query ids in order of first appearance and group rows by them.

    Only the heads of runs of equal consecutive ids are dictionary-encoded, so an input
    written query by query costs one linear pass and no sort.
    """
    n = len(ids)
    starts = segment_starts(ids.keys, ids.offsets, ids.data, ids.is_string)
    encoded = pc.dictionary_encode(ids.values.take(pa.array(starts)))
    head_codes = encoded.indices.to_numpy()
    query_ids = encoded.dictionary
    bounds = np.append(starts, n)
    if len(query_ids) == len(starts):
        return QueryGroups(query_ids, np.arange(n, dtype=np.int64), bounds.astype(np.int64))
    codes = np.repeat(head_codes.astype(np.int64), np.diff(bounds))
    order, offsets = counting_sort(codes, len(query_ids))
    return QueryGroups(query_ids, order, offsets)
