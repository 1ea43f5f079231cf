"""Classify what a reader was given: a file path (with its format) or an in-memory object.

Every reader starts here, so that format detection, ``file not found`` and the name
used in error messages are decided in one place.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import pyarrow as pa

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.io.pandas_objects import is_dataframe

if TYPE_CHECKING:
    import pandas as pd

#: Anything a reader accepts as ``source``.
SourceLike = Union[str, "os.PathLike[str]", "pd.DataFrame", pa.Table, list]

#: File formats a path can have (``format=`` takes these names and the aliases below).
FILE_FORMATS = ("parquet", "csv", "tsv", "jsonl", "json", "trec")

_EXTENSIONS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
}
_FORMAT_ALIASES = {"pq": "parquet", "ndjson": "jsonl", "txt": "trec", "text": "trec"}

# Labels used in error messages for in-memory inputs (there is no file to name).
DATAFRAME_LABEL = "<DataFrame>"
TABLE_LABEL = "<Table>"
RECORDS_LABEL = "<list of dicts>"


@dataclass(frozen=True)
class Source:
    """A resolved ``source`` argument.

    Attributes
    ----------
    label:
        How error messages name the input: the path as given, or a ``<...>`` label.
    format:
        One of :data:`FILE_FORMATS` for paths; ``"dataframe"``, ``"table"`` or
        ``"records"`` for in-memory inputs.
    path:
        The file, or ``None`` for in-memory inputs.
    gzip:
        Whether the file is gzip-compressed (its name ends in ``.gz``).
    obj:
        The in-memory object, or ``None`` for files.
    """

    label: str
    format: str
    path: Path | None = None
    gzip: bool = False
    obj: Any = None

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
    suffixes = [s.lower() for s in path.suffixes]
    gzip = bool(suffixes) and suffixes[-1] == ".gz"
    if gzip:
        suffixes = suffixes[:-1]
    # TREC files are often named like "run.bm25.k1.0.9" or "qrels.2024", so only the
    # last suffix decides, and an unknown one means TREC text rather than an error.
    fmt = _EXTENSIONS.get(suffixes[-1], "trec") if suffixes else "trec"
    return fmt, gzip


def source_label(source: object) -> str:
    """How error messages name an input: its path, or a ``<...>`` label for an in-memory object."""
    if is_dataframe(source):
        return DATAFRAME_LABEL
    if isinstance(source, (pa.Table, pa.RecordBatch)):
        return TABLE_LABEL
    if isinstance(source, list):
        return RECORDS_LABEL
    if isinstance(source, (str, os.PathLike)):
        return str(Path(os.fspath(source)))
    return f"<{type(source).__name__}>"


def resolve_source(source: SourceLike, format: str | None = None) -> Source:
    """Classify ``source`` and check that a file exists.

    Raises
    ------
    InputError
        The file does not exist, is a directory (except a parquet dataset), or the
        object is of an unsupported type.
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
    if isinstance(source, list):
        return Source(label, "records", obj=source)
    if isinstance(source, (str, os.PathLike)):
        return _file_source(Path(os.fspath(source)), format)
    raise InputError(
        f"unsupported source of type {type(source).__name__}; expected a path, a pandas "
        "DataFrame, a pyarrow Table or a list of dicts"
    )


def _file_source(path: Path, format: str | None) -> Source:
    label = source_label(path)
    fmt, gzip = format_from_name(path)
    if format is not None:
        fmt = normalize_format(format)
    if not path.exists():
        raise InputError("file not found", source=label)
    # A directory is only meaningful as a (partitioned) parquet dataset.
    if path.is_dir() and fmt != "parquet":
        raise InputError("is a directory, not a file", source=label)
    return Source(label, fmt, path=path, gzip=gzip)


def open_stream(src: Source) -> pa.NativeFile:
    """Open a file source for sequential reading, decompressing gzip on the fly."""
    try:
        return pa.input_stream(str(src.path), compression="gzip" if src.gzip else None)
    except OSError as exc:
        raise InputError(f"cannot read file: {_reason(exc)}", source=src.label) from exc


def read_all(src: Source) -> pa.Buffer:
    """Read a whole file source (decompressed) into memory."""
    try:
        with open_stream(src) as stream:
            return stream.read_buffer()
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"cannot read file: {_reason(exc)}", source=src.label) from exc


def _reason(exc: BaseException) -> str:
    # OSError.strerror is the short human reason ("Permission denied"); pyarrow's own
    # errors only have their message.
    return getattr(exc, "strerror", None) or str(exc)
