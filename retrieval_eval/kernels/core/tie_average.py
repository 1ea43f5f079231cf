"""Expected values of ranking measures over every ordering of tied scores, in closed form (whole-array numpy).

Each query's ranking is a sequence of *tie groups* (documents of equal score, consecutive
ranks); every ordering within each group is equally likely, independently across groups
(McSherry and Najork, "Computing information retrieval performance measures efficiently in the
presence of tied scores", ECIR 2008). For a group of ``m`` documents starting at 0-based rank
``s``, whose values (gains, relevance flags) sum to ``T``, with ``B`` the sum over the groups
above it:

- each rank of the group holds the group's mean value ``T / m`` in expectation, so a measure
  linear in the values at each rank (DCG with any gain, counts) takes the mean there:
  E[sum of the top c] = B + (c - s) T / m for the group holding rank c - 1;
- average precision: a rank i = s + j + 1 (1-based) of a group with ``r`` relevant documents, ``h``
  relevant above it, is relevant with probability r / m, and then the j ranks of the group above
  it hold (r - 1) j / (m - 1) relevant in expectation: E[term] = (r / m) (h + 1 + j (r - 1) / (m - 1)) / i;
- the first relevant document lies in the first group with r > 0; it sits at offset j with
  probability prod_{t<j} (m - r - t) / (m - t) * r / (m - j), which gives reciprocal rank
  (sum of that / (s + j + 1)) and success@k (1 - the probability of none in the top c).

Rounding: every expected value is a rational number; it is computed in float64 with a few
roundings per term (a count's ``(c - s) T / m`` is one division of exact integers, then one
addition), sums adding their terms in rank order from 0.0 as the ordinary walks do, so that a
ranking without ties gives the ordinary value bit for bit (a group of one document takes
``T / 1``, ``x * 1.0`` and ``+ 0.0``, all exact). With ties the values are within a few ulps
of the exact rationals: stable to the last bits, not bit-compared with any other program.
The products for reciprocal rank and success loop over the offsets within a group (as many
steps as the largest group has documents), each step over every query at once.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .segments import count_so_far, running


class TiedPositions(NamedTuple):
    """The ranked documents of the evaluated queries, flat, query after query in rank order.

    ``query`` (the evaluated query of each), ``rank`` (0-based), ``group_start`` and
    ``group_size`` (its tie group), ``group`` (the index of its group among all, in order);
    ``heads`` (where each query's documents start in the flat arrays) and ``n`` (how many it
    has), per evaluated query; ``group_heads`` (where each group starts in the flat arrays) and
    ``first_group`` (for each group, the index of its query's first group).
    """

    query: np.ndarray
    rank: np.ndarray
    group_start: np.ndarray
    group_size: np.ndarray
    group: np.ndarray
    heads: np.ndarray
    n: np.ndarray
    group_heads: np.ndarray
    first_group: np.ndarray


def tied_positions(query: np.ndarray, rank: np.ndarray, group_start: np.ndarray, group_size: np.ndarray, n: np.ndarray) -> TiedPositions:
    """:class:`TiedPositions` of the flat arrays (query ascending, ranks 0.. within each), its group indexes made once."""
    starts_group = rank == group_start
    group_heads = np.flatnonzero(starts_group)
    group = np.cumsum(starts_group) - 1
    query_of_group = query[group_heads]
    first_group = np.searchsorted(query_of_group, query_of_group, side="left")
    return TiedPositions(query, rank, group_start, group_size, group, np.cumsum(n) - n, n, group_heads, first_group)


def group_totals(positions: TiedPositions, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each position, the sum of ``values`` over its tie group and over the groups above it in its query.

    Integer values give exact integer sums; float values are summed in rank order.
    """
    if values.shape[0] == 0:
        return values.copy(), values.copy()
    totals = np.add.reduceat(values, positions.group_heads)
    # The groups above: a running sum of the group totals, restarted at each query's first group.
    so_far = np.cumsum(totals) - totals
    above = so_far - so_far[positions.first_group]
    return totals[positions.group], above[positions.group]


def top_counts(positions: TiedPositions, flags: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
    """E[documents flagged among the top min(c, n) ranks] of each query, for each ``cutoffs[q, j]``.

    B + (c - s) T / m for the group holding rank c - 1 (B, T: the flagged above it and in it).
    Shape of ``cutoffs``: ``(n_queries, n_cut)``; cutoffs of 0 give 0.
    """
    total, above = group_totals(positions, flags.astype(np.int64))
    shown = np.minimum(cutoffs, positions.n[:, None])
    out = np.zeros(shown.shape, dtype=np.float64)
    some = shown > 0
    at = (positions.heads[:, None] + shown - 1)[some]
    taken = shown[some] - positions.group_start[at]
    out[some] = above[at] + (taken * total[at]) / positions.group_size[at]
    return out


def group_means(positions: TiedPositions, values: np.ndarray) -> np.ndarray:
    """Each position's expected value: the mean of ``values`` over its tie group (exactly the value, alone in its group)."""
    total, _ = group_totals(positions, values)
    return total / positions.group_size


def expected_ap_terms(positions: TiedPositions, relevant: np.ndarray) -> np.ndarray:
    """Each position's expected term of average precision's sum (see the module docstring); 0.0 where r = 0."""
    r, h = group_totals(positions, relevant.astype(np.int64))
    m = positions.group_size
    j = positions.rank - positions.group_start
    others = np.zeros(m.shape[0], dtype=np.float64)
    shared = m > 1
    others[shared] = j[shared] * (r[shared] - 1) / (m[shared] - 1)
    return ((h + 1 + others) / (positions.rank + 1)) * (r / m)


def prefix_sums(positions: TiedPositions, terms: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
    """Sum of each query's ``terms`` over its top min(c, n) ranks, added in rank order, for each ``cutoffs[q, j]``.

    Only the nonzero terms enter the padded rows of :func:`~retrieval_eval.kernels.core.segments.running`
    (adding 0.0 changes no sum of terms >= 0).
    """
    n_queries = positions.n.shape[0]
    kept = terms != 0.0
    before = count_so_far(kept, positions.rank) if kept.shape[0] else kept.astype(np.int64)
    index = before - kept  # the kept terms above each position
    width = int(before.max(initial=0))
    sums = running(positions.query[kept], index[kept], terms[kept], n_queries, width)
    shown = np.minimum(cutoffs, positions.n[:, None])
    at = np.zeros(shown.shape, dtype=np.int64)
    some = shown > 0
    at[some] = before[(positions.heads[:, None] + shown - 1)[some]]
    return sums[np.arange(n_queries)[:, None], at]


def _first_relevant_group(positions: TiedPositions, relevant: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query, the first tie group with a relevant document: its start s, size m and relevant r (m = 0: none)."""
    n_queries = positions.n.shape[0]
    start = np.zeros(n_queries, dtype=np.int64)
    size = np.zeros(n_queries, dtype=np.int64)
    hits = np.zeros(n_queries, dtype=np.int64)
    r, h = group_totals(positions, relevant.astype(np.int64))
    first = np.flatnonzero((r > 0) & (h == 0) & (positions.rank == positions.group_start))
    query = positions.query[first]
    start[query], size[query], hits[query] = positions.group_start[first], positions.group_size[first], r[first]
    return start, size, hits


def expected_reciprocal_rank(positions: TiedPositions, relevant: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
    """E[1 / rank of the first relevant document, 0 when it ranks below c], for each ``cutoffs[q, j]``."""
    start, m, r = _first_relevant_group(positions, relevant)
    # The last offset in the group the first relevant document can take, within the cutoff (-1: none).
    last = np.where(m[:, None] > 0, np.minimum((m - r)[:, None], cutoffs - start[:, None] - 1), -1)
    out = np.zeros(cutoffs.shape, dtype=np.float64)
    none_yet = np.ones(m.shape[0], dtype=np.float64)  # P(no relevant document in the first j of the group)
    for j in range(int(last.max(initial=-1)) + 1):
        live = j <= last
        rows = np.flatnonzero(live.any(axis=1))
        here = none_yet[rows] * (r[rows] / (m[rows] - j)) / (start[rows] + j + 1)
        out[rows] += np.where(live[rows], here[:, None], 0.0)
        none_yet[rows] *= (m[rows] - r[rows] - j) / (m[rows] - j)
    return out


def expected_success(positions: TiedPositions, relevant: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
    """P(a relevant document in the top c), for each ``cutoffs[q, j]``: 1 - P(none there)."""
    start, m, r = _first_relevant_group(positions, relevant)
    taken = np.clip(np.minimum(cutoffs, positions.n[:, None]) - start[:, None], 0, None)
    taken = np.minimum(taken, (m - r + 1)[:, None])  # the product is 0 from the (m - r + 1)-th factor on
    # None in the top c: the c - s first of the group all non-relevant (a factor 0 once c - s > m - r).
    none = np.ones(cutoffs.shape, dtype=np.float64)
    for t in range(int(np.where(m[:, None] > 0, taken, 0).max(initial=0))):
        step = (m > 0)[:, None] & (t < taken)
        ratio = np.maximum(m - r - t, 0) / np.maximum(m - t, 1)
        none = np.where(step, none * ratio[:, None], none)
    return 1.0 - none
