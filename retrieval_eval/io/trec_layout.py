"""The layout of a TREC text file's lines: how many fields, which are kept, and how each is typed."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from retrieval_eval.io.coerce import Parser

#: The type of a qrels label column: int64, or float64 when some label is not a whole number
#: (:func:`retrieval_eval.io.coerce.parse_label_text`); chunks read apart agree on it once joined.
LABELS = None


@dataclass(frozen=True)
class TrecLayout:
    """Which fields of a TREC line are kept, and how each is typed."""

    fields: int  # number of fields required
    exact: bool  # True: exactly ``fields``; False: at least ``fields``
    syntax: str  # the line's syntax, for error messages
    keep: tuple[tuple[int, str, pa.DataType | None, Parser | None], ...]  # (position, name, type or LABELS, parser)
    comment_at_start: bool  # True: '#' is a comment only as a line's first byte; False: its first non-blank
