"""Writing a pool and merged qrels, atomically (written whole or not at all, never over an input).

A pool goes to any table format of :func:`~retrieval_eval.io.write_table` by its extension
(``.tsv``, ``.csv``, ``.jsonl``, ``.json``, ``.parquet``): a header row and the columns
``query_id``, ``doc_id``, ``runs``, ``best_rank``, ``n_runs``; in TSV and CSV ``runs`` is the run
names joined by commas, in JSON and parquet a list. A TSV or CSV pool is made for assessors to open in
a spreadsheet: an id a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``, ``@``, a
tab or a carriage return) is written with a leading ``'`` (:mod:`retrieval_eval.io.delimited`),
unless ``for_spreadsheets=False``. Merged qrels go to a table by those extensions
(``query_id``, ``doc_id``, ``relevance``), and to TREC qrels text under any other name
(``query_id 0 doc_id relevance`` lines, trec_eval's layout, the iteration field written as 0).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from ..io import write_table
from ..io.atomic import atomic_write
from ..io.delimited import formula_cell_count
from ..io.formats import table_format
from ..io.run_files import trec_field
from ..io.text_rows import join_text, text_bytes

if TYPE_CHECKING:
    import pandas as pd

#: The formats whose cells are text: a pool's run names are joined there.
_JOINED = ("csv", "tsv")


def write_pool(pool: pd.DataFrame | pa.Table, path: str | os.PathLike[str], *,
               inputs: Iterable[str | os.PathLike[str]] = (), for_spreadsheets: bool = True) -> int:
    """Write a pool (:func:`~retrieval_eval.pooling.pool`) to ``path``, a table format by its extension.

    Returns the number of cells written with a leading ``'`` (see the module; 0 but in TSV and CSV).
    """
    table = pool if isinstance(pool, pa.Table) else pa.Table.from_pandas(pool, preserve_index=False)
    joined = table_format(path) in _JOINED
    if joined:
        runs = table["runs"].combine_chunks()
        table = table.set_column(table.schema.get_field_index("runs"), "runs", pc.binary_join(runs, ","))
    guard = for_spreadsheets and joined
    write_table(table, path, inputs=inputs, for_spreadsheets=guard)
    return formula_cell_count(table) if guard else 0


def write_qrels(qrels: pd.DataFrame | pa.Table, path: str | os.PathLike[str], *,
                inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Write judgments (``query_id``, ``doc_id``, ``relevance``): a table by a table extension, else TREC qrels text."""
    table = qrels if isinstance(qrels, pa.Table) else pa.Table.from_pandas(qrels, preserve_index=False)
    if table_format(path) is not None:
        write_table(table, path, inputs=inputs)
        return
    fields = [trec_field(table[name], name, os.fspath(path)) for name in ("query_id", "doc_id")]
    labels = table["relevance"].combine_chunks().cast(pa.string())
    lines = join_text([fields[0], "0", fields[1], labels], " ")
    text = text_bytes(join_text([lines, "\n"], ""))
    atomic_write(path, lambda temp: Path(temp).write_bytes(text), inputs=inputs)

