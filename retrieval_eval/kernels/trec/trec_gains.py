"""trec_eval's measures over a gain map and over every rank: G, dcg, ideal_dcg, ndcg, ndcg_rel, Rndcg, rbp, rbp_resid.

Each query's ranking is walked rank by rank as trec_eval does (m_G.c, m_ndcg.c, m_ndcg_rel.c,
m_Rndcg.c, m_rbp.c, m_rbp_resid.c): documents the qrels do not list have relevance -1, those
listed with a negative label -2, the others their label (after ``-M``; under ``-J`` only the
judged ones are ranked, see :mod:`retrieval_eval.kernels.trec.trec_judged`).

**The gain map** (gain_init.c, ``setup_gains``), built per query from the ``label=gain`` pairs
given (in their order) and the query's judged labels: one entry per pair, then one entry
``(l, gain l)`` for each label l in 0..L-1 that no pair names, L = 1 + the query's highest label
>= 0; each entry counts the query's judged documents with its label (the first of two pairs
for one label gets them). The entries are then sorted by gain with glibc 2.36's merge sort
(qsort) and trec_eval's comparison ``(int)(gain_a - gain_b)``: gains less than 1 apart compare
equal and keep their order, so the sort is not always by gain. A retrieved document's gain is
that of the first sorted entry for its relevance, 0 when there is none (so pairs for -1 and -2
give unjudged documents a gain). The ideal ranking takes the sorted entries from the last one
down, each as many times as it counts documents, while the gain is > 0.

When a query's judgments are all negative, trec_eval's form_res_rels.c leaves the previous
query's label counts in place (``num_rel_levels`` and ``rel_levels`` are static and only set
from labels >= 0), and the gain map is built from those: the caller passes, per query, the
qrels query whose labels to count (``level_query``; the previous judged query in trec_eval's
order, or -1 for none).

With discounts ``d_i = log2(i + 2)`` for the 0-based rank i:

- ``dcg`` = sum_i gain_i / d_i, ``ideal_dcg`` the same over the ideal ranking, ``ndcg`` =
  dcg / ideal_dcg (0 when ideal_dcg <= 0)
- ``ndcg_rel``: ndcg averaged over the ideal positions with a gain > 0, the ndcg at each
  retrieved document with a gain > 0 and at the end of the ranking for the rest
- ``rndcg`` (Rndcg): ndcg averaged over the ranks where the ideal gain changes (and the end
  of the ranking); 0 when num_rel (labels >= rel) is 0
- ``g`` (G): sum_i gain_i / log2(2 + cost_i - gains so far), cost_i the ideal gains so far
  (each at least 1), / the sum of the ideal gains
- ``rbp(p)``: (1 - p) sum_i gain_i p^i with the gains scaled to [0, 1] by (g - min) / (max - min)
  over the map's entries when one lies outside [0, 1]; p^i is the running product, as trec_eval
- ``rbp_resid(p)``: p^n + (1 - p) sum over unjudged ranks i of p^i, when some rank is unjudged

trec_eval's m_rbp.c compares the gains with ``min`` and ``max`` doubles it never initializes;
the defined behaviour, reproduced here, is their minimum and maximum over the map's entries.
Divisions by zero and logarithms of values <= 0 give IEEE results (:mod:`.trec_arith`).
A judged query the run lacks is scored against ``stand_in`` documents not in the pool.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange
from ..core.bundles import FoundArrays, IdealArrays, QueryPairs
from .trec import example_judged_ranks, log2_table
from .trec_arith import c_log2, divide, int_cast

# Columns of the gain measures.
NDCG = 0
DCG = 1
IDEAL_DCG = 2
NDCG_REL = 3
RNDCG = 4
G = 5
N_GAIN_MEASURES = 6

NONPOOL = -1
UNJUDGED = -2
MIN_COST = 1.0


def _example() -> tuple:
    """The judged ranks of :func:`.trec.example_judged_ranks`; a pair 1=3, one rbp and one rbp_resid p."""
    queries, found_docs, ideal_lists = example_judged_ranks()
    return (
        queries, found_docs, np.zeros(1, dtype=np.int64), ideal_lists, 1, np.iinfo(np.int64).max, 1,
        np.array([1], dtype=np.int64), np.array([3.0]), np.array([0.9]), np.array([0.9]), log2_table(4),
    )


@jit
def _merge_sort(gains: np.ndarray, order: np.ndarray) -> None:
    """Sort ``order`` (indices into ``gains``) as glibc 2.36's qsort (a top-down merge sort) orders them.

    Halves of n1 = n // 2 and n - n1 elements, each sorted first; the merge takes the left element
    while ``(int)(left - right) <= 0``, trec_eval's comp_rel_gain. The recursion is unrolled onto
    a stack of (start, length, step) frames.
    """
    n = order.shape[0]
    if n <= 1:
        return
    merged = np.empty(n, dtype=np.int64)
    starts = np.empty(64, dtype=np.int64)
    lengths = np.empty(64, dtype=np.int64)
    steps = np.empty(64, dtype=np.int64)
    starts[0] = 0
    lengths[0] = n
    steps[0] = 0
    depth = 1
    while depth > 0:
        top = depth - 1
        start, length, step = starts[top], lengths[top], steps[top]
        if length <= 1:
            depth -= 1
            continue
        half = length // 2
        if step < 2:
            steps[top] = step + 1
            starts[depth] = start if step == 0 else start + half
            lengths[depth] = half if step == 0 else length - half
            steps[depth] = 0
            depth += 1
            continue
        left, right, out = start, start + half, 0
        while left < start + half and right < start + length:
            if int_cast(gains[order[left]] - gains[order[right]]) <= 0:
                merged[out] = order[left]
                left += 1
            else:
                merged[out] = order[right]
                right += 1
            out += 1
        while left < start + half:
            merged[out] = order[left]
            left += 1
            out += 1
        while right < start + length:
            merged[out] = order[right]
            right += 1
            out += 1
        order[start : start + length] = merged[:length]
        depth -= 1


@jit
def _gain_map(
    pair_levels: np.ndarray, pair_gains: np.ndarray, labels: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """setup_gains: the sorted entries' labels, gains and document counts, from one query's labels (descending)."""
    n_levels = labels[0] + 1 if labels.shape[0] > 0 and labels[0] >= 0 else 0
    counts_of_level = np.zeros(max(n_levels, 0), dtype=np.int64)
    for j in range(labels.shape[0]):
        if labels[j] >= 0:
            counts_of_level[labels[j]] += 1
    size = pair_levels.shape[0] + n_levels
    levels = np.empty(size, dtype=np.int64)
    gains = np.empty(size, dtype=np.float64)
    counts = np.zeros(size, dtype=np.int64)
    used = pair_levels.shape[0]
    levels[:used] = pair_levels
    gains[:used] = pair_gains
    for level in range(n_levels):
        j = 0
        while j < used and levels[j] != level:
            j += 1
        if j < used:
            counts[j] = counts_of_level[level]
        else:
            levels[used] = level
            gains[used] = level
            counts[used] = counts_of_level[level]
            used += 1
    order = np.arange(used)
    _merge_sort(gains[:used], order)
    return levels[order], gains[order], counts[order]


@jit
def _gain_of(levels: np.ndarray, gains: np.ndarray, highest: int) -> np.ndarray:
    """get_gain as a table: the gain of relevance r (-2 <= r <= highest) at ``r + 2``, the first entry's; else 0."""
    table = np.zeros(highest + 3, dtype=np.float64)
    for j in range(levels.shape[0] - 1, -1, -1):
        if -2 <= levels[j] <= highest:
            table[levels[j] + 2] = gains[j]
    return table


