"""What Qrels and Run share: a canonical table with its ids, grouped by query."""

from __future__ import annotations

import pyarrow as pa

from ._table import require_columns
from .ids import IdColumn, QueryGroups, group_by_query, id_column


class GroupedTable:
    """A canonical table (``query_id``, ``doc_id``, then ``value_column``) with ids as keys and rows grouped by query."""

    def __init__(self, table: pa.Table, value_column: str, source: str, *, queries: QueryGroups | None = None) -> None:
        """``queries``: the grouping, when the caller knows it (one query); else found from ``query_id``."""
        if not isinstance(table, pa.Table):
            # The constructor takes the canonical table the readers make; anything else is read first.
            kind = type(self).__name__
            raise TypeError(
                f"{kind}(...) takes the canonical pyarrow Table of a reader, got {type(table).__name__}: "
                f"read files, DataFrames and other sources with {kind}.read(source)"
            )
        columns = ("query_id", "doc_id", value_column)
        require_columns(table, columns, source)
        self.source = source
        self.table = table.select(list(columns))
        if queries is None:
            queries = group_by_query(id_column(table["query_id"], field="query_id", source=source, hashed=False))
        self.queries: QueryGroups = queries
        self.doc_ids: IdColumn = id_column(table["doc_id"], field="doc_id", source=source)

    @property
    def query_ids(self) -> pa.Array:
        """The distinct query ids, in order of first appearance (query code -> id)."""
        return self.queries.query_ids

    @property
    def n_queries(self) -> int:
        return self.queries.n_queries

    def __len__(self) -> int:
        return self.table.num_rows
