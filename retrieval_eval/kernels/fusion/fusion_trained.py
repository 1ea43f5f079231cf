"""ranx 0.3.21's trained fusion methods: what each estimates from judged runs, and the fused scores it then gives.

Training (ranx's ``*_train(qrels, runs)``) reads each run's *hit list* for every judged query:
``h[i]`` is 1 when the document at 0-based position i of the run is relevant (judged 1 or more:
ranx's ``get_hit_lists`` with ``rel_lvl=1``), its length the run's depth ``d`` for the query (0
for a query the run lacks). The queries are the judged ones, in ranx's order (ids sorted);
``Q`` is their number. Sums over queries are taken in that order, one addition at a time, as
ranx's compiled functions add them (ranx/fusion/*.py, ranx/metrics/average_precision.py):

- ``probfuse`` (Lillis et al., SIGIR 2006), ``n_segments`` S: each hit list cut into S segments of
  ``ceil(d / S)`` positions; ``P_k = sum_q (hits in segment k / its length) / Q`` (an empty
  segment adds nothing);
- ``segfuse`` (Shokouhi, ECIR 2007): the fixed segments [0, 5), [5, 15), [15, 35), ... ending at
  ``10 * 2 ** (k - 1) - 5``, k = 1..10; ``P_k = sum_q (hits in segment k / its full size) / Q``;
- ``slidefuse`` (Lillis et al., ECIR 2008) and ``posfuse``: ``P_i = (queries with a hit at i) /
  (queries whose hit list reaches i)``, for i below the longest hit list;
- ``bayesfuse`` (Aslam and Montague, SIGIR 2001): over the segments between the cut-offs 0, 5, 10,
  15, 20, 30, 100, 200, 500, 1000, ``p = sum_q (hits / segment size) / Q`` (each term divided
  before it is added), 0.001 where p is 0, ``1 - p`` 0.001 where that is 0, and every position of
  the segment gets ``log(p / (1 - p))`` (1000 positions);
- ``mapfuse`` (Lillis et al., 2010): each run's average precision per judged query (ranx's ``map``:
  ``sum over hits at i of hits_so_far / (i + 1)``, over the query's relevant documents, 0
  without any), whose mean (numpy's ``np.mean`` over the queries in order, as ranx's
  ``evaluate``) the caller takes.

Fusing (ranx's ``probfuse(runs, probs)``, ...): run r gives the document at 1-based position
``p`` of its normalized run (depth ``d``) a value, and the values add up over the runs having the
document (from 0, in run order; ``bayesfuse`` adds ``log(0.001 / 0.999)`` for a run lacking it):

- ``probfuse``: ``P_k / (k + 1)`` for ``k = (p - 1) // ceil(d / S)``, S the run's number of probabilities;
- ``segfuse``: ``P_k * (s + 1)``, k the fixed segment of ``p - 1`` (0 past the given ones), s the
  document's normalized score;
- ``slidefuse``, window ``w``: the sum of ``P_i`` for i from ``max(p - 1 - w, 0)`` to ``min(p - 1 + w,
  d - 1)`` (those i the probabilities reach), divided by the window's length;
- ``posfuse``: ``P_{p-1}`` (0 past the probabilities);
- ``mapfuse``: ``MAP_r / p``;
- ``bayesfuse``: the log odds at ``p - 1`` (``depth_ok`` checks that they reach every depth: ranx reads
  past its array there).

Logarithms are ``math.log`` (glibc's, in every build: numba's ``np.log`` is the same, numpy's differs
in the last bit for about 0.4% of arguments).
"""

from __future__ import annotations

import math

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from ..core.bundles import JudgmentArrays
from ..core.ranking import judgment_positions

PROBFUSE = 0
SEGFUSE = 1
SLIDEFUSE = 2
POSFUSE = 3
MAPFUSE = 4
BAYESFUSE = 5

#: SegFuse's segment bounds: 0, then ``10 * 2 ** (k - 1) - 5`` for k = 1..10.
SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)], dtype=np.int64)
#: BayesFuse's cut-offs (ranx's ``estimate_bayesfuse_log_odds``): its log odds cover the first 1000 positions.
BAYESFUSE_CUTOFFS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000], dtype=np.int64)
#: What BayesFuse adds for a run lacking the document: the log odds of a precision of 0.001.
MISSING_LOG_ODDS = math.log(0.001 / 0.999)


def _labels_example() -> tuple:
    """Integer document 1 of aligned query 0 looked up in qrels judging it 2 (integer document 2 unjudged)."""
    no_offsets, no_bytes = read_only([0], np.int64), read_only([], np.uint8)
    judgments = JudgmentArrays(
        read_only([0, 1], np.int64), read_only([0], np.int64), read_only([1], np.uint64), read_only([2], np.int64),
        read_only([1], np.int64), no_offsets, no_bytes,
    )
    return read_only([0, 2], np.int64), read_only([0], np.int64), read_only([1, 2], np.uint64), no_offsets, no_bytes, False, judgments