@jit
def _next_ideal(gains: np.ndarray, counts: np.ndarray, level: int, taken: int) -> tuple[int, int, float]:
    """One more ideal document: (entry, documents taken of it, its gain); past the first entry, gain 0."""
    taken += 1
    while level >= 0 and taken > counts[level]:
        taken = 1
        level -= 1
    return level, taken, gains[level] if level >= 0 else 0.0


@jit
def _top_gain(gains: np.ndarray) -> float:
    return gains[gains.shape[0] - 1] if gains.shape[0] > 0 else 0.0


@jit
def _ndcg(rels: np.ndarray, gain_of: np.ndarray, gains: np.ndarray, counts: np.ndarray, discounts: np.ndarray) -> tuple[float, float]:
    """m_ndcg.c: (dcg, ideal_dcg)."""
    n = rels.shape[0]
    level, taken, ideal_gain = gains.shape[0] - 1, 0, _top_gain(gains)
    dcg = 0.0
    ideal = 0.0
    i = 0
    while i < n and ideal_gain > 0.0:
        gain = gain_of[rels[i] + 2]
        if gain != 0.0:
            dcg += gain / discounts[i]
        level, taken, ideal_gain = _next_ideal(gains, counts, level, taken)
        if ideal_gain > 0.0:
            ideal += ideal_gain / discounts[i]
        i += 1
    while i < n:
        gain = gain_of[rels[i] + 2]
        if gain != 0.0:
            dcg += gain / discounts[i]
        i += 1
    while ideal_gain > 0.0:
        level, taken, ideal_gain = _next_ideal(gains, counts, level, taken)
        if ideal_gain > 0.0:
            ideal += ideal_gain / discounts[i]
        i += 1
    return dcg, ideal


