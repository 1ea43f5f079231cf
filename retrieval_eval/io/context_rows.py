"""Rows of RAG samples whose fields are lists: ragas' ``retrieved_context_ids``, ``reference_context_ids``,
``retrieved_contexts``, ``reference_contexts``, and lists of 0/1 verdicts (one per retrieved context).

Each list column is read as one flat Arrow array of its items with the int64 offsets of each row's
list (:class:`Lists`), column-wise: no Python object per item unless the input already is Python
objects (a list of dicts, a pandas object column).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from retrieval_eval.errors import InputError
from retrieval_eval.io.answer_rows import ID_FIELDS
from retrieval_eval.io.arrays import numpy_view, read_only
from retrieval_eval.io.coerce import as_ids, require_no_nulls, row_map_from_positions
from retrieval_eval.io.sources import SourceLike, resolve_source
from retrieval_eval.io.tables import load_columns

_FORMATS = ("jsonl", "json", "parquet", "dataframe", "table", "records")


@dataclass(frozen=True)
class Lists:
    """A list per row, flat: row ``i`` holds ``values[offsets[i]:offsets[i + 1]]`` (``offsets``: int64, n + 1, read-only).

    ``values`` are int64 or strings (ids), strings (texts) or int8 0/1 (verdicts); no nulls.
    """

    values: pa.Array
    offsets: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1


@dataclass(frozen=True)
class ContextRows:
    """The list columns found (canonical name -> :class:`Lists`), the user's name of each (for messages),
    the number of rows, the source's label, and the rows' id columns (as read), to tell the scores apart by."""

    lists: Mapping[str, Lists]
    fields: Mapping[str, str]
    num_rows: int
    source: str
    ids: Mapping[str, pa.ChunkedArray] = field(default_factory=dict)


def read_context_rows(
    source: SourceLike, columns: Mapping[str, tuple[str, str]], *, id_fields: Sequence[str] = ID_FIELDS
) -> ContextRows:
    """Read the list columns ``columns`` (canonical name -> (the source's column name, item kind)) that the
    source has, of a JSONL/JSON/parquet file, a DataFrame, a Table or a list of dicts.

    Every column is optional here (the caller says which it needs); names are matched case-insensitively,
    and so are ``id_fields``, kept as they are.

    Raises
    ------
    InputError
        Naming the source, row and field: a value that is not a list, a missing (null) list or item,
        an item of the wrong kind (an id that is neither an integer nor a string, a text that is not a
        string, a verdict other than 0, 1, true or false).
    """
    src = resolve_source(source)
    if src.format not in _FORMATS:
        raise InputError(
            f"samples with list fields cannot be read from a {src.format} file; use JSON Lines, JSON or "
            "parquet, a DataFrame, a Table or a list of dicts",
            source=src.label,
        )
    kept = {f"id:{name}": (name,) for name in id_fields}
    raw = load_columns(
        src,
        {**{canonical: (name,) for canonical, (name, _) in columns.items()}, **kept},
        {**dict.fromkeys(columns, "list"), **dict.fromkeys(kept, "id")},
        optional=[*columns, *kept],
    )
    lists = {
        canonical: _lists(raw.data[canonical], columns[canonical][1], src.label, raw.fields[canonical])
        for canonical in columns
        if canonical in raw.data
    }
    ids = {str(raw.fields[name]): raw.data[name] for name in kept if name in raw.data}
    fields = {canonical: raw.fields[canonical] for canonical in lists}
    return ContextRows(lists, fields, raw.num_rows, src.label, ids)


def _lists(column: pa.ChunkedArray, kind: str, label: str, field: str) -> Lists:
    lists = column.combine_chunks()
    if pa.types.is_null(lists.type):
        require_no_nulls(lists, source=label, field=field)  # raises: every row is null
    if not (pa.types.is_list(lists.type) or pa.types.is_large_list(lists.type) or pa.types.is_list_view(lists.type)):
        raise InputError(f"expected a list of {kind}, got {lists.type}", source=label, row=1, field=field)
    require_no_nulls(lists, source=label, field=field)
    values = pc.list_flatten(lists)
    offsets = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(numpy_view(pc.list_value_length(lists)), out=offsets[1:])
    rows = row_map_from_positions(numpy_view(pc.list_parent_indices(lists)) + 1)
    return Lists(_items(values, kind, label, field, rows), read_only(offsets))


def _items(values: pa.Array, kind: str, label: str, field: str, rows) -> pa.Array:
    """The items typed for their kind: ids (integers or strings), texts, verdicts (0/1 or booleans)."""
    if len(values) == 0:
        return pa.array([], type=pa.int8() if kind == "verdicts" else pa.string())
    require_no_nulls(values, source=label, field=field, rows=rows)
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if pa.types.is_string_view(values.type):
        values = values.cast(pa.large_string())
    if kind == "ids":
        return as_ids(values, source=label, field=field, rows=rows)
    if kind == "texts":
        if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
            raise InputError(f"expected lists of texts, got items of {values.type} (first: {values[0].as_py()!r})",
                             source=label, row=rows(0), field=field)  # fmt: skip
        return values
    if pa.types.is_boolean(values.type):
        return values.cast(pa.int8())
    if not pa.types.is_integer(values.type):
        raise InputError(f"expected lists of 0/1 verdicts, got items of {values.type} (first: {values[0].as_py()!r})",
                         source=label, row=rows(0), field=field)  # fmt: skip
    numbers = numpy_view(values)
    wrong = np.flatnonzero((numbers != 0) & (numbers != 1))
    if wrong.size:
        raise InputError(f"a verdict is 0 or 1, got {numbers[wrong[0]]}", source=label, row=rows(int(wrong[0])), field=field)
    return values.cast(pa.int8())
