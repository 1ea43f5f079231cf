"""Query texts and document titles, read to make an explanation readable.

Files are resolved and read as every reader of the package reads them
(:func:`~retrieval_eval.io.sources.resolve_source`: the format named by the extension in
:mod:`~retrieval_eval.io.formats`, a file of another kind by its first bytes refused, gzip, standard
input). Query texts (:func:`read_query_texts`), the format found from the content and the extension:

- TREC topics: ``<top>`` blocks with ``<num>`` (an optional ``Number:`` prefix) and ``<title>``
  (an optional ``Topic:`` prefix; the title runs to the next tag);
- JSONL (a JSON or JSON Lines extension): one object per line with ``query_id`` and ``text``;
- TSV (anything else): ``query_id<TAB>text`` per line, an optional header ``query_id<TAB>text``.

Document titles (:func:`read_doc_titles`): JSONL, parquet or TSV (with a header) with a ``doc_id``
column and a ``title`` or else a ``text`` column; only the documents asked for are kept (of a parquet
file, only those two columns are read). Ids are compared as text, so an integer id finds its document.
Document texts (:func:`read_doc_texts`, what a judge reads): the same files, ``text`` read before ``title``.
An id given twice, a missing field or a malformed line is an :class:`~retrieval_eval.errors.InputError`
naming the file, the line and the field.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import replace

from ..errors import InputError
from .jsonio import check_json_bytes, json_lines, read_json_source
from .sources import Source, read_all, resolve_source
from .tables import read_parquet

_TOPIC = re.compile(r"<top>(.*?)</top>", re.DOTALL | re.IGNORECASE)
_NUM = re.compile(r"<num>\s*(?:Number:)?\s*([^\s<]+)", re.IGNORECASE)
_TITLE = re.compile(r"<title>\s*(?:Topic:)?\s*(.*?)\s*(?=<|\Z)", re.DOTALL | re.IGNORECASE)
_JSON = ("json", "jsonl")  # the formats read as JSON Lines


def read_query_texts(path: str | os.PathLike[str]) -> dict[str, str]:
    """Query id (as text) -> query text, from TREC topics, JSONL or TSV (see the module)."""
    source = os.fspath(path)
    src = _resolved(source)
    content = _read_text(src, source)
    if re.search(r"<top>", content, re.IGNORECASE):
        return _trec_topics(content, source)
    if src.format in _JSON:
        return _collect(((row, str(record["query_id"]), record["text"])
                         for row, record in _json_records(content, source, ("query_id", "text"))), source, "query_id")
    return _collect(_tsv_rows(content, source, "query_id"), source, "query_id")


_TITLE_FIRST = ("title", "text")
_TEXT_FIRST = ("text", "title")


def read_doc_titles(path: str | os.PathLike[str], doc_ids: Iterable[object]) -> dict[str, str]:
    """Document id (as text) -> its title (or text when there is no title), for the ids of ``doc_ids`` only."""
    return _doc_fields(os.fspath(path), {str(doc_id) for doc_id in doc_ids}, _TITLE_FIRST)


def read_doc_texts(path: str | os.PathLike[str], doc_ids: Iterable[object]) -> dict[str, str]:
    """Document id (as text) -> its text (or title when there is no text), for the ids of ``doc_ids`` only
    (what a judge reads; the same formats and errors as :func:`read_doc_titles`)."""
    return _doc_fields(os.fspath(path), {str(doc_id) for doc_id in doc_ids}, _TEXT_FIRST)


def _doc_fields(source: str, wanted: set[str], order: tuple[str, str]) -> dict[str, str]:
    """The first of the fields ``order`` that a document has, for the ids in ``wanted``."""
    src = _resolved(source)
    if src.format == "parquet":
        return _parquet_titles(src, source, wanted, order)
    if src.format in _JSON:
        fast = _arrow_json_titles(src, wanted, order)
        if fast is not None:
            return fast
    content = _read_text(src, source)
    if src.format in _JSON:
        records = _json_records(content, source, ("doc_id",))
        rows = ((row, str(record["doc_id"]), _title_of(record, source, row, order)) for row, record in records)
    else:
        rows = _tsv_rows(content, source, "doc_id", header=True, order=order)
    return _collect((item for item in rows if item[1] in wanted), source, "doc_id")


def _arrow_json_titles(src: Source, wanted: set[str], order: tuple[str, str]) -> dict[str, str] | None:
    """The titles of a clean JSONL file read by Arrow (a large collection in C, not a line at a time in Python);
    None when the file is anything but clean (not UTF-8 JSON objects, an id or title missing, a title not text,
    an id given twice), so that the line-by-line reader finds and names the fault."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        # A .json file too is read as JSON Lines here (see the module).
        table = read_json_source(replace(src, format="jsonl"))
    except InputError:
        return None
    if not isinstance(table, pa.Table):  # Arrow could not read it
        return None
    names = table.column_names
    first, second = order
    text = first if first in names else second
    if "doc_id" not in names or text not in names or not pa.types.is_string(table[text].type):
        return None
    ids = table["doc_id"]
    if not (pa.types.is_string(ids.type) or pa.types.is_integer(ids.type)):
        return None
    ids = ids.cast(pa.string())
    texts = table[text]
    if first in names and second in names:
        texts = pc.coalesce(texts, table[second]) if pa.types.is_string(table[second].type) else texts
    if ids.null_count or texts.null_count or pc.count_distinct(ids).as_py() != len(ids):
        return None
    keep = pc.is_in(ids, value_set=pa.array(sorted(wanted), pa.string()))
    return dict(zip(ids.filter(keep).to_pylist(), texts.filter(keep).to_pylist()))