@jit
def _ndcg_rel(rels: np.ndarray, gain_of: np.ndarray, gains: np.ndarray, counts: np.ndarray, discounts: np.ndarray) -> float:
    """m_ndcg_rel.c."""
    n = rels.shape[0]
    level, taken, ideal_gain = gains.shape[0] - 1, 0, _top_gain(gains)
    dcg = 0.0
    ideal = 0.0
    total = 0.0
    positive_ideal = 0
    positive_retrieved = 0
    i = 0
    while i < n and ideal_gain > 0.0:
        gain = gain_of[rels[i] + 2]
        if gain != 0.0:
            dcg += gain / discounts[i]
        level, taken, ideal_gain = _next_ideal(gains, counts, level, taken)
        if ideal_gain > 0.0:
            positive_ideal += 1
            ideal += ideal_gain / discounts[i]
        if gain > 0.0:
            total += divide(dcg, ideal)
            positive_retrieved += 1
        i += 1
    while i < n:
        gain = gain_of[rels[i] + 2]
        if gain != 0.0:
            dcg += gain / discounts[i]
        if gain > 0.0:
            total += divide(dcg, ideal)
            positive_retrieved += 1
        i += 1
    while ideal_gain > 0.0:
        level, taken, ideal_gain = _next_ideal(gains, counts, level, taken)
        if ideal_gain > 0.0:
            positive_ideal += 1
            ideal += ideal_gain / discounts[i]
        i += 1
    total += divide(float(positive_ideal - positive_retrieved) * dcg, ideal)
    return divide(total, float(positive_ideal)) if total > 0.0 else 0.0


