"""trec_eval's measures at points set relative to num_rel, each point a parameter: Rprec_mult and 11pt_avg.

Per query, with ``n`` ranked documents, ``R`` = num_rel (judged labels >= rel) and the relevant
retrieved documents at 0-based ranks ``r_1 < r_2 < ...`` (H of them, num_rel_ret):

- ``rprec_mult(mult=m)`` (m_Rprec_mult.c): precision at c = (long)(m R + 0.9) documents:
  (relevant in the top min(c, n)) / c, and 0 when c <= 0.
- ``iprec_11pt(levels=l_1;...;l_L)`` (m_11pt_avg.c): the levels in the order given, each turned
  into a count of relevant documents c_v = lround(l_v R); trec_eval walks the ranking from the
  bottom keeping the best precision seen (``int_precis``, starting from H / n) and adds it once
  for each level, in the order it meets them: first the trailing levels with c_v > H are
  dropped (they add nothing), then, at the j-th relevant document (j = H down to 1), the
  levels with c_v = j from the end of the list, and once the walk is over every level left,
  with the final best precision. The sum is divided by L. Levels in ascending order give the
  11-point average; in another order some levels are missed by the walk and take the final
  value, exactly as trec_eval computes them. With nothing ranked (``-J``) H / n is 0/0, a NaN.

A judged query the run lacks is scored against ``stand_in`` unjudged documents (trec_eval's
``-c``, see :mod:`retrieval_eval.kernels.trec.trec`).
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange
from ..core.bundles import FoundArrays, IdealArrays, QueryPairs
from .trec import example_judged_ranks
from .trec_arith import NEGATIVE_NAN, long_cast, lround


def _example() -> tuple:
    """The judged ranks of :func:`.trec.example_judged_ranks`; one multiple of R, one level list of two levels."""
    return (
        *example_judged_ranks(), 1, np.iinfo(np.int64).max, 1, np.array([0.2]), np.array([0.0, 1.0]),
        np.array([0, 2], dtype=np.int64),
    )


@jit
def _query_levels(
    q: int,
    queries: QueryPairs,
    found_docs: FoundArrays,
    ideal_lists: IdealArrays,
    rel: int,
    max_docs: int,
    stand_in: int,
    multiples: np.ndarray,
    levels: np.ndarray,
    level_offsets: np.ndarray,
    rprec_mult: np.ndarray,
    eleven_point: np.ndarray,
) -> None:
    """Row q of ``rprec_mult`` and ``eleven_point`` (see :func:`level_measures`)."""
    run_query, qrels_query = queries
    found_offsets, n_found, found_ranks, found_labels, n_ranked = found_docs
    ideal_offsets, n_ideal, ideal_labels = ideal_lists
    rq = run_query[q]
    gq = qrels_query[q]
    n = min(n_ranked[rq], max_docs) if rq >= 0 else stand_in
    found = n_found[rq] if rq >= 0 else 0
    base = found_offsets[rq] if rq >= 0 else 0
    num_rel = 0
    if gq >= 0:
        for j in range(n_ideal[gq]):
            if ideal_labels[ideal_offsets[gq] + j] >= rel:
                num_rel += 1
    # The ranks of the relevant retrieved documents, and precision at each.
    relevant = np.empty(found, dtype=np.int64)
    hits = 0
    for t in range(found):
        if found_ranks[base + t] >= n:
            break
        if found_labels[base + t] >= rel:
            relevant[hits] = found_ranks[base + t]
            hits += 1

    for v in range(multiples.shape[0]):
        cut = long_cast(multiples[v] * num_rel + 0.9)
        if cut <= 0:
            continue
        shown = min(cut, n)
        above = 0
        while above < hits and relevant[above] < shown:
            above += 1
        rprec_mult[q, v] = above / cut

    # best[j]: the best precision at or after the (j+1)-th relevant document (suffix maxima).
    best = np.empty(hits, dtype=np.float64)
    for j in range(hits - 1, -1, -1):
        precision = (j + 1) / (relevant[j] + 1)
        best[j] = precision if j == hits - 1 or best[j + 1] < precision else best[j + 1]
    if hits > 0:
        final = best[0]
    elif n > 0:
        final = hits / n
    else:
        final = NEGATIVE_NAN
    for s in range(level_offsets.shape[0] - 1):
        first = level_offsets[s]
        current = level_offsets[s + 1] - 1
        while current >= first and lround(levels[current] * num_rel) > hits:
            current -= 1
        total = 0.0
        for j in range(hits, 0, -1):
            while current >= first and lround(levels[current] * num_rel) == j:
                total += best[j - 1]
                current -= 1
        while current >= first:
            total += final
            current -= 1
        eleven_point[q, s] = total / (level_offsets[s + 1] - first)


@parallel_jit(example=_example)
def level_measures(
    queries: QueryPairs,
    found_docs: FoundArrays,
    ideal_lists: IdealArrays,
    rel: int,
    max_docs: int,
    stand_in: int,
    multiples: np.ndarray,
    levels: np.ndarray,
    level_offsets: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Rprec_mult at each of ``multiples`` and 11pt_avg over each level list, per evaluated query.

    The queries and their judged ranks as for :func:`retrieval_eval.kernels.trec.trec.trec_measures`.
    Level list s is ``levels[level_offsets[s]:level_offsets[s + 1]]`` (at least one level), in
    the order given. Returns float64 ``rprec_mult (n_queries, len(multiples))`` and
    ``eleven_point (n_queries, len(level_offsets) - 1)``.
    """
    n_queries = queries.run_query.shape[0]
    rprec_mult = np.zeros((n_queries, multiples.shape[0]), dtype=np.float64)
    eleven_point = np.zeros((n_queries, level_offsets.shape[0] - 1), dtype=np.float64)
    for q in prange(n_queries):
        # The parallel build's loop index is unsigned: as int64 it calls the same specialization as the serial one.
        _query_levels(
            np.int64(q), queries, found_docs, ideal_lists, rel, max_docs, stand_in, multiples, levels, level_offsets,
            rprec_mult, eleven_point,
        )
    return rprec_mult, eleven_point
