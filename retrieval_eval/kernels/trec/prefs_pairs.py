"""The pair measures of a query (m_prefs_pair*.c): for each document pair with a preference, the share of groups agreeing.

trec_eval sums ``c[a][b] / (c[a][b] + c[b][a])`` over pairs a < b of internal ranks, ``c[a][b]`` the
number of groups preferring a to b (an unsigned short: it wraps past 65535), first over pairs of
retrieved documents (``prefs_pair_ret`` divides that by their number), then over pairs of a
retrieved with an unretrieved one (``prefs_pair_imp``), then counts the pairs of unretrieved ones,
which add 0 (``prefs_pair``). The sum is a float sum, so its order matters: when some document is
in two groups the terms are made row by row and added in trec_eval's order; when none is, each
pair is in one group, every term is 0 or 1, and the sums are the groups' counts.
"""

from __future__ import annotations

import numpy as np

from .._config import jit
from ..core.sorting import stable_order
from .prefs_groups import FI, FR, NO, PI, PR, bit


@jit
def _row(
    a: int,
    member_offsets: np.ndarray,
    members: np.ndarray,
    member_class: np.ndarray,
    group_words: np.ndarray,
    bits_offsets: np.ndarray,
    bits: np.ndarray,
    doc_groups: np.ndarray,
    doc_group_offsets: np.ndarray,
    doc_positions: np.ndarray,
    forward: np.ndarray,
    backward: np.ndarray,
    touched: np.ndarray,
    mark: np.ndarray,
    stamp: int,
) -> int:
    """Fill c[a][b] (forward) and c[b][a] (backward) for the b > a sharing a group with a; returns how many b, ascending in ``touched``.

    ``mark[b] == stamp`` once b is listed (a count that wrapped to 0 must not list b twice).
    """
    n_touched = 0
    for i in range(doc_group_offsets[a], doc_group_offsets[a + 1]):
        g = doc_groups[i]
        k = doc_positions[i]
        lo = member_offsets[g]
        words = group_words[g]
        for t in range(member_offsets[g + 1] - lo):
            b = members[lo + t]
            if b <= a:
                continue
            if words == 0:
                ahead = member_class[lo + k] < member_class[lo + t]
                behind = member_class[lo + t] < member_class[lo + k]
            else:
                ahead = bit(bits[bits_offsets[g] :], k, words, t)
                behind = bit(bits[bits_offsets[g] :], t, words, k)
            if ahead or behind:
                if mark[b] != stamp:
                    mark[b] = stamp
                    touched[n_touched] = b
                    n_touched += 1
                if ahead:
                    forward[b] += 1
                if behind:
                    backward[b] += 1
    order = stable_order(touched[:n_touched], False)
    ascending = np.empty(n_touched, dtype=np.int64)
    for t in range(n_touched):
        ascending[t] = touched[order[t]]
    touched[:n_touched] = ascending
    return n_touched


@jit
def pair_measures(
    counts: np.ndarray,
    n_groups: int,
    nd: int,
    njr: int,
    member_offsets: np.ndarray,
    members: np.ndarray,
    member_class: np.ndarray,
    group_words: np.ndarray,
    bits_offsets: np.ndarray,
    bits_parts: list,
) -> tuple[float, float, float]:
    """``(prefs_pair_ret, prefs_pair_imp, prefs_pair)`` of a query from its groups' members and counts.

    Group g's members (internal ranks, ascending) are ``members[member_offsets[g] : member_offsets[g + 1]]``,
    with their EC in ``member_class`` for a one-subgroup group (``group_words[g] == 0``), or their closed
    preference rows in ``bits_parts`` (one array per several-subgroup group, in group order) of
    ``group_words[g]`` words each, placed at ``bits_offsets[g]`` of a flat array.
    """
    memberships = np.zeros(nd + 1, dtype=np.int64)
    for t in range(member_offsets[n_groups]):
        memberships[members[t] + 1] += 1
    shared = False
    for d in range(nd):
        shared |= memberships[d + 1] > 1
    if not shared:
        # Each pair is in one group: c[a][b] is 0 or 1 and the sums are counts (added as 1.0s, exact).
        sum_ret = sum_imp = 0.0
        pairs_ret = pairs_imp = pairs_all = 0
        for g in range(n_groups):
            sum_ret += counts[g, FR]
            sum_imp += counts[g, FR] + counts[g, FI]
            pairs_ret += counts[g, PR]
            pairs_imp += counts[g, PR] + counts[g, PI]
            pairs_all += counts[g, PR] + counts[g, PI] + counts[g, NO]
        return (
            sum_ret / pairs_ret if pairs_ret else 0.0,
            sum_imp / pairs_imp if pairs_imp else 0.0,
            sum_imp / pairs_all if pairs_all else 0.0,
        )
    doc_group_offsets = np.cumsum(memberships)
    fill = doc_group_offsets[:nd].copy()
    doc_groups = np.empty(doc_group_offsets[nd], dtype=np.int64)
    doc_positions = np.empty(doc_group_offsets[nd], dtype=np.int64)
    for g in range(n_groups):
        for t in range(member_offsets[g], member_offsets[g + 1]):
            d = members[t]
            doc_groups[fill[d]] = g
            doc_positions[fill[d]] = t - member_offsets[g]
            fill[d] += 1
    bits = np.zeros(bits_offsets[n_groups], dtype=np.uint64)
    part = 0
    for g in range(n_groups):
        if group_words[g]:
            bits[bits_offsets[g] : bits_offsets[g + 1]] = bits_parts[part]
            part += 1
    # trec_eval's counts array is unsigned short.
    forward = np.zeros(nd, dtype=np.uint16)
    backward = np.zeros(nd, dtype=np.uint16)
    touched = np.empty(nd, dtype=np.int64)
    mark = np.zeros(nd, dtype=np.int64)
    total = 0.0
    pair_ret = 0.0
    pairs = np.zeros(3, dtype=np.int64)
    for phase in range(3):
        first, last = (0, njr) if phase < 2 else (njr, nd)
        for a in range(first, last):
            n_touched = _row(
                a, member_offsets, members, member_class, group_words, bits_offsets, bits, doc_groups,
                doc_group_offsets, doc_positions, forward, backward, touched, mark, phase * nd + a + 1,
            )
            for t in range(n_touched):
                b = touched[t]
                f, r = np.int64(forward[b]), np.int64(backward[b])
                forward[b] = 0
                backward[b] = 0
                if (phase == 0 and b >= njr) or (phase == 1 and b < njr) or (f == 0 and r == 0):
                    continue
                pairs[phase] += 1
                if phase < 2:
                    total += f / (f + r)
        if phase == 0:
            pair_ret = total / pairs[0] if pairs[0] else 0.0
    imp = pairs[0] + pairs[1]
    return pair_ret, total / imp if imp else 0.0, total / (imp + pairs[2]) if imp + pairs[2] else 0.0
