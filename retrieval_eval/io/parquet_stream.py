"""Read a run stored as parquet files (a file, a directory, a glob) batch by batch, typed.

Only one batch is in memory at a time. Every batch has the canonical columns ``query_id``,
``doc_id`` (int64, or large_string for text ids, whatever the file's own string type) and
``score`` (float64), and knows the file and the row it starts at, so that an error names
the file and the row of that file.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from retrieval_eval.errors import InputError
from retrieval_eval.io.columns import COLUMN_ALIASES, resolve_columns
from retrieval_eval.io.formats import TABLE_FORMATS
from retrieval_eval.io.readers import COERCERS, RUN_ROLES
from retrieval_eval.io.sniff import check_kind
from retrieval_eval.natural_order import natural_key

_GLOB_CHARACTERS = re.compile(r"[*?\[]")
_SAMPLE_ROWS = 1 << 16


@dataclass(frozen=True)
class TypedBatch:
    """Rows ``first_row .. first_row + len(table) - 1`` (0-based) of the parquet file ``source``."""

    table: pa.Table
    source: str
    first_row: int


def parquet_files(source: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """The parquet files of a run: a file, a directory (searched recursively), a glob, or a list of these.

    In a directory, files whose name starts with ``_`` or ``.`` (``_SUCCESS``, ``_metadata``,
    temporary files) are skipped. Files come in natural order (``part.2`` before ``part.10``).

    Raises
    ------
    InputError
        Nothing matches, a path does not exist, or a named file is not parquet.
    """
    sources = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    if not sources:
        raise InputError("no run files given")
    files: list[str] = []
    for item in sources:
        files.extend(_expand(os.fspath(item)))
    if len(set(files)) != len(files):
        repeated = next(f for f in files if files.count(f) > 1)
        raise InputError("named more than once among the run files", source=repeated)
    return files


def _expand(item: str) -> list[str]:
    if _GLOB_CHARACTERS.search(item) and not os.path.exists(item):
        matches = sorted(glob.glob(item, recursive=True), key=natural_key)
        files = [path for path in matches if os.path.isfile(path) and _is_parquet(path)]
        if not files:
            raise InputError("no parquet file matches this pattern", source=item)
        return files
    path = Path(item)
    if path.is_dir():
        files = sorted(
            (str(p) for p in path.rglob("*") if p.is_file() and _is_parquet(str(p)) and not _hidden(p, path)),
            key=natural_key,
        )
        if not files:
            raise InputError("no parquet file (.parquet, .pq) in this directory", source=item)
        return files
    if not path.exists():
        raise InputError("file not found", source=item)
    if not _is_parquet(item):
        raise InputError("a run read in batches must be parquet (.parquet, .pq)", source=item)
    return [item]


def _is_parquet(path: str) -> bool:
    return path.lower().endswith(TABLE_FORMATS["parquet"])


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(("_", ".")) for part in path.relative_to(root).parts)


def count_rows(files: Iterable[str]) -> int:
    """Rows in all ``files``, from their footers (no data is read)."""
    return sum(_open(path).metadata.num_rows for path in files)


def arrow_bytes_per_row(files: Iterable[str], columns: Mapping[str, str] | None = None) -> float:
    """Arrow bytes per row of the typed run (as :func:`iter_run_batches` gives it), from the first
    rows of the first non-empty file; 0.0 when no file has rows."""
    for batch in iter_run_batches(files, batch_rows=_SAMPLE_ROWS, columns=columns):
        if batch.table.num_rows:
            return batch.table.nbytes / batch.table.num_rows
    return 0.0


def iter_run_batches(
    files: Iterable[str], *, batch_rows: int, columns: Mapping[str, str] | None = None
) -> Iterator[TypedBatch]:
    """Typed batches of at most ``batch_rows`` rows of each file in turn.

    ``columns`` maps canonical names to the files' column names where the defaults
    (``qid``, ``docno``, ...) do not find them. Ids must be of one kind (strings or integers)
    in every file.

    Raises
    ------
    InputError
        Naming the file, the row and the field: a missing column, a null, a value of the
        wrong type, or ids that are strings in one file and integers in another.
    """
    kinds: dict[str, tuple[bool, str]] = {}
    for path in files:
        handle = _open(path)
        resolved = _run_columns(handle, path, columns)
        first_row = 0
        try:
            batches = handle.iter_batches(batch_size=batch_rows, columns=[resolved[c] for c in RUN_ROLES])
            for batch in batches:
                table = _typed(batch, resolved, path, first_row, kinds)
                yield TypedBatch(table, path, first_row)
                first_row += batch.num_rows
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"cannot read parquet file: {exc}", source=path) from exc


def run_column_names(path: str, columns: Mapping[str, str] | None = None) -> dict[str, str]:
    """Canonical name -> the file's column for ``query_id``, ``doc_id`` and ``score`` (see :func:`iter_run_batches`)."""
    return _run_columns(_open(path), path, columns)


def _run_columns(handle: pq.ParquetFile, path: str, columns: Mapping[str, str] | None) -> dict[str, str]:
    candidates = {name: COLUMN_ALIASES[name] for name in RUN_ROLES}
    resolved = resolve_columns(handle.schema_arrow.names, candidates, source=path, overrides=columns)
    return {canonical: str(name) for canonical, name in resolved.items()}


def _open(path: str) -> pq.ParquetFile:
    try:
        # pre_buffer=False: read a row group's pages as they are decoded, not all of it at once.
        return pq.ParquetFile(path, pre_buffer=False)
    except (OSError, pa.ArrowException) as exc:
        check_kind(path, "parquet")  # a file of another kind is named as one (io.sniff)
        raise InputError(f"cannot read parquet file: {exc}", source=path) from exc


def _typed(
    batch: pa.RecordBatch, resolved: Mapping[str, str], path: str, first_row: int, kinds: dict[str, tuple[bool, str]]
) -> pa.Table:
    def row(index: int) -> int:
        return first_row + index + 1

    arrays = []
    for canonical, role in RUN_ROLES.items():
        field = resolved[canonical]
        values = COERCERS[role](batch.column(field), source=path, field=field, rows=row)
        if role == "id":
            values = _one_id_kind(values, canonical, path, field, kinds)
        arrays.append(values)
    return pa.Table.from_arrays(arrays, names=list(RUN_ROLES))


def _one_id_kind(
    values: pa.Array, canonical: str, path: str, field: str, kinds: dict[str, tuple[bool, str]]
) -> pa.Array:
    is_integer = pa.types.is_integer(values.type)
    first = kinds.setdefault(canonical, (is_integer, path))
    if first[0] != is_integer:
        def kind(integer: bool) -> str:
            return "integers" if integer else "strings"
        raise InputError(
            f"{canonical}s are {kind(is_integer)} here but {kind(first[0])} in {first[1]}; "
            "every file of a run must use one kind",
            source=path,
            field=field,
        )
    # One string type for every file, so that batches of different files concatenate.
    return values if is_integer else values.cast(pa.large_string())