@jit
def _rndcg(rels: np.ndarray, gain_of: np.ndarray, gains: np.ndarray, counts: np.ndarray, discounts: np.ndarray) -> float:
    """m_Rndcg.c (the caller handles num_rel = 0)."""
    n = rels.shape[0]
    level, taken, ideal_gain = gains.shape[0] - 1, 0, _top_gain(gains)
    previous_gain = ideal_gain
    dcg = 0.0
    ideal = 0.0
    total = 0.0
    changes = 0
    i = 0
    while i < n and ideal_gain > 0.0:
        gain = gain_of[rels[i] + 2]
        level, taken, ideal_gain = _next_ideal(gains, counts, level, taken)
        if previous_gain != ideal_gain:
            if ideal > 0.0:
                total += dcg / ideal
                changes += 1
            previous_gain = ideal_gain
        if gain != 0.0:
            dcg += gain / discounts[i]
        if ideal_gain > 0.0:
            ideal += ideal_gain / discounts[i]
        i += 1
    if i < n:
        while i < n:
            gain = gain_of[rels[i] + 2]
            if gain != 0.0:
                dcg += gain / discounts[i]
            i += 1
        if ideal > 0.0:
            total += dcg / ideal
            changes += 1
    while ideal_gain > 0.0:
        level, taken, ideal_gain = _next_ideal(gains, counts, level, taken)
        if previous_gain != ideal_gain:
            if ideal > 0.0:
                total += dcg / ideal
                changes += 1
            previous_gain = ideal_gain
        if ideal_gain > 0.0:
            ideal += ideal_gain / discounts[i]
        i += 1
    return divide(total, float(changes))


@jit
def _g(rels: np.ndarray, gain_of: np.ndarray, gains: np.ndarray, counts: np.ndarray) -> float:
    """m_G.c."""
    n = rels.shape[0]
    level, taken, ideal_gain = gains.shape[0] - 1, 0, _top_gain(gains)
    value = 0.0
    results = 0.0
    ideal = 0.0
    cost = 0.0
    i = 0
    while i < n and ideal_gain > 0.0:
        gain = gain_of[rels[i] + 2]
        results += gain
        level, taken, ideal_gain = _next_ideal(gains, counts, level, taken)
        if ideal_gain > 0.0:
            ideal += ideal_gain
        cost += ideal_gain if ideal_gain >= MIN_COST else MIN_COST
        if gain != 0.0:
            value += divide(gain, c_log2(2.0 + cost - results))
        i += 1
    while i < n:
        gain = gain_of[rels[i] + 2]
        results += gain
        cost += MIN_COST
        if gain != 0.0:
            value += divide(gain, c_log2(2.0 + cost - results))
        i += 1
    while ideal_gain > 0.0:
        level, taken, ideal_gain = _next_ideal(gains, counts, level, taken)
        if ideal_gain > 0.0:
            ideal += ideal_gain
    return value / ideal if ideal > 0.0 else 0.0


@jit
def _rbp(rels: np.ndarray, levels: np.ndarray, gains: np.ndarray, highest: int, p: float) -> float:
    """m_rbp.c, with the gains' minimum and maximum over the map's entries (see the module docstring)."""
    scaled = gains.copy()
    if gains.shape[0] > 0:
        low = gains.min()
        high = gains.max()
        if low < 0.0 or high > 1.0:
            for j in range(gains.shape[0]):
                scaled[j] = divide(gains[j] - low, high - low)
    gain_of = _gain_of(levels, scaled, highest)
    total = 0.0
    weight = 1.0
    for i in range(rels.shape[0]):
        gain = gain_of[rels[i] + 2]
        if gain != 0.0:
            total += gain * weight
        weight = weight * p
    return (1.0 - p) * total


@jit
def _rbp_resid(rels: np.ndarray, p: float) -> float:
    """m_rbp_resid.c."""
    unjudged = 0
    total = 0.0
    weight = 1.0
    for i in range(rels.shape[0]):
        if rels[i] < 0:
            unjudged += 1
            total += weight
        weight = weight * p
    return weight + (1.0 - p) * total if unjudged > 0 else 0.0


