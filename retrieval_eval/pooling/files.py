"""Writing a pool and merged qrels, atomically (written whole or not at all, never over an input).

A pool goes to any table format of :func:`~retrieval_eval.io.write_table` by its extension
(``.tsv``, ``.csv``, ``.jsonl``, ``.json``, ``.parquet``): a header row and the columns
``query_id``, ``doc_id``, ``runs``, ``best_rank``, ``n_runs``; in TSV and CSV ``runs`` is the run
names joined by commas, in JSON and parquet a list. Merged qrels go to a table by those extensions
(``query_id``, ``doc_id``, ``relevance``), and to TREC qrels text under any other name
(``query_id 0 doc_id relevance`` lines, trec_eval's layout, the iteration field written as 0).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import OutputError
from ..io import write_table
from ..io.atomic import atomic_write

if TYPE_CHECKING:
    import pandas as pd

_TABLE_EXTENSIONS = (".parquet", ".pq", ".csv", ".tsv", ".json", ".jsonl", ".ndjson")
_JOINED = (".csv", ".tsv")


def write_pool(pool: pd.DataFrame | pa.Table, path: str | os.PathLike[str], *,
               inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Write a pool (:func:`~retrieval_eval.pooling.pool`) to ``path``, a table format by its extension."""
    table = pool if isinstance(pool, pa.Table) else pa.Table.from_pandas(pool, preserve_index=False)
    if Path(os.fspath(path)).suffix.lower() in _JOINED:
        runs = table["runs"].combine_chunks()
        table = table.set_column(table.schema.get_field_index("runs"), "runs", pc.binary_join(runs, ","))
    write_table(table, path, inputs=inputs)


def write_qrels(qrels: pd.DataFrame | pa.Table, path: str | os.PathLike[str], *,
                inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Write judgments (``query_id``, ``doc_id``, ``relevance``): a table by a table extension, else TREC qrels text."""
    table = qrels if isinstance(qrels, pa.Table) else pa.Table.from_pandas(qrels, preserve_index=False)
    if Path(os.fspath(path)).suffix.lower() in _TABLE_EXTENSIONS:
        write_table(table, path, inputs=inputs)
        return
    fields = [table[name].cast(pa.string()) for name in ("query_id", "doc_id")]
    for name, column in zip(("query_id", "doc_id"), fields):
        spaced = pc.match_substring_regex(column, r"\s|^$")
        if pc.any(spaced).as_py():
            raise OutputError(f"{os.fspath(path)}: a {name} is empty or holds whitespace, which TREC qrels text cannot "
                              "hold; write a table (.tsv, .jsonl, .parquet) instead")
    lines = pc.binary_join_element_wise(fields[0], "0", fields[1], table["relevance"].cast(pa.string()), " ")
    text = _contiguous_bytes(pc.binary_join_element_wise(lines, "\n", "").combine_chunks())

    def write(temp: str) -> None:
        with open(temp, "wb") as out:
            out.write(text)

    atomic_write(path, write, inputs=inputs)


def _contiguous_bytes(strings: pa.StringArray) -> bytes:
    """The characters of ``strings`` one after the other (no Python object per row): the data buffer of a
    string array, between its first and its last offset."""
    if len(strings) == 0:
        return b""
    bounds = np.frombuffer(strings.buffers()[1], dtype=np.int32)[strings.offset:strings.offset + len(strings) + 1]
    return strings.buffers()[2].to_pybytes()[bounds[0]:bounds[-1]]
