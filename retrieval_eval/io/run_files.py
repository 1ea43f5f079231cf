"""Write a run (``query_id``, ``doc_id``, ``score`` rows, each query's documents in rank order), atomically.

TREC run files (``.trec``, ``.run``, ``.txt``) get trec_eval's six fields,
``query_id Q0 doc_id rank score tag``: the rank counts from 1 within each query in row order,
the score is written in the shortest form that reads back as the same float64. Tables
(parquet, CSV, TSV, JSON, JSON Lines) get the three columns through
:func:`~retrieval_eval.io.writers.write_table`, so every reader of runs reads either back.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import OutputError
from .arrays import arrow_array, numpy_view
from .atomic import atomic_write
from .formats import TREC_EXTENSIONS, extension
from .output_paths import check_output_paths
from .text_rows import join_text, text_bytes
from .writers import write_table

_COLUMNS = ("query_id", "doc_id", "score")


def write_run(
    table: pa.Table,
    path: str | os.PathLike[str],
    *,
    tag: str = "retrieval_eval",
    format: str | None = None,
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> None:
    """Write a run table to ``path``: TREC text by the extension (or ``format="trec"``), else as :func:`write_table` does.

    Parameters
    ----------
    table
        Columns ``query_id``, ``doc_id`` and ``score`` (others are not written), each query's
        rows together and in rank order.
    path
        The output file; its directory must exist.
    tag
        The TREC file's sixth field (the run's name): no whitespace.
    format
        ``"trec"``, or a format of :func:`write_table`; by default taken from the extension.
    inputs
        The files the run was made from: ``path`` may not be one of them.

    Raises
    ------
    OutputError
        A TREC field that cannot be written (an empty id, an id or tag with whitespace: the
        message names the first), an unknown extension or format, or a file that cannot be
        written; nothing is left behind.
    """
    check_output_paths({"output": path}, inputs)
    missing = [name for name in _COLUMNS if name not in table.column_names]
    if missing:
        raise OutputError(f"{os.fspath(path)}: a run needs columns {list(_COLUMNS)}, missing {missing}")
    table = table.select(list(_COLUMNS))
    if format is not None:
        is_trec = format.lower().lstrip(".") == "trec"
    else:
        is_trec = extension(path) in TREC_EXTENSIONS
    if not is_trec:
        write_table(table, path, format=format, inputs=inputs)
        return
    text = trec_run_text(table, tag, label=os.fspath(path))
    atomic_write(path, lambda temp: Path(temp).write_bytes(text))


def trec_run_text(table: pa.Table, tag: str, *, label: str = "<run>") -> bytes:
    """The TREC run lines of a run table (module docstring), as UTF-8 bytes; ``label`` names the output in errors."""
    if not isinstance(tag, str) or not tag or any(c.isspace() for c in tag):
        raise OutputError(f"{label}: the run's tag must be one word (no whitespace), got {tag!r}")
    if table.num_rows == 0:
        return b""
    query_ids = trec_field(table["query_id"], "query_id", label)
    doc_ids = trec_field(table["doc_id"], "doc_id", label)
    scores = pc.cast(table["score"], pa.float64()).cast(pa.string())
    ranks = arrow_array(_ranks_within_queries(query_ids)).cast(pa.string())
    # The tag ends each line: the lines' bytes, one after the other, are the file.
    return text_bytes(join_text([query_ids, "Q0", doc_ids, ranks, scores, tag + "\n"], " "))


def trec_field(column: pa.Array | pa.ChunkedArray, name: str, label: str) -> pa.Array:
    """An id column as strings; an empty id or one holding whitespace (which would split the line) is an error."""
    values = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    values = values.cast(pa.large_string())
    bad = pc.or_(pc.equal(pc.utf8_length(values), 0), pc.match_substring_regex(values, r"\s"))
    if pc.any(bad).as_py():
        row = int(np.flatnonzero(numpy_view(bad))[0])
        raise OutputError(
            f"{label}: row {row + 1}: {name} {values[row].as_py()!r} cannot be a TREC field (empty or with whitespace)"
        )
    return values


def _ranks_within_queries(query_ids: pa.Array) -> np.ndarray:
    """1, 2, ... within each block of equal consecutive query ids."""
    n = len(query_ids)
    starts = np.ones(n, dtype=np.bool_)
    if n > 1:
        starts[1:] = numpy_view(pc.not_equal(query_ids.slice(1), query_ids.slice(0, n - 1)))
    positions = np.arange(n, dtype=np.int64)
    block_start = np.maximum.accumulate(np.where(starts, positions, 0))
    return positions - block_start + 1