def _resolved(source: str) -> Source:
    """``source`` resolved as every file the package reads; a missing file is said as this module always has."""
    try:
        return resolve_source(source)
    except InputError as error:
        if error.detail == "file not found":
            raise InputError(f"cannot be read ({os.strerror(errno.ENOENT)})", source=source) from None
        raise


def _read_text(src: Source, source: str) -> str:
    """The file's text, its line ends made ``\\n`` (as a file opened as text reads them)."""
    data = read_all(src).to_pybytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError("is not UTF-8 text", source=source, row=line) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _trec_topics(content: str, source: str) -> dict[str, str]:
    """Each ``<top>`` block's number and title; the row named in an error is the block's first line."""
    items = []
    for match in _TOPIC.finditer(content):
        block, row = match.group(1), content[: match.start()].count("\n") + 1
        number, title = _NUM.search(block), _TITLE.search(block)
        if number is None:
            raise InputError("a <top> block has no <num>", source=source, row=row, field="num")
        if title is None or not title.group(1):
            raise InputError(f"topic {number.group(1)} has no <title>", source=source, row=row, field="title")
        items.append((row, number.group(1), " ".join(title.group(1).split())))
    if not items:
        raise InputError("has no complete <top>...</top> block", source=source)
    return _collect(items, source, "num")


def _json_records(content: str, source: str, required: tuple[str, ...]) -> Iterator[tuple[int, dict]]:
    # As every JSON Lines reader of the package: bytes checked, lines split at "\n" only (a string may
    # hold U+2028), and each parsed with the same checks (a repeated key, a lone surrogate).
    check_json_bytes(content.encode("utf-8", "surrogatepass"), source, lines=True)
    for row, record in json_lines(content, source):
        if not isinstance(record, dict):
            raise InputError(f"expected a JSON object, got {type(record).__name__}", source=source, row=row)
        for name in required:
            if record.get(name) is None:
                raise InputError(f"expected a {name!r} field", source=source, row=row, field=name)
        yield row, record


def _title_of(record: dict, source: str, row: int, order: tuple[str, str]) -> str:
    for name in order:
        if record.get(name) is not None:
            if not isinstance(record[name], str):
                raise InputError(f"expected a string, got {type(record[name]).__name__}", source=source, row=row, field=name)
            return record[name]
    raise InputError(f"expected a '{order[0]}' or '{order[1]}' field", source=source, row=row, field=order[0])


def _tsv_rows(content: str, source: str, id_field: str, *, header: bool = False,
              order: tuple[str, str] = _TITLE_FIRST) -> Iterator[tuple[int, str, str]]:
    """(line, id, text) of each line ``id<TAB>text``; with ``header``, the first line names the columns."""
    lines = content.splitlines()
    text_column = 1
    first = 1
    if header:
        names = lines[0].split("\t") if lines else []
        if id_field not in names or not {"title", "text"} & set(names):
            raise InputError(f"expected a header naming {id_field!r} and 'title' or 'text'", source=source, row=1)
        id_column, text_column = names.index(id_field), names.index(order[0] if order[0] in names else order[1])
        first = 2
    else:
        id_column = 0
        if lines and lines[0].split("\t")[:2] == [id_field, "text"]:
            first = 2
    width = max(id_column, text_column) + 1
    for row, line in enumerate(lines[first - 1 :], start=first):
        if not line.strip():
            continue
        fields = line.split("\t") if header else line.split("\t", 1)
        if len(fields) < width:
            raise InputError(f"expected {id_field}<TAB>text, found no tab", source=source, row=row)
        yield row, fields[id_column], fields[text_column]


def _collect(items: Iterable[tuple[int, str, str]], source: str, field: str) -> dict[str, str]:
    """id -> text; an id given twice is an error (which text to show would be a guess)."""
    texts: dict[str, str] = {}
    for row, key, text in items:
        if not isinstance(text, str):
            raise InputError(f"expected a string, got {type(text).__name__}", source=source, row=row, field="text")
        if key in texts:
            raise InputError(f"{key!r} is given twice", source=source, row=row, field=field)
        texts[key] = text
    return texts


def _parquet_titles(src: Source, source: str, wanted: set[str], order: tuple[str, str]) -> dict[str, str]:
    import pyarrow as pa
    import pyarrow.compute as pc

    def columns(names: Iterable[Hashable]) -> dict[str, Hashable]:
        names = list(names)
        text = order[0] if order[0] in names else order[1]
        for name in ("doc_id", text):
            if name not in names:
                raise InputError(f"has no {name!r} column (columns: {', '.join(map(str, names))})", source=source, field=name)
        return {"doc_id": "doc_id", "text": text}

    table, chosen = read_parquet(src, columns)
    ids = table["doc_id"].cast(pa.string())
    table = table.filter(pc.is_in(ids, value_set=pa.array(sorted(wanted), pa.string())))
    rows = zip(table["doc_id"].cast(pa.string()).to_pylist(), table[chosen["text"]].to_pylist())
    return _collect(((0, key, value) for key, value in rows), source, "doc_id")
