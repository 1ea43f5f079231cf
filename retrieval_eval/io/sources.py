"""Classify what a reader was given: a file path (with its format) or an in-memory object.

Every reader starts here, so that format detection, ``file not found`` and the name
used in error messages are decided in one place. The in-memory kinds (:data:`IN_MEMORY_KINDS`)
of other libraries are recognised without importing them (:mod:`~retrieval_eval.io.ecosystem`)
and handed on as what they are read as: a polars frame as an Arrow table, a ranx object as its
nested dict.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import weakref
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import pyarrow as pa

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.io.ecosystem import (
    dataset_label,
    is_ir_dataset,
    is_named_tuple,
    polars_kind,
    polars_table,
    ranx_kind,
)
from retrieval_eval.io.formats import compressed_format
from retrieval_eval.io.pandas_objects import is_dataframe
from retrieval_eval.io.sniff import HEAD_BYTES, decompressed_head, is_gzip, read_head, sniffed_format

if TYPE_CHECKING:
    import ir_datasets
    import pandas as pd
    import polars as pl
    import ranx

#: Anything a reader accepts as ``source`` (:data:`IN_MEMORY_KINDS` says which objects).
SourceLike = Union[
    str, "os.PathLike[str]", "pd.DataFrame", "pl.DataFrame", "pl.LazyFrame", pa.Table, pa.RecordBatch,
    Mapping, "ranx.Qrels", "ranx.Run", "ir_datasets.Dataset", Iterable,
]

#: The in-memory objects a reader takes, as the unsupported-type message lists them.
IN_MEMORY_KINDS = (
    "a pandas or polars DataFrame (or polars LazyFrame)",
    "a pyarrow Table",
    "a list of dicts",
    "a nested dict {query_id: {doc_id: value}} (pytrec_eval's)",
    "a ranx Qrels or Run",
    "an ir_datasets dataset",
    "an iterable of named tuples (ir_datasets, ir_measures: query_id, doc_id, relevance or score)",
)

#: File formats a path can have (``format=`` takes these names and the aliases below).
FILE_FORMATS = ("parquet", "csv", "tsv", "jsonl", "json", "trec")

_FORMAT_ALIASES = {"pq": "parquet", "ndjson": "jsonl", "txt": "trec", "text": "trec"}

# Labels used in error messages for in-memory inputs (there is no file to name).
DATAFRAME_LABEL = "<DataFrame>"
TABLE_LABEL = "<Table>"
NESTED_LABEL = "<dict>"
ITERABLE_LABEL = "<iterable>"
#: The path that means standard input (a file named "-" is "./-"), and how messages name it.
STDIN, STDIN_LABEL = "-", "<stdin>"


@dataclass(frozen=True)
class Source:
    """A resolved ``source`` argument.

    Attributes
    ----------
    label:
        How error messages name the input: the path as given, or a ``<...>`` label.
    format:
        One of :data:`FILE_FORMATS` for paths; for in-memory inputs ``"dataframe"`` (pandas),
        ``"table"`` (pyarrow, polars), ``"records"`` (a list of dicts), ``"nested"`` (a nested
        dict, ranx), ``"tuples"`` (an iterable of named tuples) or ``"dataset"`` (ir_datasets).
    path:
        The file, or ``None`` for in-memory inputs.
    gzip:
        Whether the file is gzip-compressed: its first bytes are gzip's magic number (a name
        ending in ``.gz`` is not needed, and a pipe has no name to tell it by).
    obj:
        The in-memory object, or ``None`` for files.
    data:
        The bytes of a file that can be read only once (stdin, a pipe, ``<(...)``), read
        whole when it was resolved; ``None`` for regular files, which are read from disk.
    """

    label: str
    format: str
    path: Path | None = None
    gzip: bool = False
    obj: Any = None
    data: pa.Buffer | None = None

    @property
    def is_file(self) -> bool:
        """True when the input is a file on disk."""
        return self.path is not None


def normalize_format(format: str) -> str:
    """Map a user-given format name (case-insensitive, aliases allowed) to a canonical one."""
    name = format.lower().lstrip(".")
    name = _FORMAT_ALIASES.get(name, name)
    if name not in FILE_FORMATS:
        raise ConfigError(
            f"unknown input format {format!r}; supported: {', '.join(FILE_FORMATS)}"
        )
    return name


def format_from_name(path: Path) -> tuple[str, bool]:
    """Infer ``(format, gzip)`` from a file name; anything unrecognised is TREC text."""
    # TREC files are often named like "run.bm25.k1.0.9" or "qrels.2024", so only the
    # last suffix decides, and an unknown one means TREC text rather than an error.
    fmt, compression = compressed_format(path)
    return fmt or "trec", compression == "gzip"


def source_label(source: object) -> str:
    """How error messages name an input: its path, or a ``<...>`` label for an in-memory object.

    Rows name the type of their first element (``<list of Qrel>``, ``<iterable of TrecQrel>``).
    An iterator is labelled so when it is read; before, or when it cannot be remembered (only
    generators can), it is ``<iterable>``.
    """
    if is_dataframe(source):
        return DATAFRAME_LABEL
    if isinstance(source, (pa.Table, pa.RecordBatch)):
        return TABLE_LABEL
    for library, kind in (("polars", polars_kind(source)), ("ranx", ranx_kind(source))):
        if kind is not None:
            return f"<{library} {kind}>"
    if is_ir_dataset(source):
        return dataset_label(source)
    if isinstance(source, Mapping):
        return NESTED_LABEL
    if _is_row_sequence(source):
        return _rows_label(type(source).__name__, source[0] if source else _NOTHING)
    if isinstance(source, (str, os.PathLike)):
        return STDIN_LABEL if os.fspath(source) == STDIN else str(Path(os.fspath(source)))
    if _is_row_iterator(source):
        return _READ_ITERATORS.get(source, ITERABLE_LABEL) if _remembers(source) else ITERABLE_LABEL
    return f"<{type(source).__name__}>"


_NOTHING = object()  # the first row of no rows


def file_identity(label: str) -> tuple[int, int] | None:
    """The (device, inode) of the file that the source ``label`` names, the same under every spelling
    of its path (``run.trec``, ``./run.trec``, its absolute path, a link to it); None for an in-memory
    input, standard input or a label that names no file."""
    if label.startswith("<") and label.endswith(">"):
        return None
    try:
        status = os.stat(label)
    except (OSError, ValueError):
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def _rows_label(container: str, first: object) -> str:
    """``<list of Qrel>`` for named tuples; otherwise the rows are read as dicts: ``<list of dicts>``."""
    return f"<{container} of {type(first).__name__ if is_named_tuple(first) else 'dicts'}>"


def _is_row_sequence(source: object) -> bool:
    # A named tuple is one row, not a sequence of rows.
    return isinstance(source, (list, tuple)) and not is_named_tuple(source)


def _is_row_iterator(source: object) -> bool:
    # An open file is an iterator of lines, not of rows: it is refused, as any other object.
    return isinstance(source, Iterator) and not isinstance(source, io.IOBase)


# The label of every generator read, kept as long as it lives: the qrels and runs built of
# one are labelled after it has been read (to the end), and reading it again finds it empty.
_READ_ITERATORS: weakref.WeakKeyDictionary[Iterator, str] = weakref.WeakKeyDictionary()


def _remembers(iterator: Iterator) -> bool:
    try:
        weakref.ref(iterator)
    except TypeError:  # C iterators (map, list_iterator, itertools') take no weak reference
        return False
    return True


def resolve_source(source: SourceLike, format: str | None = None) -> Source:
    """Classify ``source`` and check that a file exists.

    A polars frame becomes an Arrow table here (a LazyFrame is collected) and a ranx object its
    nested dict; an iterator's first row is read, to tell named tuples from dicts.

    Raises
    ------
    InputError
        The file does not exist, is a directory (except a parquet dataset), the object is
        of an unsupported type, or an iterator is empty.
    ConfigError
        ``format`` is not a known format name.
    """
    label = source_label(source)
    if is_dataframe(source):
        return Source(label, "dataframe", obj=source)
    if isinstance(source, pa.RecordBatch):
        return Source(label, "table", obj=pa.Table.from_batches([source]))
    if isinstance(source, pa.Table):
        return Source(label, "table", obj=source)
    if polars_kind(source) is not None:
        return Source(label, "table", obj=polars_table(source))
    if ranx_kind(source) is not None:
        return Source(label, "nested", obj=source.to_dict())
    if is_ir_dataset(source):
        return Source(label, "dataset", obj=source)
    if isinstance(source, Mapping):
        return Source(label, "nested", obj=source)
    if isinstance(source, (str, os.PathLike)):
        if os.fspath(source) == "":
            raise InputError("empty path: expected a file name (or '-' for stdin)")
        return _file_source(Path(os.fspath(source)), format)
    if _is_row_sequence(source) or _is_row_iterator(source):
        return _rows_source(source, label)
    raise InputError(
        f"unsupported source of type {type(source).__name__}; expected a path, "
        f"{', '.join(IN_MEMORY_KINDS[:-1])} or {IN_MEMORY_KINDS[-1]}"
    )


def _rows_source(rows: list | tuple | Iterator, label: str) -> Source:
    """A sequence or iterator of rows: named tuples, or else dicts (a list of dicts).

    An iterator's first row is read here, to tell which (and to label it).
    """
    if isinstance(rows, Iterator):
        first = next(rows, _NOTHING)
        if first is _NOTHING:
            read_before = _remembers(rows) and rows in _READ_ITERATORS
            why = " (this iterator was read before; an iterator is read once)" if read_before else ""
            raise InputError(f"no rows{why}", source=label)
        label = _rows_label("iterable", first)
        if _remembers(rows):
            _READ_ITERATORS[rows] = label
        rows = chain([first], rows)
    else:
        first = rows[0] if rows else _NOTHING
    if is_named_tuple(first):
        return Source(label, "tuples", obj=rows)
    return Source(label, "records", obj=rows if isinstance(rows, list) else list(rows))


def _file_source(path: Path, format: str | None) -> Source:
    fmt, _ = format_from_name(path)
    if format is not None:
        fmt = normalize_format(format)
    if str(path) == STDIN:
        return _one_shot(STDIN_LABEL, fmt, path, None, forced=format is not None)
    label = source_label(path)
    if not path.exists():
        raise InputError("file not found", source=label)
    # A directory is only meaningful as a (partitioned) parquet dataset.
    if path.is_dir():
        if fmt != "parquet":
            raise InputError("is a directory, not a file", source=label)
        return Source(label, fmt, path=path)
    if not stat.S_ISREG(path.stat().st_mode):  # a pipe, /dev/stdin, <(...): readable once
        return _one_shot(label, fmt, path, path, forced=format is not None)
    return _sniffed(Source(label, fmt, path=path), read_head(path), forced=format is not None)


def _sniffed(src: Source, head: bytes, *, forced: bool) -> Source:
    """``src`` with gzip and the format its first bytes ``head`` say (:mod:`~retrieval_eval.io.sniff`)."""
    gzip = is_gzip(head)
    fmt = sniffed_format(decompressed_head(head) if gzip else head, src.format, src.label, forced=forced)
    return replace(src, format=fmt, gzip=gzip)


# The bytes of each input that can be read only once, by (device, inode) of the pipe: the
# same stdin may be resolved again in one process (a run's tag after the run), and must give
# the same bytes, not nothing.
_ONE_SHOT: dict[tuple[int, int], pa.Buffer] = {}


def _one_shot(label: str, fmt: str, path: Path, opened: Path | None, *, forced: bool) -> Source:
    """A source read whole now: stdin (``opened`` None) or the pipe at ``opened``."""
    try:
        status = os.fstat(sys.stdin.fileno()) if opened is None else opened.stat()
        key = (status.st_dev, status.st_ino)
        if key not in _ONE_SHOT:
            if opened is None:
                _ONE_SHOT[key] = pa.py_buffer(sys.stdin.buffer.read())
            else:
                with open(opened, "rb") as stream:
                    _ONE_SHOT[key] = pa.py_buffer(stream.read())
    except (OSError, ValueError, AttributeError) as exc:  # no stdin (closed, or replaced by a text-only object)
        raise InputError(f"cannot read: {_reason(exc)}", source=label) from exc
    data = _ONE_SHOT[key]
    head = data.slice(0, min(HEAD_BYTES, data.size)).to_pybytes()
    return _sniffed(Source(label, fmt, path=path, data=data), head, forced=forced)


@contextmanager
def open_stream(src: Source) -> Iterator[pa.NativeFile]:
    """Open a file source for sequential reading, decompressing gzip on the fly.

    A context manager: an error while reading inside it (a truncated or corrupt gzip
    stream, a disk error) is an :class:`InputError` naming the file.
    """
    try:
        raw = pa.BufferReader(src.data) if src.data is not None else pa.OSFile(str(src.path))
        stream = pa.CompressedInputStream(raw, "gzip") if src.gzip else raw
    except OSError as exc:
        raise InputError(f"cannot read file: {_reason(exc)}", source=src.label) from exc
    try:
        with stream:
            yield stream
    except OSError as exc:
        what = "cannot read gzip-compressed file (corrupt or truncated?)" if src.gzip else "cannot read file"
        raise InputError(f"{what}: {_reason(exc)}", source=src.label) from exc


def read_all(src: Source) -> pa.Buffer:
    """Read a whole file source (decompressed) into memory."""
    if src.data is not None and not src.gzip:
        return src.data
    with open_stream(src) as stream:
        try:
            return stream.read_buffer()
        except pa.ArrowException as exc:
            raise InputError(f"cannot read file: {_reason(exc)}", source=src.label) from exc


def _reason(exc: BaseException) -> str:
    # OSError.strerror is the short human reason ("Permission denied"); pyarrow's own
    # errors only have their message.
    return getattr(exc, "strerror", None) or str(exc)
