"""Readers and writers: files (and in-memory tables) <-> pyarrow tables.

This is a leaf layer beside the kernels: it imports nothing from the package but
:mod:`retrieval_eval.errors` and one kernel, :mod:`retrieval_eval.kernels.text.json_depth`, the scan
every JSON reader runs over the bytes before parsing (nesting depth, ASCII), which must be
compiled to keep up with Arrow's parser. It checks types, parsing and nulls; value checks (NaN
scores, label ranges, duplicates) are the data layer's.

Readers
-------
read_qrels_table
    Judgments as ``query_id, doc_id, relevance`` (int64), in any of trec_eval's ``-R`` layouts
    (judgment groups and preferences add ``group`` and ``subgroup``).
read_run_table
    Results as ``query_id, doc_id, score`` (float64).
read_azure_rows
    Azure-style rows (one per query, nested lists) as :class:`AzureRows`.
trec_run_tag
    The run tag of a TREC run file (trec_eval's ``runid``).
read_zscores
    trec_eval's ``-Z`` file, as :class:`ZScores` that convert values into z-scores.

Writers
-------
write_table
    parquet, CSV, TSV, JSON (records) or JSON Lines, from the extension; atomic.
write_json
    A pretty JSON document (NaN and infinities written as ``null``); atomic.
published_together
    A block whose outputs are all renamed into place at its end, or none of them.
read_json_file
    One JSON document, with errors naming the file, line and column.
"""

from retrieval_eval.io.azure_rows import AzureRows, read_azure_rows
from retrieval_eval.io.columns import COLUMN_ALIASES
from retrieval_eval.io.jsonio import read_json_file
from retrieval_eval.io.publication import published_together
from retrieval_eval.io.readers import read_qrels_table, read_run_table
from retrieval_eval.io.sources import source_label
from retrieval_eval.io.trec import trec_run_tag
from retrieval_eval.io.writers import write_json, write_table
from retrieval_eval.io.zscores import ZScores, read_zscores

__all__ = [
    "COLUMN_ALIASES",
    "AzureRows",
    "ZScores",
    "published_together",
    "read_azure_rows",
    "read_json_file",
    "read_qrels_table",
    "read_run_table",
    "read_zscores",
    "source_label",
    "trec_run_tag",
    "write_json",
    "write_table",
]
