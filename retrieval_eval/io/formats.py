"""The one table of file formats: which extension names which format, and which suffix compresses a file.

Every reader and writer that goes by a file's name asks here: a table is read and written by its
extension (:data:`TABLE_EXTENSIONS`, any case), a ``.gz`` after it is gzip
(:data:`COMPRESSIONS`), and a name with no table extension is TREC text where a reader takes
TREC (``run.bm25.k1.0.9``, ``qrels.2024``: only the last suffix decides). Pure Python: the
command line reads it before any numerical library.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Each table format's extensions, the one it is usually written with first.
TABLE_FORMATS: dict[str, tuple[str, ...]] = {
    "parquet": (".parquet", ".pq"),
    "csv": (".csv",),
    "tsv": (".tsv",),
    "json": (".json",),
    "jsonl": (".jsonl", ".ndjson"),
}
#: The format of each table extension.
TABLE_EXTENSIONS: dict[str, str] = {extension: name for name, extensions in TABLE_FORMATS.items() for extension in extensions}
#: The extensions a writer takes for TREC text (a run is written as TREC text under these, as a table under the others).
TREC_EXTENSIONS = (".trec", ".run", ".txt")
#: The extensions of an HTML page.
PAGE_EXTENSIONS = (".html", ".htm")
#: The compression each suffix after a format's extension means.
COMPRESSIONS = {".gz": "gzip"}


def extension(path: str | os.PathLike[str]) -> str:
    """The last suffix of ``path``, lowercased (``""`` for none)."""
    return Path(os.fspath(path)).suffix.lower()


def table_format(path: str | os.PathLike[str]) -> str | None:
    """The table format ``path``'s extension names (a key of :data:`TABLE_FORMATS`), or None."""
    return TABLE_EXTENSIONS.get(extension(path))


def compressed_format(path: str | os.PathLike[str]) -> tuple[str | None, str | None]:
    """``(table format or None, compression or None)`` of a file name: ``a.jsonl.gz`` is ``("jsonl", "gzip")``."""
    suffixes = [suffix.lower() for suffix in Path(os.fspath(path)).suffixes]
    compression = COMPRESSIONS.get(suffixes[-1]) if suffixes else None
    if compression is not None:
        suffixes = suffixes[:-1]
    return (TABLE_EXTENSIONS.get(suffixes[-1]) if suffixes else None), compression
