"""Where the labels of a qrels came from: a ``source`` column, or the sidecar file beside TREC qrels text.

TREC qrels text has no column for a label's source, so a writer of judged labels puts the sources
in ``<qrels>.sources.tsv`` beside it: a header ``query_id<TAB>doc_id<TAB>source`` and one line per
label. A table (``.tsv``, ``.csv``, ``.jsonl``, ``.json``, ``.parquet``, a DataFrame, an Arrow
table) carries them in its own ``source`` column. A source is ``"human"`` or ``"judge:<fingerprint>"``.
"""

from __future__ import annotations

import os
from typing import Any

import pyarrow as pa

from retrieval_eval.errors import InputError
from retrieval_eval.io.formats import table_format
from retrieval_eval.io.readers import read_qrels_table

SOURCES_SUFFIX = ".sources.tsv"
_COLUMNS = ("query_id", "doc_id", "source")


def is_table_path(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a table file (by its extension) rather than TREC text."""
    return table_format(path) is not None


def is_trec_path(qrels: Any) -> bool:
    return isinstance(qrels, (str, os.PathLike)) and not is_table_path(qrels)


def read_label_sources(qrels: Any) -> pa.Table | None:
    """The sources of the labels of ``qrels`` (``query_id``, ``doc_id`` as strings, ``source``): its ``source``
    column, or the sidecar beside a TREC file; None when it names none."""
    if is_trec_path(qrels):
        return read_sources_sidecar(os.fspath(qrels) + SOURCES_SUFFIX)
    column = source_column(qrels)
    if column is None:
        return None
    table = read_qrels_table(qrels)
    return pa.table({"query_id": table["query_id"].cast(pa.string()), "doc_id": table["doc_id"].cast(pa.string()),
                     "source": column})


def source_column(qrels: Any) -> pa.Array | None:
    """The ``source`` column of a table input (a path, DataFrame or Arrow table), row for row as
    :func:`~retrieval_eval.io.read_qrels_table` reads the table; None when it has none."""
    if isinstance(qrels, pa.Table):
        return qrels["source"].combine_chunks().cast(pa.string()) if "source" in qrels.column_names else None
    if isinstance(qrels, (str, os.PathLike)):
        path = os.fspath(qrels)
        fmt = table_format(path)
        if fmt == "parquet":
            import pyarrow.parquet as pq

            if "source" not in pq.read_schema(path).names:
                return None
            return pq.read_table(path, columns=["source"])["source"].combine_chunks().cast(pa.string())
        import pandas as pd

        if fmt in ("csv", "tsv"):
            qrels = pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", dtype=str, keep_default_na=False)
        else:
            qrels = pd.read_json(path, lines=fmt != "json", dtype=False)
    columns = getattr(qrels, "columns", None)
    if columns is None or "source" not in columns:
        return None
    values = qrels["source"]
    return pa.array(values.astype(object).where(values.notna(), None).tolist(), pa.string())


def read_sources_sidecar(sidecar: str) -> pa.Table | None:
    """The sidecar file ``sidecar`` (see the module), or None when there is none."""
    if not os.path.exists(sidecar):
        return None
    import pyarrow.csv as pacsv

    try:
        table = pacsv.read_csv(sidecar, parse_options=pacsv.ParseOptions(delimiter="\t"),
                               convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(_COLUMNS, pa.string())))
    except pa.ArrowInvalid as error:
        raise InputError(f"not a sources file (query_id<TAB>doc_id<TAB>source): {error}", source=sidecar) from None
    missing = set(_COLUMNS) - set(table.column_names)
    if missing:
        raise InputError(f"a sources file needs the columns query_id, doc_id, source; missing {sorted(missing)}",
                         source=sidecar)
    return table.select(list(_COLUMNS))