@jit
def _query_gains(
    q: int,
    queries: QueryPairs,
    found_docs: FoundArrays,
    level_query: np.ndarray,
    ideal_lists: IdealArrays,
    rel: int,
    max_docs: int,
    stand_in: int,
    pair_levels: np.ndarray,
    pair_gains: np.ndarray,
    rbp_p: np.ndarray,
    resid_p: np.ndarray,
    discounts: np.ndarray,
    measures: np.ndarray,
    rbp: np.ndarray,
    resid: np.ndarray,
) -> None:
    """Row q of the outputs (see :func:`gain_measures`)."""
    run_query, qrels_query = queries
    found_offsets, n_found, found_ranks, found_labels, n_ranked = found_docs
    ideal_offsets, n_ideal, ideal_labels = ideal_lists
    rq = run_query[q]
    n = min(n_ranked[rq], max_docs) if rq >= 0 else stand_in
    rels = np.full(n, NONPOOL, dtype=np.int64)
    if rq >= 0:
        base = found_offsets[rq]
        for t in range(n_found[rq]):
            rank = found_ranks[base + t]
            if rank >= n:
                break
            label = found_labels[base + t]
            rels[rank] = label if label >= 0 else UNJUDGED
    gq = qrels_query[q]
    num_rel = 0
    if gq >= 0:
        for j in range(n_ideal[gq]):
            if ideal_labels[ideal_offsets[gq] + j] >= rel:
                num_rel += 1
    lq = level_query[q]
    labels = ideal_labels[ideal_offsets[lq] : ideal_offsets[lq] + n_ideal[lq]] if lq >= 0 else ideal_labels[:0]
    levels, gains, counts = _gain_map(pair_levels, pair_gains, labels)
    highest = max(int(labels[0]) if labels.shape[0] > 0 else -1, 0)
    gain_of = _gain_of(levels, gains, highest)

    dcg, ideal = _ndcg(rels, gain_of, gains, counts, discounts)
    measures[q, DCG] = dcg
    measures[q, IDEAL_DCG] = ideal
    if ideal > 0.0:
        measures[q, NDCG] = dcg / ideal
    measures[q, NDCG_REL] = _ndcg_rel(rels, gain_of, gains, counts, discounts)
    if num_rel > 0:
        measures[q, RNDCG] = _rndcg(rels, gain_of, gains, counts, discounts)
    measures[q, G] = _g(rels, gain_of, gains, counts)
    for v in range(rbp_p.shape[0]):
        rbp[q, v] = _rbp(rels, levels, gains, highest, rbp_p[v])
    for v in range(resid_p.shape[0]):
        resid[q, v] = _rbp_resid(rels, resid_p[v])


@parallel_jit(example=_example)
def gain_measures(
    queries: QueryPairs,
    found_docs: FoundArrays,
    level_query: np.ndarray,
    ideal_lists: IdealArrays,
    rel: int,
    max_docs: int,
    stand_in: int,
    pair_levels: np.ndarray,
    pair_gains: np.ndarray,
    rbp_p: np.ndarray,
    resid_p: np.ndarray,
    discounts: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The gain measures of one gain map, rbp at each of ``rbp_p`` and rbp_resid at each of ``resid_p``, per query.

    The queries and their judged ranks as for :func:`retrieval_eval.kernels.trec.trec.trec_measures`;
    ``level_query[q]``: the qrels query whose judged labels make query q's gain map (see the
    module docstring). The map's pairs: label ``pair_levels[j]`` has gain ``pair_gains[j]``, in the
    order given. ``discounts[i] = log2(i + 2)``, as long as the longest ranking and the longest
    list of judgments. Returns float64 ``(n_queries, N_GAIN_MEASURES)``, ``(n_queries, len(rbp_p))``
    and ``(n_queries, len(resid_p))``.
    """
    n_queries = queries.run_query.shape[0]
    measures = np.zeros((n_queries, N_GAIN_MEASURES), dtype=np.float64)
    rbp = np.zeros((n_queries, rbp_p.shape[0]), dtype=np.float64)
    resid = np.zeros((n_queries, resid_p.shape[0]), dtype=np.float64)
    for q in prange(n_queries):
        # The parallel build's loop index is unsigned: as int64 it calls the same specialization as the serial one.
        _query_gains(
            np.int64(q), queries, found_docs,
            level_query, ideal_lists, rel, max_docs, stand_in, pair_levels, pair_gains,
            rbp_p, resid_p, discounts, measures, rbp, resid,
        )
    return measures, rbp, resid