# Serial: it runs once per training, 28 ms for 1.1M aligned rows, where a parallel build would cost a second to compile.
@jit(example=_labels_example)
def row_labels(
    offsets: np.ndarray,
    qrels_query: np.ndarray,
    keys: np.ndarray,
    id_offsets: np.ndarray,
    id_data: np.ndarray,
    is_string: bool,
    judgments: JudgmentArrays,
) -> np.ndarray:
    """Each aligned row's judged label (0 when unjudged), by the judgment lookup of the single join.

    Aligned query q's rows ``offsets[q]:offsets[q + 1]`` (documents ``keys``, ``id_offsets``,
    ``id_data``) are looked up among judged query ``qrels_query[q]``'s documents (-1: none) in the
    per-query judgment index of :class:`~retrieval_eval.data.qrels.Qrels`.
    """
    n_queries = offsets.shape[0] - 1
    labels = np.zeros(keys.shape[0], dtype=np.int64)
    for q in prange(n_queries):
        rows = np.arange(offsets[q], offsets[q + 1], dtype=np.int64)
        slots = judgment_positions(
            rows, keys, id_offsets, id_data, qrels_query[q], judgments.group_offsets, judgments.rows, judgments.keys,
            judgments.n_judged, judgments.offsets, judgments.data, is_string,
        )
        for i in range(rows.shape[0]):
            if slots[i] >= 0:
                labels[rows[i]] = judgments.labels[slots[i]]
    return labels


@jit
def _hit_list(offsets: np.ndarray, ranks: np.ndarray, depths: np.ndarray, relevant: np.ndarray, q: int, r: int) -> np.ndarray:
    """Run r's hit list for aligned query q (empty for q = -1: a judged query no run has)."""
    if q < 0:
        return np.zeros(0, dtype=np.float64)
    hits = np.zeros(depths[q, r], dtype=np.float64)
    for row in range(offsets[q], offsets[q + 1]):
        p = ranks[row, r]
        if p > 0 and relevant[row]:
            hits[p - 1] = 1.0
    return hits


@jit
def _hits_between(hits: np.ndarray, start: int, end: int) -> float:
    """``sum(hits[start:end])``, the slice cut at the list's end as Python cuts it."""
    total = 0.0
    for i in range(start, min(end, hits.shape[0])):
        total += hits[i]
    return total


def _train_example() -> tuple:
    """Two judged queries (the second no run has) and one aligned query of two rows in two runs, ProbFuse with 2 segments."""
    return (
        read_only([0, 2], np.int64), read_only([[1, 0], [2, 1]], np.int64), read_only([[2, 1]], np.int64),
        read_only([True, False], np.bool_), read_only([0, -1], np.int64), read_only([1, 3], np.int64), PROBFUSE, 2,
    )


