"""Rows of answers to score as text: a response and its ground truth per row (azure-ai-evaluation's F1 inputs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from retrieval_eval.errors import InputError
from retrieval_eval.io.coerce import require_no_nulls
from retrieval_eval.io.columns import COLUMN_ALIASES
from retrieval_eval.io.sources import SourceLike, resolve_source
from retrieval_eval.io.tables import load_columns

_FORMATS = ("jsonl", "json", "parquet", "csv", "tsv", "dataframe", "table", "records")


@dataclass(frozen=True)
class AnswerRows:
    """The response and ground-truth text of every row, in row order (no nulls), and the rows' id columns
    (input column name -> values, as read) for the scores to be told apart by."""

    responses: pa.ChunkedArray
    ground_truths: pa.ChunkedArray
    ids: Mapping[str, pa.ChunkedArray] = field(default_factory=dict)


#: The columns kept beside the scores where the input has them: a row's id, a query's id (the reader's names for it).
ID_FIELDS = ("id", *COLUMN_ALIASES["query_id"])


def read_answer_rows(
    source: SourceLike,
    *,
    response_field: str = "response",
    ground_truth_field: str = "ground_truth",
    id_fields: Sequence[str] = ID_FIELDS,
) -> AnswerRows:
    """Read the two text columns of a JSONL/JSON/parquet/CSV/TSV file, a DataFrame, a Table or a list of dicts.

    The columns are matched case-insensitively, and so are ``id_fields``: those the source has are kept
    as they are (:attr:`AnswerRows.ids`); other columns are ignored.

    Raises
    ------
    InputError
        Naming the source, row and field: a missing column, a null value, or a value that is
        not text.
    """
    src = resolve_source(source)
    if src.format not in _FORMATS:
        raise InputError(
            f"answers cannot be read from a {src.format} file; use JSON Lines, JSON, parquet or CSV/TSV, "
            "a DataFrame, a Table or a list of dicts",
            source=src.label,
        )
    kept = {f"id:{name}": (name,) for name in id_fields}
    raw = load_columns(
        src,
        {"response": (response_field,), "ground_truth": (ground_truth_field,), **kept},
        {"response": "text", "ground_truth": "text", **dict.fromkeys(kept, "id")},
        optional=kept,
    )
    columns = {}
    for name in ("response", "ground_truth"):
        values, field = raw.data[name], raw.fields[name]
        require_no_nulls(values, source=src.label, field=field)
        if pa.types.is_dictionary(values.type):  # dictionary-encoded text (pandas' categoricals): its values
            values = values.cast(values.type.value_type)
        if pa.types.is_string_view(values.type):
            values = values.cast(pa.large_string())
        if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
            raise InputError(
                f"expected text, got {values.type} values (first: {values[0].as_py()!r})",
                source=src.label,
                row=1,
                field=field,
            )
        columns[name] = values
    ids = {str(raw.fields[name]): raw.data[name] for name in kept if name in raw.data}
    return AnswerRows(columns["response"], columns["ground_truth"], ids)

