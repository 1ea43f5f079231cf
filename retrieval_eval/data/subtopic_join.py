"""The join of a run with subtopic judgments (ndeval's qrels: ``topic subtopic docno judgment``).

Subtopic qrels are read in the ``qrels_jg`` layout: the subtopic is the judgment group (the
TREC qrels' second column, ir_measures' ``iteration``). Each query's judged documents form its
pool, numbered in byte order of their ids within the query (ndeval's ``strcmp`` order); the run
is then joined against a plain qrels whose label is each pool document's number + 1, so the
project's one join ranks it (ties, duplicates) and names each ranked document's pool document.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ConfigError
from ..io.arrays import numpy_view, read_only
from ..kernels.trec.diversity import DiversityJudgments
from .join import RankedRun, rank_run
from .qrels import Qrels
from .run import Run


@dataclass(frozen=True, eq=False)
class SubtopicPool:
    """A subtopic qrels' pool: the pairs the kernels read, their labels, and the qrels that numbers the pool."""

    judgments: DiversityJudgments
    labels: np.ndarray
    numbered: Qrels


@dataclass(frozen=True, eq=False)
class SubtopicRun:
    """A run ranked against a subtopic pool: ``ranked.labels`` are pool numbers + 1 (0: not judged)."""

    pool: SubtopicPool
    ranked: RankedRun


_POOLS: "weakref.WeakKeyDictionary[Qrels, SubtopicPool]" = weakref.WeakKeyDictionary()


def subtopic_pool(qrels: Qrels) -> SubtopicPool:
    """The pool of ``qrels`` (read as ``qrels_jg``), built once per qrels."""
    pool = _POOLS.get(qrels)
    if pool is None:
        pool = _POOLS[qrels] = _build_pool(qrels)
    return pool


def _build_pool(qrels: Qrels) -> SubtopicPool:
    seg = qrels.segments
    if seg is None:
        raise ConfigError(f"the qrels ({qrels.source}) have no subtopics: read them with judgments='qrels_jg'")
    table, groups = qrels.table, qrels.queries
    n_rows = table.num_rows
    query = np.empty(n_rows, dtype=np.int64)
    query[groups.order] = np.repeat(np.arange(groups.n_queries, dtype=np.int64), groups.rows_per_query)
    ids = table["doc_id"]
    text = ids.cast(pa.string()) if pa.types.is_integer(ids.type) else ids
    # Arrow orders strings by their bytes: ndeval's strcmp.
    order = numpy_view(pc.sort_indices(pa.table({"q": query, "d": text}),
                                       sort_keys=[("q", "ascending"), ("d", "ascending")])).astype(np.int64)
    sorted_text = text.take(pa.array(order)).combine_chunks() if n_rows else pa.array([], pa.string())
    head = np.ones(n_rows, dtype=bool)
    if n_rows > 1:
        same_doc = numpy_view(pc.equal(sorted_text.slice(0, n_rows - 1), sorted_text.slice(1)))
        head[1:] = (query[order][1:] != query[order][:-1]) | ~same_doc
    pool_of_row = np.empty(n_rows, dtype=np.int64)
    pool_of_row[order] = np.cumsum(head) - 1
    heads = order[head]
    pool_offsets = np.searchsorted(query[heads], np.arange(groups.n_queries + 1)).astype(np.int64)

    # The kept judgment of each (query, subtopic, document), with its subtopic's place in its query.
    segment = np.repeat(np.arange(seg.n_segments), seg.n_judged)
    slot = seg.offsets[segment] + (np.arange(segment.shape[0]) - np.repeat(np.cumsum(seg.n_judged) - seg.n_judged, seg.n_judged))
    query_of_segment = np.repeat(np.arange(groups.n_queries), seg.segments_per_query)
    local = _subtopic_places(qrels, query_of_segment)[segment]
    pool = pool_of_row[seg.judged_rows[slot]]
    by_pool = np.lexsort((local, pool))
    pool, local, labels = pool[by_pool], local[by_pool], seg.judged_labels[slot][by_pool]
    n_pool = heads.shape[0]
    offsets = np.zeros(n_pool + 1, dtype=np.int64)
    np.cumsum(np.bincount(pool, minlength=n_pool), out=offsets[1:])
    judgments = DiversityJudgments(read_only(offsets), read_only(local), read_only(pool_offsets),
                                   read_only(seg.segments_per_query.astype(np.int64)))
    numbered_table = pa.table({
        "query_id": table["query_id"].take(pa.array(heads)),
        "doc_id": ids.take(pa.array(heads)),
        "relevance": pa.array(np.arange(1, n_pool + 1, dtype=np.int64)),
    })
    numbered = Qrels(numbered_table, source=qrels.source, duplicates="raise")
    return SubtopicPool(judgments, read_only(labels), numbered)


def _subtopic_places(qrels: Qrels, query_of_segment: np.ndarray) -> np.ndarray:
    """Each segment's subtopic place in its query: in order of the subtopics' first rows in the qrels.

    A query's gains are added in this order. pyndeval numbers subtopics as they first appear in
    its qrels (ndeval.c by their number, the same for a file whose subtopics first appear in
    numeric order); with an alpha other than 0.5 the order can move a sum's last bit.
    """
    seg = qrels.segments
    # every group code occurs, so unique's first indexes are each group's first row
    first_row = np.unique(qrels.groups, return_index=True)[1]
    order = np.lexsort((first_row[seg.group], query_of_segment))
    places = np.empty(order.shape[0], dtype=np.int64)
    places[order] = np.arange(order.shape[0]) - seg.query_segments[query_of_segment[order]]
    return places


def subtopic_run(qrels: Qrels, run: Run, duplicates: str, ties: str) -> SubtopicRun:
    """``run`` ranked (``ties``, ``duplicates``) against the pool of ``qrels``."""
    pool = subtopic_pool(qrels)
    return SubtopicRun(pool, rank_run(pool.numbered, run, duplicates=duplicates, ties=ties))
