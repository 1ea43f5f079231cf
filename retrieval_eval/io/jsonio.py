"""JSON and JSON Lines files: Arrow's reader when it can, the json module when it cannot.

Arrow reads JSON Lines fast but its errors name neither line nor column, it rejects a
column whose type changes between rows, and it turns date-like strings into
timestamps. In each of those cases the file is read again with the json module, which
gives exact error positions and plain Python values (typed later, column by column).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa

from retrieval_eval.errors import InputError
from retrieval_eval.io.sources import Source, open_stream, read_all


def read_json_source(src: Source) -> pa.Table | list:
    """Read a ``.json`` or ``.jsonl`` file.

    ``src`` is a file source of format ``"json"`` (an array of records, or JSON Lines)
    or ``"jsonl"``. Returns a table when Arrow could read the file, else the list of
    records (unchecked Python values) for the caller to type. A caller that finds
    timestamps (see :func:`has_temporal`) in a column it needs calls
    :func:`read_json_records` instead.
    """
    if src.format == "jsonl":
        import pyarrow.json as pa_json  # here: only this path needs it

        try:
            with open_stream(src) as stream:
                return pa_json.read_json(stream)
        except pa.ArrowInvalid:
            return read_json_records(src)
    text = _decode(src)
    head = text.lstrip()[:1]
    if head == "[":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise _syntax_error(exc, src.label, exc.lineno) from exc
    if head == "{":
        # One object (maybe pretty-printed) or JSON Lines: "Extra data" after the first
        # object means lines follow.
        try:
            return [json.loads(text)]
        except json.JSONDecodeError as exc:
            if not exc.msg.startswith("Extra data"):
                raise _syntax_error(exc, src.label, exc.lineno) from exc
        return parse_json_lines(text, src.label)
    if not head:
        return []
    raise InputError(
        "expected a JSON array of records or JSON Lines (one object per line)",
        source=src.label,
        row=1,
    )


def read_json_file(path: str | os.PathLike[str]) -> Any:
    """The one JSON value of a UTF-8 file (a byte-order mark is allowed).

    Raises
    ------
    InputError
        Naming the file: it cannot be read, is not UTF-8, or is not valid JSON (with the line
        and column).
    """
    label = os.fspath(path)
    try:
        text = Path(label).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror}", source=label) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"invalid UTF-8 text at byte {exc.start}", source=label) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", source=label) from exc


def read_json_records(src: Source) -> list:
    """Read a JSON Lines file with the json module (exact error positions)."""
    return parse_json_lines(_decode(src), src.label)


def parse_json_lines(text: str, label: str) -> list:
    """Parse JSON Lines with the json module; blank lines are skipped.

    Raises
    ------
    InputError
        A line is not valid JSON (naming its line and column).
    """
    rows = []
    decode = json.JSONDecoder().decode
    # split("\n"), not splitlines(): JSON strings may hold U+2028 and other characters
    # that splitlines() would treat as line ends.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rows.append(decode(line))
        except json.JSONDecodeError as exc:
            raise _syntax_error(exc, label, number) from exc
    return rows


def _decode(src: Source) -> str:
    data = read_all(src).to_pybytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError("invalid UTF-8 text", source=src.label, row=line) from exc


def _syntax_error(exc: json.JSONDecodeError, label: str, line: int) -> InputError:
    return InputError(
        f"malformed JSON at line {line}, column {exc.colno}: {exc.msg}",
        source=label,
        row=line,
    )


def has_temporal(kind: pa.DataType) -> bool:
    """Whether a (possibly nested) type holds timestamps/dates Arrow inferred from strings."""
    if pa.types.is_temporal(kind):
        return True
    if pa.types.is_struct(kind):
        return any(has_temporal(kind.field(i).type) for i in range(kind.num_fields))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return has_temporal(kind.value_type)
    return False
