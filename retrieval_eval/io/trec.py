"""TREC qrels and run text files, parsed column-wise with Arrow string kernels.

Format, as trec_eval reads it:

- qrels: ``qid iter docno rel``, exactly 4 whitespace-separated fields;
- run: ``qid Q0 docno rank score tag``, at least 6 fields (trec_eval ignores any text
  after the tag, and so do we).

Fields are separated by any run of ASCII whitespace (spaces, tabs), as C's ``isspace``
does. A line is a comment only when ``#`` is its first non-blank character: a ``#``
inside a docno is part of the docno. Blank lines are skipped. Ids stay strings (leading
zeros kept); the ``iter``, ``Q0``, ``rank`` and ``tag`` fields are not checked, as
trec_eval does not use them.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from retrieval_eval.errors import InputError
from retrieval_eval.io.arrays import arrow_array, numpy_view
from retrieval_eval.io.coerce import parse_strings
from retrieval_eval.io.lines import read_lines
from retrieval_eval.io.sources import Source, open_stream, resolve_source


@dataclass(frozen=True)
class TrecLayout:
    """Which fields of a TREC line are kept, and how each is typed."""

    fields: int  # number of fields required
    exact: bool  # True: exactly ``fields``; False: at least ``fields``
    syntax: str  # the line's syntax, for error messages
    keep: tuple[tuple[int, str, pa.DataType, str], ...]  # (position, name, type, "must be ...")


QRELS_LAYOUT = TrecLayout(
    fields=4,
    exact=True,
    syntax="qid iter docno rel",
    keep=(
        (0, "query_id", pa.string(), ""),
        (2, "doc_id", pa.string(), ""),
        (3, "relevance", pa.int64(), "relevance must be an integer"),
    ),
)
RUN_LAYOUT = TrecLayout(
    fields=6,
    exact=False,
    syntax="qid Q0 docno rank score tag",
    keep=(
        (0, "query_id", pa.string(), ""),
        (2, "doc_id", pa.string(), ""),
        (4, "score", pa.float64(), "score must be a number"),
    ),
)


def read_trec(src: Source, layout: TrecLayout) -> pa.Table:
    """Read a TREC text file into a table with the layout's kept fields, in file order.

    Raises
    ------
    InputError
        A line has the wrong number of fields or an unparsable number (naming the line
        and what was expected), or the file has no data lines.
    """
    chunks = read_lines(src)
    starts = np.cumsum([0] + [len(c) for c in chunks[:-1]]).tolist()
    if len(chunks) > 1:
        from concurrent.futures import ThreadPoolExecutor

        # Arrow kernels release the GIL, so chunks are parsed in parallel; map() yields in
        # order, so the first error raised is the one on the earliest line.
        with ThreadPoolExecutor(max_workers=min(len(chunks), os.cpu_count() or 1)) as pool:
            parsed = list(pool.map(lambda c, s: _parse_chunk(c, s, layout, src.label), chunks, starts))
    else:  # a file of one chunk (up to a few MB): starting threads would cost more than parsing
        parsed = [_parse_chunk(c, s, layout, src.label) for c, s in zip(chunks, starts)]
    if not parsed or sum(len(p[0]) for p in parsed) == 0:
        raise InputError("empty file (no data lines)", source=src.label)
    columns = [
        pa.chunked_array([p[i] for p in parsed], type=kind)
        for i, (_, _, kind, _) in enumerate(layout.keep)
    ]
    return pa.Table.from_arrays(columns, names=[name for _, name, _, _ in layout.keep])


def _parse_chunk(lines: pa.Array, first: int, layout: TrecLayout, label: str) -> list[pa.Array]:
    """Parse one chunk of lines; ``first`` is the 0-based file line of ``lines[0]``."""
    text = pc.ascii_trim_whitespace(lines)
    # Masks and positions go through numpy (arrays.py says why not through pyarrow's conversions).
    skip = (numpy_view(pc.binary_length(text)) == 0) | numpy_view(pc.starts_with(text, "#"))
    if skip.any():
        kept = np.flatnonzero(~skip)
        text = text.filter(arrow_array(~skip))
    else:
        kept = None  # most files have no comments: skip building the index

    def line_of(index: int) -> int:
        return first + (int(kept[index]) if kept is not None else index) + 1

    # Splitting at most ``fields`` times for an exact layout shows a surplus field as a
    # count of fields + 1; for a run, the tag swallows any trailing text.
    splits = layout.fields if layout.exact else layout.fields - 1
    parts = pc.ascii_split_whitespace(text, max_splits=splits)
    bad = numpy_view(pc.list_value_length(parts)) != layout.fields
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        found = len(text[index].as_py().split())  # error path: count the real fields
        at_least = "" if layout.exact else "at least "
        raise InputError(
            f"expected {at_least}{layout.fields} whitespace-separated fields "
            f"({layout.syntax}), found {found}",
            source=label,
            row=line_of(index),
        )
    values = parts.values
    starts = numpy_view(parts.offsets)[:-1]
    out = []
    for position, name, kind, must in layout.keep:
        field = values.take(arrow_array(starts + position))
        if kind != pa.string():
            field = parse_strings(
                field, kind, what=must, source=label, field=name, rows=line_of
            )
        out.append(field)
    return out


def trec_run_tag(source: object) -> str | None:
    """The tag (sixth field) of a TREC run file's first data line, as trec_eval prints it for ``runid``.

    None when ``source`` is not a TREC text file or has no data line.
    """
    if not isinstance(source, (str, os.PathLike)):
        return None
    src = resolve_source(source)
    if src.format != "trec":
        return None
    with open_stream(src) as stream:
        for raw in io.TextIOWrapper(stream, encoding="utf-8", errors="replace"):
            fields = raw.split()
            if fields and not fields[0].startswith("#"):
                return fields[5] if len(fields) >= 6 else None
    return None
