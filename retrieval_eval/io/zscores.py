"""trec_eval's z-scores file (``-Z``) and its conversion of per-query values into z-scores.

The file (get_zscores.c): one line per (query, measure), ``qid measure mean stddev``, exactly 4
fields separated by ASCII whitespace; no comments (a ``#`` line is data), no blank lines. A value
``v`` of ``measure`` for query ``qid`` becomes (convert_zscores.c):

- ``(v - mean) / stddev`` when stddev is not 0;
- ``0`` when stddev is 0 and ``v == mean``; :data:`MISSING_ZSCORE` (-1000000) when it is not;
- :data:`MISSING_ZSCORE` when the file has no line for (qid, measure), and for every measure
  of a qid the file does not have.

trec_eval finds the pair by a binary search over the lines sorted by ``strcmp`` of qid, then of
measure, whose upper bound is one past the end: a measure that sorts after every measure of its
query is compared with the entry that follows, the first measure of the next query, and takes
that entry's mean and standard deviation when the names are equal. That is reproduced. Past the
last query (a qid, or the last query's measure, sorting after all of the file's) trec_eval reads
outside its tables, which crashed it (a segmentation fault) wherever we tried; we return
:data:`MISSING_ZSCORE` there, the value trec_eval gives a pair it does not find.

Not reproduced, as they leave no defined answer: a (qid, measure) pair given twice (trec_eval
uses whichever its unstable sort puts first) is an error naming both lines, and so is a mean or
standard deviation that is not a finite decimal number (trec_eval's ``atof`` reads ``abc`` as 0).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

from retrieval_eval.errors import InputError
from retrieval_eval.io.sources import read_all, resolve_source

#: What trec_eval gives a value it cannot convert (trec_eval.h's MISSING_ZSCORE_VALUE).
MISSING_ZSCORE = -1000000.0

_NUMBER = re.compile(rb"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


@dataclass(frozen=True, eq=False)
class ZScores:
    """A z-scores file, read: per query (sorted by bytes), its measures (sorted) with mean and standard deviation.

    ``entries[qid]``: ``{measure: (mean, stddev)}``; ``last_measure[qid]``: its greatest measure
    name (bytes); ``next_first[qid]``: the first measure of the next query and its statistics
    (None for the last query), the entry trec_eval's search reads past the query's own.
    """

    source: str
    entries: dict[bytes, dict[bytes, tuple[float, float]]]
    last_measure: dict[bytes, bytes]
    next_first: dict[bytes, tuple[bytes, tuple[float, float]] | None]

    def convert(self, query_id: str, name: str, value: float) -> float:
        """The z-score trec_eval 10 prints for ``value`` of measure ``name`` (as trec_eval prints it) for ``query_id``."""
        qid = query_id.encode()
        measures = self.entries.get(qid)
        if measures is None:
            return MISSING_ZSCORE
        meas = name.encode()
        stats = measures.get(meas)
        if stats is None:
            following = self.next_first[qid]
            if following is None or meas <= self.last_measure[qid] or following[0] != meas:
                return MISSING_ZSCORE
            stats = following[1]
        mean, stddev = stats
        if stddev:
            return (value - mean) / stddev
        return 0.0 if value == mean else MISSING_ZSCORE

    def __repr__(self) -> str:
        return f"ZScores({self.source!r}, queries={len(self.entries)})"


def read_zscores(path: str | os.PathLike[str]) -> ZScores:
    """Read a z-scores file (``qid measure mean stddev`` per line; optionally gzip-compressed, or ``-`` for stdin).

    Raises
    ------
    InputError
        The file is missing or empty; a line has not exactly 4 fields; a mean or standard
        deviation is not a finite decimal number; a (qid, measure) pair is given twice. The
        message names the file and the line.
    """
    src = resolve_source(path)
    text = read_all(src).to_pybytes()
    if not text:
        raise InputError("empty file (no z-scores)", source=src.label)
    lines = text[:-1].split(b"\n") if text.endswith(b"\n") else text.split(b"\n")
    rows: dict[tuple[bytes, bytes], tuple[int, float, float]] = {}
    for number, line in enumerate(lines, start=1):
        fields = line.split()  # at C's isspace characters, as get_zscores.c splits
        if len(fields) != 4:
            raise InputError(f"expected 4 whitespace-separated fields (qid measure mean stddev), found {len(fields)}",
                             source=src.label, row=number)
        qid, meas = fields[0], fields[1]
        mean, stddev = (_number(field, what, src.label, number) for field, what in ((fields[2], "mean"), (fields[3], "stddev")))
        if (qid, meas) in rows:
            raise InputError(
                f"query {_text(qid)!r} measure {_text(meas)!r} is given twice (also line {rows[qid, meas][0]})",
                source=src.label, row=number,
            )
        rows[qid, meas] = (number, mean, stddev)
    entries: dict[bytes, dict[bytes, tuple[float, float]]] = {}
    for qid, meas in sorted(rows):  # bytes order: strcmp's
        entries.setdefault(qid, {})[meas] = rows[qid, meas][1:]
    qids = list(entries)
    last_measure = {qid: max(entries[qid]) for qid in qids}
    next_first: dict[bytes, tuple[bytes, tuple[float, float]] | None] = {}
    for qid, following in zip(qids, [*qids[1:], None]):
        next_first[qid] = None if following is None else next(iter(entries[following].items()))
    return ZScores(src.label, entries, last_measure, next_first)


def _number(field: bytes, what: str, source: str, line: int) -> float:
    value = float(field) if _NUMBER.match(field) else math.nan
    if not math.isfinite(value):
        raise InputError(f"{what} must be a finite decimal number, got {_text(field)!r}", source=source, row=line, field=what)
    return value


def _text(field: bytes) -> str:
    return field.decode("utf-8", errors="replace")
