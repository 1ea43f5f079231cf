"""Score one piece of a run (rows of whole queries) and tally what the pieces add up to.

A piece is a chunk of a stream, a bucket, or a Dask partition: every query in it has all
its rows there. Pieces are scored with the same plan and kernels as :func:`evaluate`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import pandas as pd
import pyarrow as pa

from ..data import Run
from ..data.join import QueryAlignment, align_run_queries
from ..errors import InputError
from ..metrics.evaluator import Evaluator


@dataclass(frozen=True, eq=False)
class ScoredPiece:
    """The per-query table of a piece, and which queries it held.

    ``judged``: qrels query codes scored here. ``n_both``/``n_retrieved_only``: the piece's
    queries that are judged / not judged.
    """

    per_query: pd.DataFrame
    judged: np.ndarray
    n_both: int
    n_retrieved_only: int


def score_piece(evaluator: Evaluator, run: Run) -> ScoredPiece:
    """Score a run of whole queries.

    An error about the rows (a repeated document under ``run_duplicates='raise'``) names the
    query and the document, and the run's source; not a row number, which would count the
    rows of the piece rather than of a file.
    """
    with rows_of_a_piece(run.source):
        alignment = align_run_queries(evaluator.qrels, run, evaluator.options.query_set)
        columns = evaluator.score(run, alignment)
    judged = alignment.qrels_query[alignment.qrels_query >= 0]
    table = evaluator.per_query_table(alignment, columns)
    return ScoredPiece(table, judged, alignment.n_both, alignment.n_retrieved_only)


@contextmanager
def rows_of_a_piece(source: str) -> Iterator[None]:
    """Drop the row number from an input error raised inside: it would count the piece's rows, not a file's."""
    try:
        yield
    except InputError as error:
        if error.row is None:
            raise
        raise InputError(error.detail, source=source, field=error.field) from error


def score_judged_only(evaluator: Evaluator, codes: np.ndarray) -> pd.DataFrame:
    """The per-query table of the judged queries ``codes`` that the run never retrieved for."""
    qrels = evaluator.qrels
    empty = pa.table(
        {
            "query_id": pa.array([], qrels.query_ids.type),
            "doc_id": pa.array([], qrels.doc_ids.values.type),
            "score": pa.array([], pa.float64()),
        }
    )
    run = Run(empty, source="<no rows>")
    codes = np.asarray(codes, dtype=np.int64)
    alignment = QueryAlignment(
        qrels.query_ids.take(pa.array(codes)),
        np.full(len(codes), -1, dtype=np.int64),
        codes,
        n_judged_only=len(codes),
        n_retrieved_only=0,
        n_both=0,
    )
    return evaluator.per_query_table(alignment, evaluator.score(run, alignment))


class PieceCounts(Protocol):
    """The counts of a scored piece (a :class:`ScoredPiece`, or what a Dask task sends back)."""

    n_both: int
    n_retrieved_only: int
    judged: np.ndarray


@dataclass
class QueryTally:
    """What the scored pieces add up to: query counts, and the judged queries seen (to find the rest)."""

    n_qrels_queries: int
    n_both: int = 0
    n_retrieved_only: int = 0
    seen: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.seen = np.zeros(self.n_qrels_queries, dtype=np.bool_)

    def add(self, piece: PieceCounts) -> None:
        self.n_both += piece.n_both
        self.n_retrieved_only += piece.n_retrieved_only
        self.seen[piece.judged] = True

    @property
    def judged_only(self) -> np.ndarray:
        """Codes of the judged queries no piece retrieved for."""
        return np.flatnonzero(~self.seen)

    def counts(self) -> dict[str, int]:
        return {
            "judged_only": int(len(self.judged_only)),
            "retrieved_only": self.n_retrieved_only,
            "both": self.n_both,
        }
