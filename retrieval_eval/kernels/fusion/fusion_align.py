"""Lining up the runs of a fusion: each query's documents ranked in every run, matched across runs.

The runs' rows are concatenated and sliced by query and run
(:class:`~retrieval_eval.kernels.fusion.bundles.StackedRuns`). For each query and run, in run order:

1. the rows collapse to distinct documents (first occurrence, the score the duplicate policy
   keeps: :func:`~retrieval_eval.kernels.core.judgments.resolve_duplicates`), which is how a
   ``ranx.Run`` reads them (a dict: first position, last score);
2. the documents are ranked in ranx's order, score descending with ties as ranx's quicksort
   leaves them (:func:`~retrieval_eval.kernels.core.ranx_ties.ranx_argsort` of ``-score``), unless
   the run is in that order already (a ``ranx.Run`` read as the source);
3. the first ``top_k`` are kept, and each is matched among the documents the query has so far
   (the earlier runs' and this run's higher ones) by its 64-bit key in an open-addressing
   table, a key match confirmed on the bytes for string ids: a hash collision never merges
   two documents. A document not seen yet takes the next slot.

So a query's slots are ranx's candidate order: run 0's documents in its ranked order, then run
1's documents run 0 lacks, in run 1's order, and so on (the order in which ranx's fusion
functions insert documents into the fused dict).
"""

from __future__ import annotations

import numpy as np

from .._config import jit, read_only
from ..core.duplicate_policy import KEEP_LAST
from ..core.hashing import same_bytes
from ..core.judgments import resolve_duplicates
from ..core.ranx_ties import ranx_argsort
from .bundles import StackedRuns

# Fibonacci hashing of the 64-bit keys into the table's slots (the keys of integer ids are the
# ids themselves, often consecutive: the multiplication spreads them).
_SPREAD = np.uint64(0x9E3779B97F4A7C15)


def _example() -> tuple:
    """Two runs of one query: run 0 retrieves integer documents 1 and 2 (tied), run 1 retrieves 2."""
    no_offsets, no_bytes = read_only([0], np.int64), read_only([], np.uint8)
    runs = StackedRuns(
        read_only([[0, 2]], np.int64), read_only([[2, 3]], np.int64), read_only([0, 1, 2], np.int64),
        read_only([1, 2, 2], np.uint64), no_offsets, no_bytes, read_only([1.0, 1.0, 0.5], np.float64),
        read_only([False, False], np.bool_), read_only([0, 3], np.int64),
    )
    return runs, False, KEEP_LAST, 10


def _work(runs: StackedRuns, *rest: object) -> int:
    # As Python this costs 14 us a row (measured on 77k rows), four of the units auto mode counts.
    return 4 * runs.order.shape[0]


# Serial: a fusion aligns its runs once (0.19 s for 2 runs x 10k queries x 100 documents), and a
# parallel build would take 7 s to compile for at most a 2x gain on two cores.
@jit(example=_example, work=_work)
def align_runs(
    runs: StackedRuns, is_string: bool, duplicate_policy: int, top_k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The aligned rows of every query (module docstring), in slots of a buffer with room for all rows.

    ``is_string``: the ids are strings (a key match is confirmed on the bytes);
    ``duplicate_policy``: the code of which repeated row's score a document keeps; ``top_k``:
    documents kept per query and run. Returns ``(slot_rows, slot_scores,
    slot_ranks, depths, counts, duplicate_rows)``: per slot the row of the document's first
    occurrence in the first run that has it, run r's kept score (NaN where r lacks it) and
    1-based rank (0); per query and run the documents kept (``depths``) and the first repeated
    row under the policy RAISE (-1: none); per query the documents it holds (``counts``).
    """
    starts, stops, order, keys = runs.starts, runs.stops, runs.order, runs.keys
    id_offsets, id_data, scores, capacity_offsets = runs.offsets, runs.data, runs.scores, runs.capacity_offsets
    n_queries, n_runs = starts.shape
    capacity = capacity_offsets[n_queries]
    slot_rows = np.full(capacity, -1, dtype=np.int64)
    slot_scores = np.full((capacity, n_runs), np.nan, dtype=np.float64)
    slot_ranks = np.zeros((capacity, n_runs), dtype=np.int64)
    depths = np.zeros((n_queries, n_runs), dtype=np.int64)
    counts = np.zeros(n_queries, dtype=np.int64)
    duplicate_rows = np.full((n_queries, n_runs), -1, dtype=np.int64)
    for q in range(n_queries):
        base = capacity_offsets[q]
        bits = 1
        while (1 << bits) < 2 * (capacity_offsets[q + 1] - base):
            bits += 1
        mask = (1 << bits) - 1
        shift = np.uint64(64 - bits)
        table = np.full(1 << bits, -1, dtype=np.int64)
        n = 0
        for r in range(n_runs):
            rows = order[starts[q, r] : stops[q, r]]
            if rows.shape[0] == 0:
                continue
            first_rows, kept, repeated = resolve_duplicates(
                rows, keys, id_offsets, id_data, is_string, scores, duplicate_policy
            )
            duplicate_rows[q, r] = repeated
            ranked = np.arange(first_rows.shape[0]) if runs.in_ranx_order[r] else ranx_argsort(-kept)
            depth = min(first_rows.shape[0], top_k)
            depths[q, r] = depth
            for position in range(depth):
                document = ranked[position]
                row = first_rows[document]
                slot = np.int64((keys[row] * _SPREAD) >> shift)
                while True:
                    j = table[slot]
                    if j < 0:
                        j = n
                        n += 1
                        table[slot] = j
                        slot_rows[base + j] = row
                        break
                    other = slot_rows[base + j]
                    if keys[other] == keys[row] and (
                        not is_string or same_bytes(id_offsets, id_data, other, id_offsets, id_data, row)
                    ):
                        break
                    slot = (slot + 1) & mask
                slot_scores[base + j, r] = kept[document]
                slot_ranks[base + j, r] = position + 1
        counts[q] = n
    return slot_rows, slot_scores, slot_ranks, depths, counts, duplicate_rows
