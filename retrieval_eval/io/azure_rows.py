"""Azure-style evaluation rows: one record per query with nested ground truth and results.

Each record has ``retrieval_ground_truth`` (a list of ``{document_id,
query_relevance_label}``) and ``retrieved_documents`` (a list of ``{document_id,
relevance_score}``), the inputs of azure-ai-evaluation's DocumentRetrievalEvaluator.
The nested lists are flattened column-wise (``list_flatten`` / ``list_parent_indices``),
never with a Python loop per document.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from retrieval_eval.errors import InputError
from retrieval_eval.io.arrays import arrow_array, numpy_view
from retrieval_eval.io.coerce import (
    as_ids,
    as_relevance,
    as_scores,
    require_no_nulls,
    row_map_from_positions,
)
from retrieval_eval.io.sources import SourceLike, resolve_source
from retrieval_eval.io.tables import load_columns

GROUND_TRUTH = "retrieval_ground_truth"
RETRIEVED = "retrieved_documents"
DOCUMENT_ID = "document_id"
LABEL = "query_relevance_label"
SCORE = "relevance_score"

_FORMATS = ("jsonl", "json", "parquet", "dataframe", "table", "records")


@dataclass(frozen=True)
class AzureRows:
    """Qrels and run read from Azure-style rows.

    Attributes
    ----------
    qrels:
        ``query_id``, ``doc_id``, ``relevance`` (int64): every ground-truth item.
    run:
        ``query_id``, ``doc_id``, ``score`` (float64): every retrieved item.
    query_ids:
        Every row's query id, in row order, so that a query that retrieved nothing
        (an empty ``retrieved_documents`` list, absent from ``run``) is still known.
    """

    qrels: pa.Table
    run: pa.Table
    query_ids: pa.Array


def read_azure_rows(source: SourceLike, *, query_id_field: str = "query_id") -> AzureRows:
    """Read Azure-style rows into qrels and run tables.

    Parameters
    ----------
    source:
        A ``.jsonl``/``.ndjson``, ``.json`` or ``.parquet`` file (optionally ``.gz``),
        a pandas DataFrame, a pyarrow Table or a list of dicts.
    query_id_field:
        The column holding each row's query id (matched case-insensitively). When the
        source has no such column, the query id is the 1-based row number (int64).

    Returns
    -------
    AzureRows

    Raises
    ------
    InputError
        Naming the row and field: a ground-truth list that is null or empty (as the
        Azure SDK rejects it), a null ``retrieved_documents`` (an empty list is fine:
        the query retrieved nothing), a value that is not a list of objects, an item
        without ``document_id`` or its label/score, or a value of the wrong type.

    Examples
    --------
    ``[{"retrieval_ground_truth": [{"document_id": "a", "query_relevance_label": 2}],
    "retrieved_documents": []}]`` gives one qrels row ``(1, "a", 2)``, an empty run and
    ``query_ids == [1]``.
    """
    src = resolve_source(source)
    if src.format not in _FORMATS:
        raise InputError(
            f"Azure rows cannot be read from a {src.format} file; use JSON Lines, JSON "
            "or parquet, a DataFrame, a Table or a list of dicts",
            source=src.label,
        )
    raw = load_columns(
        src,
        {"query_id": (query_id_field,), GROUND_TRUTH: (GROUND_TRUTH,), RETRIEVED: (RETRIEVED,)},
        {"query_id": "id", GROUND_TRUTH: "nested", RETRIEVED: "nested"},
        optional=("query_id",),
    )
    if "query_id" in raw.data:
        query_ids = as_ids(raw.data["query_id"], source=src.label, field=raw.fields["query_id"])
        query_ids = query_ids.combine_chunks()
    else:
        query_ids = arrow_array(np.arange(1, raw.num_rows + 1, dtype=np.int64))

    truth = _Items(raw.data[GROUND_TRUTH], raw.fields[GROUND_TRUTH], src.label, allow_empty=False)
    found = _Items(raw.data[RETRIEVED], raw.fields[RETRIEVED], src.label, allow_empty=True)
    truth_docs = truth.field(DOCUMENT_ID, as_ids)
    qrels = pa.table(
        {
            "query_id": query_ids.take(truth.parents),
            "doc_id": truth_docs,
            "relevance": truth.field(LABEL, as_relevance),
        }
    )
    if found.empty:
        # Nothing retrieved anywhere: type the empty run like the qrels so that the two
        # can be joined.
        run_docs, scores = truth_docs.slice(0, 0), arrow_array(np.empty(0, dtype=np.float64))
    else:
        run_docs, scores = found.field(DOCUMENT_ID, as_ids), found.field(SCORE, as_scores)
    run = pa.table({"query_id": query_ids.take(found.parents), "doc_id": run_docs, "score": scores})
    return AzureRows(qrels=qrels, run=run, query_ids=query_ids)


class _Items:
    """The flattened items of one nested column, with the row each came from."""

    def __init__(self, column: pa.ChunkedArray, field: str, label: str, *, allow_empty: bool):
        self.field_name, self.label = field, label
        lists = column.combine_chunks()
        if pa.types.is_null(lists.type):
            require_no_nulls(lists, source=label, field=field)  # raises: all null
        if not (pa.types.is_list(lists.type) or pa.types.is_large_list(lists.type)):
            raise InputError(
                f"expected a list of objects, got {lists.type}", source=label, row=1, field=field
            )
        require_no_nulls(lists, source=label, field=field)
        if not allow_empty:
            empty = numpy_view(pc.list_value_length(lists)) == 0
            if empty.any():
                raise InputError(
                    f"'{field}' must contain at least one item (each row needs ground truth)",
                    source=label,
                    row=int(np.flatnonzero(empty)[0]) + 1,
                    field=field,
                )
        self.items = pc.list_flatten(lists)
        self.parents = pc.list_parent_indices(lists)
        # Errors about an item name the row (record) it is in.
        self.rows = row_map_from_positions(numpy_view(self.parents) + 1)
        self.empty = len(self.items) == 0
        if self.empty:
            return
        require_no_nulls(self.items, source=label, field=field, rows=self.rows)
        if not pa.types.is_struct(self.items.type):
            raise InputError(
                f"items must be objects, got {self.items.type}",
                source=label, row=self.rows(0), field=field,
            )

    def field(self, key: str, coerce) -> pa.Array:
        """One key of every item, typed by ``coerce``; a missing key is an error."""
        name = f"{self.field_name}.{key}"
        kind = self.items.type
        if kind.get_field_index(key) < 0:
            raise InputError(
                f"items have no '{key}' (keys found: {[kind.field(i).name for i in range(kind.num_fields)]})",
                source=self.label, row=self.rows(0), field=name,
            )
        values = pc.struct_field(self.items, key)
        return coerce(values, source=self.label, field=name, rows=self.rows)
