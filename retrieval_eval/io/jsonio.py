"""JSON and JSON Lines files: Arrow's reader when it can, the json module when it cannot.

Arrow reads JSON Lines fast but its errors name neither line nor column, it rejects a
column whose type changes between rows, and it turns date-like strings into
timestamps. In each of those cases the file is read again with the json module, which
gives exact error positions and plain Python values (typed later, column by column).

Every reader here, and every reader of the package that parses JSON from a file, first checks
the bytes (:func:`check_json_bytes`): they must be UTF-8 and nest at most :data:`MAX_DEPTH`
levels deep, because parsers recurse once per level (Python's json module raises
``RecursionError`` near a thousand levels, and Arrow's reader crashes the process near twenty
thousand). An object that repeats a key is an error too (:func:`parse_json`): the json module
would keep the last value, silently. Arrow's reader refuses a repeated key itself (then the
json module reads the file again and names it); so Arrow's fast path costs only the byte
checks.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from retrieval_eval.errors import InputError
from retrieval_eval.io.sniff import PARQUET_MAGIC, is_gzip
from retrieval_eval.io.sources import Source, read_all
from retrieval_eval.kernels.text.json_depth import json_nesting

#: The deepest nesting of JSON objects and arrays read (``{"a": [1]}`` is 2 deep). An evaluation
#: document with its retrieval executions nests about 10 deep and a log record about 8.
MAX_DEPTH = 64
_BOM = b"\xef\xbb\xbf"
#: A ``\\uD800``-``\\uDFFF`` escape: half of a pair that spells a character beyond U+FFFF, or, alone, no
#: character at all (the json module decodes it to a lone surrogate, which no UTF-8 text can hold).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
#: An escape of a high surrogate not followed by a low one, or of a low one not preceded by a high one.
_LONE_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def read_json_source(src: Source) -> pa.Table | list:
    """Read a ``.json`` or ``.jsonl`` file.

    ``src`` is a file source of format ``"json"`` (an array of records, or JSON Lines)
    or ``"jsonl"``. Returns a table when Arrow could read the file, else the list of
    records (unchecked Python values) for the caller to type. A caller that finds
    timestamps (see :func:`has_temporal`) in a column it needs calls
    :func:`read_json_records` instead.
    """
    data = _file_bytes(src)
    if src.format == "jsonl":
        if not check_json_bytes(data, src.label, lines=True):
            # A line leaves a value open: Arrow would read on into the next lines; the json module says where.
            return _parse_json_lines(_text(data), src.label)
        import pyarrow.json as pa_json  # here: only this path needs it

        try:
            return pa_json.read_json(pa.BufferReader(data))
        except pa.ArrowInvalid:
            return _parse_json_lines(_text(data), src.label)
    check_json_bytes(data, src.label, lines=False)
    text = _text(data)
    head = text.lstrip()[:1]
    if head == "[":
        return parse_json(text, src.label)
    if head == "{":
        # One object (maybe pretty-printed) or JSON Lines: "Extra data" after the first
        # object means lines follow.
        try:
            return [parse_json(text, src.label)]
        except _ExtraData:
            pass
        check_json_bytes(data, src.label, lines=True)  # the lines are parsed one by one
        return _parse_json_lines(text, src.label)
    if not head:
        return []
    raise InputError(
        "expected a JSON array of records or JSON Lines (one object per line)",
        source=src.label,
        row=1,
    )


def read_json_file(path: str | os.PathLike[str], *, lines_hint: str | None = None) -> Any:
    """The one JSON value of a UTF-8 file (a byte-order mark is allowed).

    ``lines_hint``: what to say when the file is JSON Lines (a value per line, where one value was
    expected), such as where such a file goes instead.

    Raises
    ------
    InputError
        Naming the file: it cannot be read, is a parquet or gzip file, is not UTF-8, nests deeper
        than :data:`MAX_DEPTH`, is not valid JSON (JSON Lines said as such), or repeats a key in an
        object (each with the line and column).
    """
    label = os.fspath(path)
    try:
        data = Path(label).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror}", source=label) from exc
    if data.startswith(PARQUET_MAGIC) or is_gzip(data):
        kind = "a parquet file (it begins with PAR1)" if data.startswith(PARQUET_MAGIC) else "gzip-compressed"
        raise InputError(f"this is {kind}, not JSON text: give the JSON file (uncompressed)", source=label)
    check_json_bytes(data, label, lines=False)
    try:
        return parse_json(_text(data), label)
    except _ExtraData as exc:
        hint = f": {lines_hint}" if lines_hint else ""
        raise InputError(
            f"this is JSON Lines (another JSON value begins at line {exc.row}), where one JSON value is expected{hint}",
            source=label,
        ) from None


def read_json_records(src: Source) -> list:
    """Read a JSON Lines file with the json module (exact error positions)."""
    data = _file_bytes(src)
    check_json_bytes(data, src.label, lines=True)
    return _parse_json_lines(_text(data), src.label)


def check_json_bytes(data: bytes | pa.Buffer | memoryview, label: str, *, lines: bool, first_line: int = 1) -> bool:
    """Refuse JSON text that is not UTF-8 or nests deeper than :data:`MAX_DEPTH`, before it is parsed.

    ``data`` is the text's bytes: one document, or JSON Lines when ``lines`` (nesting counted per
    line, see :mod:`retrieval_eval.kernels.text.json_depth`). Its first line is line ``first_line``
    of the file ``label``. A UTF-8 byte-order mark may open it.

    Returns whether every line holds one value (always true for one document): JSON Lines where one
    leaves a value open or holds two are no JSON Lines, to be parsed line by line (which names the
    line), not by Arrow's reader, which would parse on into the next lines or read two records.

    Raises
    ------
    InputError
        Naming the line (``row``): invalid UTF-8, or the line and column of the bracket that
        opens level ``MAX_DEPTH + 1``.
    """
    raw = np.frombuffer(data, dtype=np.uint8).view()
    raw.setflags(write=False)  # read-only whatever holds the bytes: the kernel is compiled for one kind
    deep, not_one, non_ascii = json_nesting(raw, MAX_DEPTH, lines)
    if non_ascii:
        _check_utf8(data, raw, label, first_line)
    if deep >= 0:
        newlines = np.flatnonzero(raw[:deep] == ord("\n"))
        start = int(newlines[-1]) + 1 if newlines.size else 0
        column = len(raw[start:deep].tobytes().decode("utf-8-sig" if start == 0 else "utf-8")) + 1
        line = first_line + newlines.size
        raise InputError(
            f"nested deeper than {MAX_DEPTH} levels (objects and arrays) at line {line}, column {column}",
            source=label,
            row=line,
        )
    return not_one < 0


def _check_utf8(data: bytes | pa.Buffer | memoryview, raw: np.ndarray, label: str, first_line: int) -> None:
    offsets = pa.py_buffer(np.array([0, raw.size], dtype=np.int64))
    try:
        # Arrow's check of UTF-8 reads gigabytes a second; Python's decoder says where it fails.
        pa.Array.from_buffers(pa.large_string(), 1, [None, offsets, pa.py_buffer(data)]).validate(full=True)
    except pa.ArrowInvalid:
        try:
            raw.tobytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            line = first_line + int(np.count_nonzero(raw[: exc.start] == ord("\n")))
            raise InputError("invalid UTF-8 text", source=label, row=line) from None


def parse_json_line(raw: bytes, label: str, number: int) -> Any:
    """The JSON value of line ``number`` of the JSON Lines file ``label``, from its bytes (a terminator may end
    them); None for a blank line. Checked as :func:`check_json_bytes` does, parsed as :func:`parse_json` does.
    """
    try:
        # A byte-order mark may open the file, as Arrow allows it there too.
        text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError:
        raise InputError("invalid UTF-8 text", source=label, row=number) from None
    if not text.strip():
        return None
    if raw.count(b"{") + raw.count(b"[") > MAX_DEPTH:  # with fewer brackets it cannot nest deeper
        check_json_bytes(raw, label, lines=True, first_line=number)
    return parse_json(text, label, line=number)


def parse_json(text: str, label: str, *, line: int | None = None) -> Any:
    """The JSON value of ``text``, an object that repeats a key being an error.

    ``text`` is a whole file's text, or, when ``line`` is given, that line of the file
    ``label`` (a line terminator may end it). Check its bytes first (:func:`check_json_bytes`).

    Raises
    ------
    InputError
        Malformed JSON, or a repeated key (naming it), with the line and column (of the error,
        or of the object that repeats the key).
    """
    if line is not None:
        text = text.rstrip("\r\n")  # so that an error at the end of the line is at its end, not on the next
    try:
        value = _DECODER.decode(text)
        if _SURROGATE_ESCAPE.search(text) is not None:  # rare: only then is every string looked at
            _refuse_lone_surrogates(value, text, label, line)
        return value
    except json.JSONDecodeError as exc:
        failure: Exception = exc
        position = exc.pos
    except _DuplicateKey as exc:
        failure, position = exc, _object_position(text)
    if line is None:
        line = text.count("\n", 0, position) + 1
        column = position - text.rfind("\n", 0, position)
    else:
        column = position + 1
    where = f"at line {line}, column {column}"
    if isinstance(failure, _DuplicateKey):
        raise InputError(f"duplicate key {failure.key!r} in the object {where}", source=label, row=line) from None
    error = _ExtraData if failure.msg == "Extra data" else InputError
    raise error(f"invalid JSON {where}: {failure.msg}", source=label, row=line) from None


def _refuse_lone_surrogates(value: Any, text: str, label: str, line: int | None) -> None:
    """Raise naming the first string of ``value`` (keys included) that holds a lone surrogate, and where."""
    path = _lone_surrogate_path(value, "")
    if path is None:
        return
    match = _LONE_ESCAPE.search(text)
    if line is None and match is not None:
        line = text.count("\n", 0, match.start()) + 1
    escape = f" ({match.group()})" if match is not None else ""
    raise InputError(
        f"a string holds a lone surrogate{escape}, half of an escaped pair and no character: it cannot be UTF-8 text",
        source=label, row=line, field=path or None,
    )  # fmt: skip


def _lone_surrogate_path(value: Any, path: str) -> str | None:
    """The path (``[2].doc_id``) of the first string under ``value`` that UTF-8 cannot encode, else None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            found = _lone_surrogate_path(key, where)
            if found is None:
                found = _lone_surrogate_path(item, where)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _lone_surrogate_path(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


class _ExtraData(InputError):
    """More JSON after the first value (JSON Lines, when the text was read as one document)."""


class _DuplicateKey(Exception):
    """An object repeats ``key``; ``position`` is where that object starts, once known."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key
        self.position: int | None = None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)


def _object_position(text: str) -> int:
    """Where the first object of ``text`` that repeats a key starts: the text parsed again by the
    pure-Python scanner, which, unlike the C one, hands each object's position to a hook."""

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[dict[str, Any], int]:
        try:
            return json.decoder.JSONObject(s_and_end, *args)
        except _DuplicateKey as exc:
            if exc.position is None:  # this is the object that repeats the key; enclosing ones pass it on
                exc.position = s_and_end[1] - 1
            raise

    decoder = json.JSONDecoder(object_pairs_hook=_unique_keys)
    decoder.parse_object = parse_object
    decoder.scan_once = json.scanner.py_make_scanner(decoder)
    try:
        decoder.decode(text)
    except _DuplicateKey as exc:
        return exc.position or 0
    return 0  # not reached: both scanners meet the same objects in the same order


def _parse_json_lines(text: str, label: str) -> list:
    """Parse JSON Lines (checked as bytes) with the json module; blank lines are skipped."""
    return [value for _, value in json_lines(text, label)]


def json_lines(text: str, label: str) -> Iterator[tuple[int, Any]]:
    """Each value of JSON Lines text (checked as bytes, :func:`check_json_bytes`) with its line number
    (from 1), parsed by :func:`parse_json`; blank lines are skipped."""
    # split("\n"), not splitlines(): JSON strings may hold U+2028 and other characters
    # that splitlines() would treat as line ends.
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, parse_json(line, label, line=number)


def _file_bytes(src: Source) -> pa.Buffer:
    """The bytes of a file source: memory-mapped (no copy, and Arrow's reader is faster on them), or read
    into memory where a file cannot be mapped (a pipe) and decompressed for a gzip file."""
    if not src.gzip:
        try:
            return pa.memory_map(str(src.path)).read_buffer()
        except OSError:
            pass  # read_all says why, if it cannot read the file either
    return read_all(src)


def _text(data: bytes | pa.Buffer) -> str:
    """The text of bytes :func:`check_json_bytes` accepted (a byte-order mark left out)."""
    raw = data if isinstance(data, bytes) else data.to_pybytes()
    return raw.decode("utf-8-sig")


def has_temporal(kind: pa.DataType) -> bool:
    """Whether a (possibly nested) type holds timestamps/dates Arrow inferred from strings."""
    if pa.types.is_temporal(kind):
        return True
    if pa.types.is_struct(kind):
        return any(has_temporal(kind.field(i).type) for i in range(kind.num_fields))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return has_temporal(kind.value_type)
    return False
