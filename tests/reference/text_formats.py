"""Plain-Python readers of the TREC and CSV/TSV text formats, written from their definitions.

They are the oracles of the readers' fuzz tests: one character at a time, no Arrow, no numpy.
Each returns the rows ``(query_id, doc_id, value)`` a file means, or raises :class:`Malformed`
with every line (TREC) or data row (CSV) at fault.

The definitions (``retrieval_eval/io/trec.py``, ``io/coerce.py``, ``io/tables.py``):

- A file is UTF-8; a byte-order mark at its start is not text. Lines end at LF, CRLF or a lone
  CR; a final terminator ends the last line.
- TREC fields are separated by runs of C's ``isspace`` characters. A blank line is skipped. A
  comment is, in qrels, a line whose first character is ``#``; in a run, a line whose first
  non-blank character is. A comment whose first field is longer than ``#`` and which would
  be a valid data line is an error. Qrels lines have exactly 4 fields ``qid iter docno rel``,
  run lines at least 6 ``qid Q0 docno rank score tag``. A file without data lines is an error.
- A label is an optional ``-`` then ASCII digits, within int64; or else a finite score (below),
  an int when whole and within int64, a float otherwise (float labels). A score is an ASCII decimal
  number (optional sign, digits, optional fraction, optional exponent) or inf/infinity/nan
  (any case, optional sign); an integer literal float64 cannot hold exactly, or a finite
  number beyond float64, is an error.
- CSV (RFC 4180, with the readers' leniencies): a field is quoted when it starts with ``"``;
  inside, ``""`` is a quote and line ends are text; the double quotes of a file must pair up.
  A quote inside an unquoted field is a character; text after a closing quote is appended
  to the field. Records end at line ends outside quotes; empty lines are skipped. The first
  record is the header; each column is found by its aliases (case-insensitive), exactly once.
  Every record has the header's number of fields; an empty field is missing (an error).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

C_SPACE = " \t\n\v\f\r"  # C's isspace in the C locale
_LABEL = re.compile(r"-?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE)
_BOM = b"\xef\xbb\xbf"


class Malformed(Exception):
    """The file is not in the format; ``places`` are the 1-based lines or rows at fault (empty: the whole file)."""

    def __init__(self, places: set[int]) -> None:
        super().__init__(sorted(places))
        self.places = places


def label(text: str) -> int | float:
    """A relevance label written as text; ValueError if the rule rejects it."""
    if _LABEL.fullmatch(text) is not None:
        if not -(2**63) <= int(text) < 2**63:
            raise ValueError(text)
        return int(text)
    value = score(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return int(value) if value.is_integer() and abs(value) < 2.0**63 else value


def score(text: str) -> float:
    """A score written as text; ValueError if the rule rejects it."""
    if _NUMBER.fullmatch(text) is None:
        raise ValueError(text)
    value = float(text)
    body = text.lstrip("+-")
    if body.isdigit() and int(text) != value:
        raise ValueError(f"{text} is not exact in float64")
    if math.isinf(value) and body.lower() not in ("inf", "infinity"):
        raise ValueError(f"{text} overflows float64")
    return value


def split_lines(data: bytes) -> list[bytes]:
    """The lines of a file, without their terminators (LF, CRLF or a lone CR)."""
    lines, current, i = [], bytearray(), 0
    while i < len(data):
        byte = data[i : i + 1]
        if byte in (b"\n", b"\r"):
            lines.append(bytes(current))
            current = bytearray()
            if data[i : i + 2] == b"\r\n":
                i += 1
        else:
            current += byte
        i += 1
    if current:
        lines.append(bytes(current))
    return lines


def _fields(line: str) -> list[str]:
    fields, current = [], ""
    for char in line:
        if char in C_SPACE:
            if current:
                fields.append(current)
            current = ""
        else:
            current += char
    return fields + ([current] if current else [])


def _text_lines(data: bytes) -> list[str | None]:
    """Each line decoded, or None where it is not UTF-8."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    out: list[str | None] = []
    for line in split_lines(data):
        try:
            out.append(line.decode("utf-8"))
        except UnicodeDecodeError:
            out.append(None)
    return out


def read_trec(data: bytes, kind: str) -> list[tuple[str, str, int | float]]:
    """The rows of a TREC qrels (``kind="qrels"``) or run (``kind="run"``) file."""
    qrels = kind == "qrels"
    count, position, parse = (4, 3, label) if qrels else (6, 4, score)
    rows, bad = [], set()
    for number, line in enumerate(_text_lines(data), start=1):
        if line is None:
            bad.add(number)
            continue
        fields = _fields(line)
        if not fields:
            continue
        comment = line.startswith("#") if qrels else fields[0].startswith("#")
        shaped = len(fields) == count if qrels else len(fields) >= count
        valid = shaped and _parses(parse, fields[position])
        if comment:
            if valid and fields[0] != "#":
                bad.add(number)
            continue
        if not valid:
            bad.add(number)
            continue
        rows.append((fields[0], fields[2], parse(fields[position])))
    if bad or not rows:
        raise Malformed(bad)
    return rows


def _parses(parse, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


def csv_records(text: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """``(first line, fields)`` of each non-empty record; Malformed if a quoted field is left open."""
    if text.count('"') % 2:
        raise Malformed(set())
    records: list[tuple[int, list[str]]] = []
    fields: list[str] = []
    field, state, line, start = "", "start", 1, 1
    i = 0

    def end_record() -> None:
        nonlocal fields, field
        fields.append(field)
        if fields != [""]:
            records.append((start, fields))
        fields, field = [], ""

    while i < len(text):
        char = text[i]
        newline = char in "\r\n"
        width = 2 if text[i : i + 2] == "\r\n" else 1
        if state == "quoted":
            if char == '"':
                if text[i + 1 : i + 2] == '"':
                    field += '"'
                    i += 2
                    continue
                state = "after"
            else:
                field += text[i : i + width] if newline else char
                line += newline
                i += width if newline else 1
                continue
        elif char == delimiter:
            fields.append(field)
            field, state = "", "start"
        elif newline:
            end_record()
            state = "start"
            line += 1
            start = line
            i += width
            continue
        elif state == "start" and char == '"':
            state = "quoted"
        else:
            field += char
            if state == "start":
                state = "field"
        i += 1
    if field or fields:
        end_record()
    return records


def read_csv(data: bytes, delimiter: str, aliases: Mapping[str, Sequence[str]], roles: Mapping[str, str]) -> list[tuple]:
    """The rows of a CSV/TSV file: for each record, its values in ``roles`` order.

    ``aliases``: canonical name -> the names looked for; ``roles``: canonical name -> "id",
    "relevance" or "score".
    """
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Malformed(set()) from None
    records = csv_records(text, delimiter)
    if not records:
        raise Malformed(set())
    header = records[0][1]
    columns = {}
    for canonical, names in aliases.items():
        wanted = {name.casefold() for name in names}
        found = [i for i, name in enumerate(header) if name.casefold() in wanted]
        if len(found) != 1:
            raise Malformed(set())
        columns[canonical] = found[0]
    rows, bad = [], set()
    for number, (_, fields) in enumerate(records[1:], start=1):
        if len(fields) != len(header):
            bad.add(number)
            continue
        values = []
        for canonical, role in roles.items():
            value = fields[columns[canonical]]
            if value == "":
                bad.add(number)
                break
            if role != "id":
                parse = label if role == "relevance" else score
                if not _parses(parse, value):
                    bad.add(number)
                    break
                value = parse(value)
            values.append(value)
        else:
            rows.append(tuple(values))
    if bad or not rows:
        raise Malformed(bad)
    return rows
