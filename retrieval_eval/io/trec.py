"""TREC qrels and run text files, parsed column-wise with Arrow string kernels.

Format, as trec_eval reads it:

- qrels: ``qid iter docno rel``, exactly 4 whitespace-separated fields;
- judgment groups (``-R qrels_jg``, get_qrels_jg.c): ``qid jg docno rel``;
- qrels read as preferences (``-R qrels_prefs``, get_qrels_prefs.c): ``qid jg docno
  rel_level``, the level a number (trec_eval's ``atof``);
- preferences (``-R prefs``, get_prefs.c): ``qid jg jsg docno rel_level``, exactly 5 fields;
- run: ``qid Q0 docno rank score tag``, at least 6 fields (trec_eval ignores any text
  after the tag, and so do we).

Fields are separated by any run of ASCII whitespace (spaces, tabs), as C's ``isspace``
does. Comment lines are those trec_eval 10 skips (``get_qrels.c`` and the three other
judgment readers, which share its code, and ``get_trec_results.c``): in judgments, a line
whose first character is ``#``; in a run, a line whose first non-blank character is ``#``.
Two trec_eval 10 defects of the judgment readers are not reproduced: a comment line right
after another is read as data there (``# c1`` then ``# c2`` is "Malformed line"), and a
comment as the file's last line makes it read past its buffer (a segmentation fault). A ``#`` anywhere else is text (a docno
``CR#93E-1860``, or in qrels an indented ``#1``, which trec_eval reads as a query id).
A comment line that is also a valid data line of a query whose id starts with ``#``
(``#1 Q0 d 1 2.5 run``) is an error, not a silent drop: trec_eval 10 skips it, 9 read it
as query ``#1``. With ``#`` alone as the first field (``# 1 Q0 d ...``) it is a comment.
Blank lines are skipped (trec_eval rejects them in qrels; they hold no data). Ids stay
strings (leading zeros kept); labels and scores follow the text rules of
:mod:`retrieval_eval.io.coerce`; the ``iter``, ``Q0``, ``rank`` and ``tag`` fields are not
checked, as trec_eval does not use them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from retrieval_eval.errors import InputError
from retrieval_eval.io.arrays import arrow_array, numpy_view
from retrieval_eval.io.coerce import concat_labels, parse_label_text, parse_level_text, parse_score_text
from retrieval_eval.io.lines import read_lines
from retrieval_eval.io.sources import Source, read_all, resolve_source
from retrieval_eval.io.trec_layout import LABELS, TrecLayout
from retrieval_eval.io.trec_spaced import read_single_spaced

_SPACES = re.compile(r"[ \t\n\v\f\r]+")  # C's isspace in the C locale
_LINE_END = re.compile(rb"\r\n|\n|\r")  # as io/lines.py ends lines
_TAIL_BLOCK = 1 << 16  # bytes read at a time from the end of a run for its tag
QRELS_LAYOUT = TrecLayout(
    fields=4,
    exact=True,
    syntax="qid iter docno rel",
    keep=(
        (0, "query_id", pa.string(), None),
        (2, "doc_id", pa.string(), None),
        (3, "relevance", LABELS, parse_label_text),
    ),
    comment_at_start=True,
)
#: trec_eval's ``-R qrels_jg`` (get_qrels_jg.c): the second field is the judgment group.
QRELS_JG_LAYOUT = TrecLayout(
    fields=4,
    exact=True,
    syntax="qid jg docno rel",
    keep=(
        (0, "query_id", pa.string(), None),
        (1, "group", pa.string(), None),
        (2, "doc_id", pa.string(), None),
        (3, "relevance", LABELS, parse_label_text),
    ),
    comment_at_start=True,
)
#: trec_eval's ``-R qrels_prefs`` (get_qrels_prefs.c): a qrels file read as preferences, the
#: second field the judgment group, the label a relevance level (a double, as its ``atof``).
QRELS_PREFS_LAYOUT = TrecLayout(
    fields=4,
    exact=True,
    syntax="qid jg docno rel_level",
    keep=(
        (0, "query_id", pa.string(), None),
        (1, "group", pa.string(), None),
        (2, "doc_id", pa.string(), None),
        (3, "relevance", pa.float64(), parse_level_text),
    ),
    comment_at_start=True,
)
#: trec_eval's ``-R prefs`` (get_prefs.c): judgment group and subgroup, then docno and level.
PREFS_LAYOUT = TrecLayout(
    fields=5,
    exact=True,
    syntax="qid jg jsg docno rel_level",
    keep=(
        (0, "query_id", pa.string(), None),
        (1, "group", pa.string(), None),
        (2, "subgroup", pa.string(), None),
        (3, "doc_id", pa.string(), None),
        (4, "relevance", pa.float64(), parse_level_text),
    ),
    comment_at_start=True,
)
RUN_LAYOUT = TrecLayout(
    fields=6,
    exact=False,
    syntax="qid Q0 docno rank score tag",
    keep=(
        (0, "query_id", pa.string(), None),
        (2, "doc_id", pa.string(), None),
        (4, "score", pa.float64(), parse_score_text),
    ),
    comment_at_start=False,
)

#: cwl_eval's run (cwl_eval.py unpacks exactly six fields): the second field is the element
#: type its cost file prices; the rank and score are not read, as it ranks in file order.
CWL_RUN_LAYOUT = TrecLayout(
    fields=6,
    exact=True,
    syntax="topic_id element_type doc_id rank score run_id",
    keep=(
        (0, "query_id", pa.string(), None),
        (1, "element_type", pa.string(), None),
        (2, "doc_id", pa.string(), None),
    ),
    comment_at_start=False,
)


def read_trec(src: Source, layout: TrecLayout) -> pa.Table:
    """Read a TREC text file into a table with the layout's kept fields, in file order.

    Raises
    ------
    InputError
        A line has the wrong number of fields or an unparsable number (naming the line
        and what was expected), or the file has no data lines.
    """
    fast = read_single_spaced(src, layout)
    if fast is not None:
        return fast
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
        concat_labels([p[i] for p in parsed]) if kind is LABELS else pa.chunked_array([p[i] for p in parsed], type=kind)
        for i, (_, _, kind, _) in enumerate(layout.keep)
    ]
    return pa.Table.from_arrays(columns, names=[name for _, name, _, _ in layout.keep])


def _parse_chunk(lines: pa.Array, first: int, layout: TrecLayout, label: str) -> list[pa.Array]:
    """Parse one chunk of lines; ``first`` is the 0-based file line of ``lines[0]``."""
    text = pc.ascii_trim_whitespace(lines)
    # Masks and positions go through numpy (arrays.py says why not through pyarrow's conversions).
    comment = numpy_view(pc.starts_with(lines if layout.comment_at_start else text, "#"))
    skip = (numpy_view(pc.binary_length(text)) == 0) | comment
    if comment.any():
        _refuse_data_in_comments(text.filter(arrow_array(comment)), np.flatnonzero(comment) + first + 1, layout, label)
    if skip.any():
        kept = np.flatnonzero(~skip)
        text = text.filter(arrow_array(~skip))
    else:
        kept = None  # most files have no comments: skip building the index

    def line_of(index: int) -> int:
        return first + (int(kept[index]) if kept is not None else index) + 1

    parts = _split(text, layout)
    bad = numpy_view(pc.list_value_length(parts)) != layout.fields
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        found = _fields(text[index].as_py())  # error path: count the real fields
        at_least = "" if layout.exact else "at least "
        # trec_eval reads an indented '#' in qrels as data too; say why it is not a comment.
        hint = "; a comment's '#' must be the line's first character" if found and found[0].startswith("#") else ""
        raise InputError(
            f"expected {at_least}{layout.fields} whitespace-separated fields "
            f"({layout.syntax}), found {len(found)}{hint}",
            source=label,
            row=line_of(index),
        )
    values = parts.values
    starts = numpy_view(parts.offsets)[:-1]
    out = []
    for position, name, _, parse in layout.keep:
        field = values.take(arrow_array(starts + position))
        out.append(field if parse is None else parse(field, source=label, field=name, rows=line_of))
    return out


def _fields(line: str) -> list[str]:
    """The fields of a line as trec_eval splits it (at C's ``isspace`` characters only)."""
    return [field for field in _SPACES.split(line) if field]


def _refuse_data_in_comments(comments: pa.Array, lines: np.ndarray, layout: TrecLayout, label: str) -> None:
    """Raise if a comment line is also a valid data line of a query whose id starts with '#'.

    trec_eval 10 skips such a line as a comment, earlier versions read it as data (query
    ``#1``): which was meant cannot be told, and dropping a query silently is the worst
    reading. A ``#`` alone as the first field (``# 1 Q0 d 1 2.5 run``) is a comment.
    ``comments`` are the comment lines, trimmed; ``lines`` their 1-based line numbers.
    """
    glued = numpy_view(pc.binary_length(pc.ascii_trim_whitespace(pc.utf8_slice_codeunits(comments, 1, 2)))) > 0
    if not glued.any():
        return
    candidates = comments.filter(arrow_array(glued))
    parts = _split(candidates, layout)
    shaped = np.flatnonzero(numpy_view(pc.list_value_length(parts)) == layout.fields)
    values, starts = parts.values, numpy_view(parts.offsets)
    for index in shaped.tolist():
        try:
            for position, name, _, parse in layout.keep:
                if parse is not None:
                    parse(values.slice(int(starts[index]) + position, 1), source=label, field=name)
        except InputError:
            continue  # not a data line: a plain comment
        raise InputError(
            f"this line starts with '#', so trec_eval 10 skips it as a comment, but it is also a valid "
            f"line ({layout.syntax}) of query {values[int(starts[index])].as_py()!r}, as earlier trec_eval "
            "versions read it; write '# ' to keep it a comment, or give the query an id without a leading '#'",
            source=label,
            row=int(lines[np.flatnonzero(glued)[index]]),
        )


def _split(text: pa.Array, layout: TrecLayout) -> pa.ListArray:
    # Splitting at most ``fields`` times for an exact layout shows a surplus field as a
    # count of fields + 1; for a run, the tag swallows any trailing text.
    return pc.ascii_split_whitespace(text, max_splits=layout.fields if layout.exact else layout.fields - 1)


def trec_run_tag(source: object) -> str | None:
    """The tag (sixth field) of a TREC run file's last data line, as trec_eval prints it for ``runid``.

    trec_eval keeps the tag of every line it reads, so it prints the last line's when the
    lines disagree. None when ``source`` is not a TREC text file or its last data line has
    no tag.
    """
    if not isinstance(source, (str, os.PathLike)):
        return None
    src = resolve_source(source)
    if src.format != "trec":
        return None
    for line in _lines_from_the_end(src):
        fields = _fields(line)
        if fields and not fields[0].startswith("#"):
            return fields[5] if len(fields) >= 6 else None
    return None


def _lines_from_the_end(src: Source) -> Iterator[str]:
    """The lines of a text file, last first (decoding errors replaced).

    A regular file is read backwards in blocks, since the tag needs only its tail; a gzip
    file or a pipe is read whole.
    """
    if src.gzip or src.data is not None:
        yield from (line.decode("utf-8", errors="replace") for line in reversed(_LINE_END.split(read_all(src).to_pybytes())))
        return
    try:
        with open(src.path, "rb") as stream:
            end, partial = stream.seek(0, os.SEEK_END), b""
            while end > 0:
                start = max(0, end - _TAIL_BLOCK)
                stream.seek(start)
                pieces = _LINE_END.split(stream.read(end - start) + partial)
                # The first piece may be the end of a line that starts in an earlier block.
                partial = pieces.pop(0) if start > 0 else b""
                yield from (line.decode("utf-8", errors="replace") for line in reversed(pieces))
                end = start
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", source=src.label) from exc
