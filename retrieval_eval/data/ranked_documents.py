"""The join of measures that need every ranked document's score and judgment, not only its label: ir_measures' Compat.

:func:`rank_documents` ranks each run query's distinct documents as the other joins do (one sort,
one lookup of the judgments) and keeps, for each, its rank, its slot in the qrels' judgment index
and the score the duplicate policy kept, so a measure can also order the judged documents by the
run's scores (Compat's ideal ranking).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kernels.core.judged_ranks_numpy import rank_distinct_documents
from ._table import raise_on_duplicates
from .join import _REPEATED, _join_arguments
from .qrels import Qrels
from .run import Run


@dataclass(frozen=True, eq=False)
class RankedDocuments:
    """Every run query's distinct documents in rank order, flat: document j is of run query ``query[j]``.

    ``rank[j]`` is its 0-based rank in its query, ``tie_start[j]`` and ``tie_end[j]`` the ranks
    where its group of equal scores starts and ends (exclusive), ``slot[j]`` its slot in
    ``qrels.judgment_arrays`` (-1: unjudged), ``score[j]`` its score; ``n_ranked[q]`` per run query.
    """

    run: Run
    ties: str
    n_ranked: np.ndarray
    query: np.ndarray
    rank: np.ndarray
    tie_start: np.ndarray
    tie_end: np.ndarray
    slot: np.ndarray
    score: np.ndarray


def rank_documents(qrels: Qrels, run: Run, *, duplicates: str = "last", ties: str = "docid") -> RankedDocuments:
    """Rank each run query's distinct documents by score, descending, ``ties`` ordering equal scores (see ``rank_run``)."""
    run_arrays, judgments, group_of_query, rule = _join_arguments(qrels, run, duplicates, ties)
    n_ranked, duplicate_rows, query, primary, _, slot, score = rank_distinct_documents(run_arrays, judgments, group_of_query, rule)
    raise_on_duplicates(duplicate_rows, run.table, run.source, _REPEATED)
    m = query.shape[0]
    rank = np.arange(m) - (np.cumsum(n_ranked) - n_ranked)[query] if m else np.empty(0, dtype=np.int64)
    # Documents of equal (query, score) share a primary code, and follow one another.
    starts = np.ones(m, dtype=np.bool_)
    starts[1:] = primary[1:] != primary[:-1]
    first = np.flatnonzero(starts)
    group = np.cumsum(starts) - 1
    ends = np.append(first[1:], m)
    shift = rank - np.arange(m)
    return RankedDocuments(
        run, ties, n_ranked, query, rank, first[group] + shift, ends[group] + shift, slot, score
    )
