"""Write tables (parquet, CSV, TSV, JSON, JSON Lines) and JSON documents, atomically.

JSON has no NaN or infinity: both writers write NaN, +inf and -inf as ``null``, so the
output is strict JSON that every parser reads.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from retrieval_eval.errors import OutputError
from retrieval_eval.io.atomic import atomic_write
from retrieval_eval.io.delimited import delimited_blocks
from retrieval_eval.io.formats import TABLE_EXTENSIONS, TABLE_FORMATS, extension
from retrieval_eval.io.output_paths import check_output_paths
from retrieval_eval.io.pandas_objects import is_dataframe, is_pandas_missing

if TYPE_CHECKING:
    import pandas as pd



def write_table(
    table: pd.DataFrame | pa.Table,
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    inputs: Iterable[str | os.PathLike[str]] = (),
    for_spreadsheets: bool = False,
) -> None:
    """Write a table to ``path``, atomically (a crash never leaves half a file).

    Parameters
    ----------
    table:
        A pyarrow Table or a pandas DataFrame. A DataFrame's index is written as
        columns only when it is named (``df.set_index("query_id")``); a default
        RangeIndex is dropped.
    path:
        The output file. Its directory must exist.
    format:
        ``"parquet"``, ``"csv"``, ``"tsv"``, ``"json"`` (an array of records) or
        ``"jsonl"`` (one record per line); by default taken from the extension.
        In JSON, NaN and infinities are written as ``null``.
    inputs:
        The files (or directories) the table was made from: ``path`` may not be one of
        them (also by a hard link or a symlink), hold one, or be inside one.
    for_spreadsheets:
        CSV and TSV made for people to open in a spreadsheet: a text cell starting with
        ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'``
        (:mod:`retrieval_eval.io.delimited`). Other formats are written as they are.

    CSV and TSV fields are quoted only where they must be (a delimiter, a double quote or
    a line break in them, or an empty string).

    Raises
    ------
    OutputError
        Unknown extension or format (the message lists the supported ones), ``path``
        is an input, or the file cannot be written (the reason is given; nothing is
        left behind).
    """
    check_output_paths({"output": path}, inputs)  # before any other complaint about the path
    fmt = _format_of(path, format)
    try:
        arrow = _as_arrow(table)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise OutputError(f"{os.fspath(path)}: cannot convert the table: {exc}") from exc
    if fmt in _DELIMITERS:
        atomic_write(path, lambda temp: _write_delimited(arrow, temp, _DELIMITERS[fmt], for_spreadsheets))
    else:
        atomic_write(path, lambda temp: _WRITERS[fmt](arrow, temp))


def write_json(obj: Any, path: str | os.PathLike[str], *, inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Write ``obj`` as pretty-printed (indented, UTF-8) JSON, atomically.

    NaN, +inf and -inf are written as ``null`` (JSON has no such numbers). numpy
    scalars and arrays, tuples, paths, dates and mappings are converted to their JSON
    equivalents. ``inputs``: as for :func:`write_table`.

    Raises
    ------
    OutputError
        ``obj`` holds something JSON cannot represent, ``path`` is an input, or the file
        cannot be written.
    """
    check_output_paths({"output": path}, inputs)
    try:
        text = json.dumps(json_ready(obj), indent=2, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise OutputError(f"{os.fspath(path)}: cannot write: {exc}") from exc
    atomic_write(path, lambda temp: Path(temp).write_text(text + "\n", encoding="utf-8"))


def _format_of(path: str | os.PathLike[str], format: str | None) -> str:
    supported = sorted(TABLE_FORMATS)
    if format is not None:
        name = format.lower().lstrip(".")
        name = TABLE_EXTENSIONS.get(f".{name}", name)
        if name not in supported:
            raise OutputError(f"{os.fspath(path)}: unknown format {format!r}; supported: {supported}")
        return name
    suffix = extension(path)
    if suffix not in TABLE_EXTENSIONS:
        raise OutputError(
            f"{os.fspath(path)}: cannot tell the format from the extension {suffix or '(none)'!r}; "
            f"supported extensions: {', '.join(TABLE_EXTENSIONS)}"
        )
    return TABLE_EXTENSIONS[suffix]


def _as_arrow(table: pd.DataFrame | pa.Table) -> pa.Table:
    if isinstance(table, pa.Table):
        return table
    if is_dataframe(table):
        if any(name is not None for name in table.index.names):
            table = table.reset_index()
        return pa.Table.from_pandas(table, preserve_index=False)
    raise TypeError(f"expected a pandas DataFrame or a pyarrow Table, got {type(table).__name__}")


# Each format's pyarrow module is imported by its writer: a command writing JSON does not pay
# for importing the parquet writer.
def _write_parquet(table: pa.Table, temp: str) -> None:
    import pyarrow.parquet as pq

    pq.write_table(table, temp)


def _write_delimited(table: pa.Table, temp: str, delimiter: str, for_spreadsheets: bool) -> None:
    with open(temp, "wb") as out:
        for block in delimited_blocks(table, delimiter, for_spreadsheets=for_spreadsheets):
            out.write(block)


def _write_json_lines(table: pa.Table, temp: str, array: bool = False) -> None:
    # Batch by batch, so a large table never becomes one huge list of dicts.
    with open(temp, "w", encoding="utf-8") as out:
        out.write("[\n" if array else "")
        first = True
        for batch in table.to_batches(max_chunksize=65536):
            for row in batch.to_pylist():
                if array and not first:
                    out.write(",\n")
                out.write(json.dumps(json_ready(row), ensure_ascii=False, allow_nan=False))
                out.write("" if array else "\n")
                first = False
        out.write("\n]\n" if array and not first else ("]\n" if array else ""))


_DELIMITERS = {"csv": ",", "tsv": "\t"}
_WRITERS: Mapping[str, Callable[[pa.Table, str], None]] = {
    "parquet": _write_parquet,
    "json": lambda table, temp: _write_json_lines(table, temp, array=True),
    "jsonl": _write_json_lines,
}


def json_ready(obj: Any) -> Any:
    """``obj`` with only JSON types; non-finite floats become None."""
    if isinstance(obj, float):  # includes numpy.float64
        return float(obj) if math.isfinite(obj) else None
    if obj is None or isinstance(obj, (str, bool, int)):
        return obj
    if isinstance(obj, Mapping):
        return {_key(k): json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_ready(obj.tolist())
    if isinstance(obj, np.generic):  # numpy scalars that are not float64
        return json_ready(obj.item())
    if is_pandas_missing(obj):
        return None
    if isinstance(obj, (dt.date, dt.datetime, dt.time)):
        return obj.isoformat()
    if isinstance(obj, PurePath):
        return str(obj)
    raise TypeError(f"object of type {type(obj).__name__} is not JSON serializable")


def _key(key: Any) -> Any:
    # json accepts str, int, float, bool and None keys; numpy scalars become Python ones.
    return key.item() if isinstance(key, np.generic) else key
