"""Relevance judgments (qrels) as columnar arrays, indexed once and reused for every run."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

import numpy as np
import pyarrow as pa

from ..errors import InputError
from ..io import read_qrels_table, source_label
from ..io.arrays import numpy_view
from ..kernels.judgments import index_judgments
from ._grouped import GroupedTable
from ._table import describe_row, duplicate_policy_code, first_true, raise_on_duplicates
from .ids import IdLookup, QueryGroups, read_only


class Qrels(GroupedTable):
    """Judgments ``(query_id, doc_id, relevance)`` grouped by query.

    Relevance labels are integers. When a (query, document) pair is judged more than once,
    ``duplicates`` says which label counts: ``"last"`` (Azure's rule, the default), ``"first"``,
    ``"max"``, or ``"raise"``. Row counts per query still include the repeated rows (Azure's
    ``total_ground_truth_documents``).

    Build with :meth:`read` (any file or table) or from a canonical Arrow table with the
    constructor.
    """

    def __init__(
        self, table: pa.Table, *, source: str = "<qrels>", duplicates: str = "last", queries: QueryGroups | None = None
    ) -> None:
        policy = duplicate_policy_code(duplicates, what="qrels duplicates")
        super().__init__(table, "relevance", source, queries=queries)
        self.labels = _integer_labels(table["relevance"], source)
        index = index_judgments(
            self.queries.offsets,
            self.queries.order,
            self.doc_ids.keys,
            self.doc_ids.offsets,
            self.doc_ids.data,
            self.doc_ids.is_string,
            self.labels,
            policy,
        )
        (self.judged_rows, self.judged_keys, self.judged_labels, self.ideal_labels, self.n_judged, duplicate_rows) = map(
            read_only, index
        )
        raise_on_duplicates(duplicate_rows, self.table, source, "is judged more than once (qrels_duplicates='raise'; 'last', 'first' or 'max' keeps one label)")

    @classmethod
    def read(
        cls,
        source: Any,
        *,
        columns: Mapping[str, str] | None = None,
        format: str | None = None,
        duplicates: str = "last",
    ) -> "Qrels":
        """Read qrels from a path (TREC, parquet, CSV/TSV, JSONL; optionally .gz), a DataFrame, a Table or rows."""
        if isinstance(source, Qrels):
            return source
        table = read_qrels_table(source, columns=columns, format=format)
        return cls(table, source=source_label(source), duplicates=duplicates)

    @cached_property
    def query_lookup(self) -> IdLookup:
        """Where a run's query ids are among the judged queries (built on first use)."""
        return IdLookup.of(self.query_ids)

    @property
    def nbytes(self) -> int:
        """Bytes held in memory: the table and the index built over it."""
        arrays = (
            self.labels,
            self.judged_rows,
            self.judged_keys,
            self.judged_labels,
            self.ideal_labels,
            self.n_judged,
            self.doc_ids.keys,
            self.doc_ids.offsets,
            self.queries.order,
            self.queries.offsets,
        )
        return self.table.nbytes + sum(array.nbytes for array in arrays)

    def __repr__(self) -> str:
        return f"Qrels({self.source!r}, queries={self.n_queries}, rows={len(self)})"

    def check_label_range(self, label_min: int, label_max: int, *, option: str = "label range") -> None:
        """Raise :class:`InputError` naming the first label outside ``[label_min, label_max]``."""
        outside = (self.labels < label_min) | (self.labels > label_max)
        if outside.any():
            row = first_true(outside)
            raise InputError(
                f"{int(outside.sum())} label(s) outside the {option} [{label_min}, {label_max}], first "
                f"{int(self.labels[row])} ({describe_row(self.table, row)}); set the {option} to match your data",
                source=self.source,
                row=row + 1,
                field="relevance",
            )


def _integer_labels(column: pa.ChunkedArray, source: str) -> np.ndarray:
    if not pa.types.is_integer(column.type):
        raise InputError(f"relevance labels must be integers, found {column.type}", source=source, field="relevance")
    if column.null_count:
        row = first_true(column.is_null().to_numpy(zero_copy_only=False))
        raise InputError("missing relevance label", source=source, row=row + 1, field="relevance")
    return read_only(numpy_view(column.cast(pa.int64())))

