"""The judgments of the preference measures, per query: its judged documents in docno order, and its judgments.

trec_eval's preference measures (form_prefs_counts.c) number a query's judged documents by where
the run ranks them and, for those it did not retrieve, by docno in ``strcmp`` order. So each
query's distinct judged documents (over all its judgment groups) are listed here in that byte
order, with a view sorted by id key for the run's lookups (as
:func:`retrieval_eval.kernels.core.ranking.find_judgment` reads one), and each judgment refers to its
document by that index.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from ..core.sorting import stable_order
from ..core.tiebreak import compare_ids

# Up to this many rows an insertion sort; longer lists are merged from sorted runs of this length.
_RUN = 32


@jit
def _insertion_sort_by_id(
    order: np.ndarray, lo: int, hi: int, rows: np.ndarray, keys: np.ndarray, offsets: np.ndarray, data: np.ndarray,
    is_string: bool,
) -> None:
    for i in range(lo + 1, hi):
        moving = order[i]
        j = i - 1
        while j >= lo and compare_ids(keys, offsets, data, is_string, rows[order[j]], rows[moving]) > 0:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = moving


@jit
def order_by_id(rows: np.ndarray, keys: np.ndarray, offsets: np.ndarray, data: np.ndarray, is_string: bool) -> np.ndarray:
    """Positions that sort ``rows`` by their ids in ascending ``strcmp`` order, equal ids in input order."""
    n = rows.shape[0]
    order = np.arange(n)
    for lo in range(0, n, _RUN):
        _insertion_sort_by_id(order, lo, min(lo + _RUN, n), rows, keys, offsets, data, is_string)
    merged = np.empty(n, dtype=np.int64)
    width = _RUN
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j = lo, mid
            for k in range(lo, hi):
                # The right half goes first only when strictly smaller: equal ids keep their order.
                if j < hi and (i >= mid or compare_ids(keys, offsets, data, is_string, rows[order[j]], rows[order[i]]) < 0):
                    merged[k] = order[j]
                    j += 1
                else:
                    merged[k] = order[i]
                    i += 1
        order, merged = merged, order
        width *= 2
    return order


def _example() -> tuple:
    """One query judging integer documents 2 (level 1) and 1 (level 0) in one group."""
    no_offsets, no_bytes = read_only([0], np.int64), read_only([], np.uint8)
    return (
        read_only([0, 1], np.int64), read_only([0], np.int64), read_only([0], np.int64), read_only([0], np.int64),
        read_only([2], np.int64), read_only([0, 1], np.int64), read_only([1.0, 0.0], np.float64),
        read_only([2, 1], np.uint64), no_offsets, no_bytes, False,
    )


@parallel_jit(example=_example)
def index_preference_judgments(
    query_segments: np.ndarray,
    segment_group: np.ndarray,
    segment_subgroup: np.ndarray,
    segment_start: np.ndarray,
    segment_size: np.ndarray,
    judged_rows: np.ndarray,
    judged_levels: np.ndarray,
    keys: np.ndarray,
    offsets: np.ndarray,
    data: np.ndarray,
    is_string: bool,
) -> tuple[np.ndarray, ...]:
    """Index each query's judgments for the preference measures.

    Query c has segments ``query_segments[c] : query_segments[c + 1]``, one per (group, subgroup)
    in code order, each judging distinct documents: segment s's are the rows
    ``judged_rows[segment_start[s] : segment_start[s] + segment_size[s]]`` with levels at the same
    slots. Returns padded CSR arrays over ``entry_offsets`` (one slot per judgment):

    - ``entry_offsets`` (per query, length n_queries + 1), then per judgment, in segment order:
      ``entry_group``, ``entry_subgroup``, ``entry_level``, ``entry_doc`` (the index of its document
      among the query's) and ``entry_row`` (its row);
    - ``n_docs`` per query, and in its first ``n_docs`` slots ``doc_rows``: a row of each distinct
      document, in ascending docno order; ``lookup_rows``, ``lookup_keys`` and ``lookup_doc``: the
      same documents sorted by id key, with their index in docno order.
    """
    n_queries = query_segments.shape[0] - 1
    sizes = np.zeros(n_queries, dtype=np.int64)
    for c in range(n_queries):
        for s in range(query_segments[c], query_segments[c + 1]):
            sizes[c] += segment_size[s]
    entry_offsets = np.zeros(n_queries + 1, dtype=np.int64)
    entry_offsets[1:] = np.cumsum(sizes)
    total = entry_offsets[n_queries]
    entry_group = np.zeros(total, dtype=np.int64)
    entry_subgroup = np.zeros(total, dtype=np.int64)
    entry_level = np.zeros(total, dtype=np.float64)
    entry_doc = np.zeros(total, dtype=np.int64)
    entry_row = np.zeros(total, dtype=np.int64)
    # Zeros, not garbage, in the padding past each query's documents: outputs are the same bits on every run.
    doc_rows = np.zeros(total, dtype=np.int64)
    lookup_rows = np.zeros(total, dtype=np.int64)
    lookup_keys = np.zeros(total, dtype=np.uint64)
    lookup_doc = np.zeros(total, dtype=np.int64)
    n_docs = np.zeros(n_queries, dtype=np.int64)
    for c in prange(n_queries):
        base = entry_offsets[c]
        e = base
        for s in range(query_segments[c], query_segments[c + 1]):
            for t in range(segment_start[s], segment_start[s] + segment_size[s]):
                entry_group[e] = segment_group[s]
                entry_subgroup[e] = segment_subgroup[s]
                entry_level[e] = judged_levels[t]
                entry_row[e] = judged_rows[t]
                e += 1
        n = e - base
        rows = entry_row[base:e]
        by_id = order_by_id(rows, keys, offsets, data, is_string)
        m = 0
        for i in range(n):
            row = rows[by_id[i]]
            if i == 0 or compare_ids(keys, offsets, data, is_string, doc_rows[base + m - 1], row) != 0:
                doc_rows[base + m] = row
                m += 1
            entry_doc[base + by_id[i]] = m - 1
        n_docs[c] = m
        doc_keys = np.empty(m, dtype=np.uint64)
        for d in range(m):
            doc_keys[d] = keys[doc_rows[base + d]]
        by_key = stable_order(doc_keys, False)
        for d in range(m):
            lookup_rows[base + d] = doc_rows[base + by_key[d]]
            lookup_keys[base + d] = doc_keys[by_key[d]]
            lookup_doc[base + d] = by_key[d]
    return (
        entry_offsets, entry_group, entry_subgroup, entry_level, entry_doc, entry_row,
        n_docs, doc_rows, lookup_rows, lookup_keys, lookup_doc,
    )