# Serial: ranx adds the queries' terms in its order of the queries, which a parallel loop would not keep;
# one pass over the rows of every run takes milliseconds, and training is done once.
@jit(example=_train_example)
def train_statistics(
    offsets: np.ndarray,
    ranks: np.ndarray,
    depths: np.ndarray,
    relevant: np.ndarray,
    train_queries: np.ndarray,
    n_relevant: np.ndarray,
    method: int,
    n_segments: int,
) -> tuple[np.ndarray, np.ndarray]:
    """What ``method`` (a code of this module) estimates for each run, as (float64[n_runs, width], int64[n_runs] lengths).

    ``train_queries``: the judged queries in ranx's order, each as its aligned query (-1: no run
    has it); ``n_relevant``: each one's documents judged 1 or more; ``relevant``: per aligned row.
    Row r holds run r's probabilities (``probfuse``: ``n_segments`` of them; ``segfuse``: 10;
    ``slidefuse``/``posfuse``: as many as the run's longest hit list, ``lengths[r]``, the rest of
    the row 0; ``bayesfuse``: 1000 log odds) or, for ``mapfuse``, its average precision on each
    judged query, in order.
    """
    n_runs = ranks.shape[1]
    n_train = train_queries.shape[0]
    if method == PROBFUSE:
        width = n_segments
    elif method == SEGFUSE:
        width = SEGFUSE_BOUNDS.shape[0] - 1
    elif method == BAYESFUSE:
        width = BAYESFUSE_CUTOFFS[-1]
    elif method == MAPFUSE:
        width = n_train
    else:
        width = 0
        for t in range(n_train):
            if train_queries[t] >= 0:
                width = max(width, depths[train_queries[t]].max())
    values = np.zeros((n_runs, width), dtype=np.float64)
    lengths = np.full(n_runs, width, dtype=np.int64)
    n_cuts = BAYESFUSE_CUTOFFS.shape[0] - 1
    for r in range(n_runs):
        numerators = np.zeros(width, dtype=np.float64)
        denominators = np.zeros(width, dtype=np.float64)
        precision = np.zeros(n_cuts, dtype=np.float64)
        longest = 0
        for t in range(n_train):
            hits = _hit_list(offsets, ranks, depths, relevant, train_queries[t], r)
            d = hits.shape[0]
            if method == PROBFUSE:
                size = math.ceil(d / n_segments)
                for k in range(n_segments):
                    start = k * size
                    end = min((k + 1) * size, d)
                    if end > start:
                        values[r, k] += _hits_between(hits, start, end) / (end - start)
            elif method == SEGFUSE:
                for k in range(width):
                    start = SEGFUSE_BOUNDS[k]
                    end = SEGFUSE_BOUNDS[k + 1]
                    values[r, k] += _hits_between(hits, start, end) / (end - start)
            elif method == BAYESFUSE:
                for k in range(n_cuts):
                    start = BAYESFUSE_CUTOFFS[k]
                    end = BAYESFUSE_CUTOFFS[k + 1]
                    precision[k] += (_hits_between(hits, start, end) / (end - start)) / n_train
            elif method == MAPFUSE:
                if n_relevant[t] > 0:
                    found = 0.0
                    total = 0.0
                    for i in range(d):
                        if hits[i] > 0:
                            found += 1.0
                            total += found / (i + 1)
                    values[r, t] = total / n_relevant[t]
            else:
                longest = max(longest, d)
                for i in range(d):
                    numerators[i] += hits[i]
                    denominators[i] += 1.0
        if method == PROBFUSE or method == SEGFUSE:
            for k in range(width):
                values[r, k] = values[r, k] / n_train
        elif method == BAYESFUSE:
            for k in range(n_cuts):
                p = precision[k]
                if p == 0:
                    p += 0.001
                rest = 1 - p
                if rest == 0:
                    rest += 0.001
                odds = math.log(p / rest)
                for i in range(BAYESFUSE_CUTOFFS[k], BAYESFUSE_CUTOFFS[k + 1]):
                    values[r, i] = odds
        elif method == SLIDEFUSE or method == POSFUSE:
            lengths[r] = longest
            for i in range(longest):
                values[r, i] = numerators[i] / denominators[i]
    return values, lengths


def _points_example() -> tuple:
    """One query of two rows in two runs (run 1 lacks the first), ProbFuse with two segments per run."""
    return (
        read_only([0, 2], np.int64), read_only([[0.5, np.nan], [0.1, 1.0]], np.float64),
        read_only([[1, 0], [2, 1]], np.int64), read_only([[2, 1]], np.int64), PROBFUSE,
        read_only([[0.5, 0.25], [0.4, 0.1]], np.float64), read_only([2, 2], np.int64), 1,
    )


@parallel_jit(example=_points_example)
def trained_points(
    offsets: np.ndarray,
    scores: np.ndarray,
    ranks: np.ndarray,
    depths: np.ndarray,
    method: int,
    values: np.ndarray,
    lengths: np.ndarray,
    window: int,
) -> np.ndarray:
    """Each aligned row's fused score under a trained ``method`` (module docstring).

    ``values[r, :lengths[r]]`` are run r's trained probabilities (log odds; ``mapfuse``: its MAP
    at ``values[r, 0]``); ``window`` is SlideFuse's ``w``; ``scores`` are read by SegFuse only.
    """
    n_queries = offsets.shape[0] - 1
    n_runs = ranks.shape[1]
    fused = np.empty(ranks.shape[0], dtype=np.float64)
    for q in prange(n_queries):
        for row in range(offsets[q], offsets[q + 1]):
            total = 0.0
            for r in range(n_runs):
                p = ranks[row, r]
                if p == 0:
                    if method == BAYESFUSE:
                        total += MISSING_LOG_ODDS
                    continue  # the others add 0.0, which changes no sum that starts at +0.0
                i = p - 1
                n = lengths[r]
                if method == PROBFUSE:
                    k = i // math.ceil(depths[q, r] / n)
                    total += values[r, k] / (k + 1)
                elif method == SEGFUSE:
                    probability = 0.0
                    for k in range(n):
                        if SEGFUSE_BOUNDS[k] <= i < SEGFUSE_BOUNDS[k + 1]:
                            probability = values[r, k]
                    total += probability * (scores[row, r] + 1)
                elif method == SLIDEFUSE:
                    low = max(i - window, 0)
                    high = min(i + window, depths[q, r] - 1)
                    window_sum = 0.0
                    for j in range(low, min(high + 1, n)):
                        window_sum += values[r, j]
                    total += window_sum / (high - low + 1)
                elif method == POSFUSE:
                    total += values[r, i] if i < n else 0.0
                elif method == MAPFUSE:
                    total += values[r, 0] / p
                else:
                    total += values[r, i]
            fused[row] = total
    return fused
