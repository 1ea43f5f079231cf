"""Tell what a file holds by its first bytes, where its name could say otherwise.

A file's format comes from its name (:func:`~retrieval_eval.io.sources.format_from_name`); its first
bytes are looked at once, when it is resolved, so that a file of another kind by its name (parquet
named ``.txt``, TREC text named ``.parquet``, JSON named ``.trec``) is one line saying what it is
and how to name it, instead of an error about its bytes met while parsing. Gzip is told by its
first bytes for every file, as it is for a pipe, which has no name to tell it by; and a TSV or CSV
table under a name that says TREC text (BEIR's ``qrels/test.tsv`` copied as ``qrels.txt``) by its
header line, which names a query id and a document id column as the readers know them
(:data:`~retrieval_eval.io.columns.COLUMN_ALIASES`: BEIR's ``query-id corpus-id score``).
"""

from __future__ import annotations

import json
import os
import zlib

from retrieval_eval.errors import InputError
from retrieval_eval.io.columns import COLUMN_ALIASES

#: Bytes looked at: enough for a table's header and the first line of most JSON Lines.
HEAD_BYTES = 1 << 16
PARQUET_MAGIC = b"PAR1"
GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"

#: How a message names each format, and the extension that names a file of it.
_KINDS = {
    "parquet": ("a parquet file", ".parquet"),
    "trec": ("TREC text", ".trec"),
    "csv": ("CSV", ".csv"),
    "tsv": ("TSV", ".tsv"),
    "json": ("JSON", ".jsonl (one object per line) or .json"),
    "jsonl": ("JSON Lines", ".jsonl"),
}


def read_head(path: str | os.PathLike[str]) -> bytes:
    """The first :data:`HEAD_BYTES` of a file, or nothing where it cannot be read (its reader says why)."""
    try:
        with open(path, "rb") as stream:
            return stream.read(HEAD_BYTES)
    except OSError:
        return b""


def check_kind(path: str | os.PathLike[str], named: str) -> None:
    """Refuse a file whose first bytes say another kind than ``named`` (as :func:`sniffed_format`)."""
    sniffed_format(read_head(path), named, os.fspath(path), forced=False)


def is_gzip(head: bytes) -> bool:
    return head.startswith(GZIP_MAGIC)


def decompressed_head(head: bytes) -> bytes:
    """The first decompressed bytes of a gzip stream's first bytes (as many as they give)."""
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, HEAD_BYTES)
    except zlib.error:
        return b""  # corrupt: the reader says so, naming the file


def sniffed_format(head: bytes, named: str, label: str, *, forced: bool) -> str:
    """The format to read a file as, given its first (decompressed) bytes ``head`` and the format
    ``named`` by its name (or ``format=``, when ``forced``).

    Returns ``named``, or ``"tsv"``/``"csv"`` for a table with a header (:func:`header_format`) under a
    name that says TREC text.

    Raises
    ------
    InputError
        The bytes say another kind than the name does: parquet's magic ``PAR1`` under another
        name, a ``.parquet`` name on anything else, or JSON (:func:`content_kind`) where TREC text
        is expected. The message says what the file is and how to name it.
    """
    if not head:
        return named  # empty: the reader says so
    found = content_kind(head)
    table = header_format(head) if named == "trec" and not forced else None
    if table is not None:
        return table
    if found == "parquet" and named != "parquet":
        raise _wrong_kind(label, "parquet", named, forced)
    if named == "parquet" and found != "parquet":
        raise _wrong_kind(label, found or "trec", named, forced, guessed=found is None)
    if found == "json" and named == "trec":
        raise InputError(
            "this is JSON (its first line is a JSON object or array), not TREC text: name it .jsonl "
            "(one object per line) or .json",
            source=label,
        )
    if named == "jsonl" and is_pretty_json(head):
        raise InputError(f"{PRETTY_JSON}: name it .json", source=label)
    return named


#: What a file is when :func:`is_pretty_json` holds.
PRETTY_JSON = (
    "this is one JSON document over several lines (its first line is a lone '{' or '['), not JSON Lines "
    "(a JSON value per line)"
)


def is_pretty_json(head: bytes) -> bool:
    """Whether the first non-blank line is a lone ``{`` or ``[``: JSON pretty-printed over lines, never JSON Lines."""
    return head.removeprefix(_BOM).lstrip().partition(b"\n")[0].strip() in (b"{", b"[")


#: The names a header's query id and document id columns go by (case-insensitive).
_NAMES = {canonical: frozenset(name.casefold() for name in COLUMN_ALIASES[canonical]) for canonical in ("query_id", "doc_id")}


def header_format(head: bytes) -> str | None:
    """``"tsv"`` or ``"csv"`` when the first line is a header of that delimiter naming a query id and a
    document id column (``query-id corpus-id score``, ``qid,docno,rel``...), else None. A TREC line's
    fields are ids and numbers, split by spaces: one would be taken for a header only if it were
    split by tabs and its ids were the names of those columns."""
    first = head.removeprefix(_BOM).lstrip(b"\r\n").split(b"\n", 1)[0].rstrip(b"\r")
    try:
        line = first.decode("utf-8")
    except UnicodeDecodeError:
        return None
    for delimiter, kind in (("\t", "tsv"), (",", "csv")):
        names = {field.strip().strip('"').casefold() for field in line.split(delimiter)}
        if len(names) >= 3 and all(not names.isdisjoint(_NAMES[canonical]) for canonical in ("query_id", "doc_id")):
            return kind
    return None


def content_kind(head: bytes) -> str | None:
    """``"parquet"`` for parquet's magic, ``"json"`` where the first non-blank line is a JSON object
    or array (or opens one, alone on its line, as pretty-printed JSON does), else None (text of some
    other kind: TREC, CSV, TSV). A TREC line has four or six fields, so it is never one of those."""
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    if is_pretty_json(head):
        return "json"
    line, newline, _ = head.removeprefix(_BOM).lstrip().partition(b"\n")
    line = line.strip()
    if line[:1] not in (b"{", b"[") or not (newline or len(head) < HEAD_BYTES):
        return None  # not JSON, or a first line longer than the bytes looked at: the reader judges it
    try:
        return "json" if isinstance(json.loads(line), (dict, list)) else None
    except ValueError:  # not JSON (UnicodeDecodeError included)
        return None


def _wrong_kind(label: str, found: str, named: str, forced: bool, *, guessed: bool = False) -> InputError:
    what, extension = _KINDS[found]
    said = "format=" + repr(named) if forced else "its name"
    if guessed:
        return InputError(
            f"this is not a parquet file (it does not begin with PAR1), but {said} says parquet: text such as "
            "TREC, CSV or TSV is named .trec, .csv or .tsv",
            source=label,
        )
    return InputError(f"this is {what}, but {said} says {_KINDS[named][0]}: name it {extension}", source=label)
