"""Rows of answers to score as text: a response and its ground truth per row (azure-ai-evaluation's F1 inputs)."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from retrieval_eval.errors import InputError
from retrieval_eval.io.coerce import require_no_nulls
from retrieval_eval.io.sources import SourceLike, resolve_source
from retrieval_eval.io.tables import load_columns

_FORMATS = ("jsonl", "json", "parquet", "csv", "tsv", "dataframe", "table", "records")


@dataclass(frozen=True)
class AnswerRows:
    """The response and ground-truth text of every row, in row order (no nulls)."""

    responses: pa.ChunkedArray
    ground_truths: pa.ChunkedArray


def read_answer_rows(
    source: SourceLike, *, response_field: str = "response", ground_truth_field: str = "ground_truth"
) -> AnswerRows:
    """Read the two text columns of a JSONL/JSON/parquet/CSV/TSV file, a DataFrame, a Table or a list of dicts.

    The columns are matched case-insensitively; other columns are ignored.

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
    raw = load_columns(
        src,
        {"response": (response_field,), "ground_truth": (ground_truth_field,)},
        {"response": "id", "ground_truth": "id"},
    )
    columns = {}
    for name in ("response", "ground_truth"):
        values, field = raw.data[name], raw.fields[name]
        require_no_nulls(values, source=src.label, field=field)
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
    return AnswerRows(columns["response"], columns["ground_truth"])

