"""trec_eval 10's fourteen preference measures (form_prefs_counts.c and the m_prefs_*.c files), per query.

Each judged document of a query gets an internal rank: the ones the run retrieved (within
``max_docs``) 0..njr-1 in rank order, the others njr..nj-1 in docno order. A judgment group (jg)
with one subgroup prefers every document to those of lower level (its levels are equivalence
classes, ECs, highest first); one with several subgroups prefers, in each subgroup, each document
to those of lower level in that subgroup, closed transitively. A preference a > b is

- *fulfilled, retrieved* when both are retrieved and a ranks above b (``fr``), else *possible,
  retrieved* (``pr`` counts both kinds);
- *fulfilled, implied* when only a is retrieved (``fi``), *possible, implied* when exactly one is
  (``pi`` counts both);
- *not occurring* when neither is (``no``).

A group's documents of level > 0 are relevant (``R``, ``Rr`` retrieved), those of level 0 (one
subgroup: <= 0) non-relevant (``N``, ``Nr``). With sums over groups and ``c[a][b]`` the number of
groups preferring a to b (trec_eval's unsigned short, wrapping past 65535):

- ``prefs_num_prefs_poss`` = sum(pr + pi + no), ``prefs_num_prefs_ful`` = sum(fr + fi),
  ``prefs_num_prefs_ful_ret`` = sum(fr) (counts);
- ``prefs_simp`` = sum(fr + fi) / sum(pr + pi + no); ``_ret``: sum(fr) / sum(pr); ``_imp``:
  sum(fr + fi) / sum(pr + pi);
- ``prefs_avgjg``: the mean over groups of (fr + fi) / (pr + pi + no), a group with nothing
  possible adding 0; ``_ret`` and ``_imp`` likewise;
- ``prefs_pair``: the mean over document pairs {a, b} with a preference of c[a][b] / (c[a][b] +
  c[b][a]) (a above b), pairs of unretrieved documents adding 0; ``_ret``: pairs of retrieved
  documents only; ``_imp``: pairs with at least one retrieved;
- ``prefs_avgjg_Rnonrel``: per group, if R >= N, (fr + fi + Rr (R - N)) / (pr + pi + no + R (R - N));
  else the group recounted with only the first R non-relevant documents (internal rank order), as
  trec_eval's ``recalculate()`` does it, quirks included (below); averaged over groups.
  ``_ret``: R, N := Rr, Nr; (fr + Rr (R - N)) / (pr + R (R - N)) with the group's whole R in the
  second product, or the retrieved-only recount.

Every ratio with a zero denominator leaves the measure 0, except in the two Rnonrel measures,
which divide unguarded: a group of 0/0 makes the sum NaN, and a NaN sum fails trec_eval's
``sum > 0.0`` test, so the query's value is 0. Floating-point operations are trec_eval's, in its
order (ratios of int64 counts; the pair sums add their terms pair by pair in its loop order).

Quirks of trec_eval reproduced, each checked against the binary in the tests:

- a one-subgroup group whose highest level is exactly -3.0 loses its lowest EC (its EC count
  starts from -3.0, ``rel_level = -3.0; /* Illegal rel_level */``);
- in a several-subgroup group a document's level is that of its last subgroup (in name order),
  negative levels count as neither relevant nor not, and a level of 0 next to a positive one of
  the same document is an error;
- the one-subgroup recount pairs every EC, the last (non-relevant) one included, with "the first
  R documents of the last EC"; when R exceeds that EC it reads on through the query's next
  one-subgroup groups (reproduced) and past them into memory the query never wrote: that value
  has no definition, and the kernel returns NaN for it.
"""

from __future__ import annotations

import numpy as np

from ._config import jit, parallel_jit, prange, read_only
from .sorting import stable_order

# Columns of the output, in trec_eval's measure order (measures.c).
NUM_PREFS_POSS = 0
NUM_PREFS_FUL = 1
NUM_PREFS_FUL_RET = 2
SIMP = 3
PAIR = 4
AVGJG = 5
AVGJG_RNONREL = 6
SIMP_RET = 7
PAIR_RET = 8
AVGJG_RET = 9
AVGJG_RNONREL_RET = 10
SIMP_IMP = 11
PAIR_IMP = 12
AVGJG_IMP = 13
N_MEASURES = 14

# Why a query's preferences could not be formed (trec_eval stops, or aborts, on both).
OK = 0
ZERO_AND_POSITIVE_LEVEL = 1  # a document with level 0 in one subgroup of a group and > 0 in the next
CONTRADICTION = 2  # a group prefers a document to itself through others

_ILLEGAL_LEVEL = -3.0
_ONE = np.uint64(1)

# Per-group counts.
_FR = 0
_PR = 1
_FI = 2
_PI = 3
_NO = 4
_REL = 5
_REL_RET = 6
_NONREL = 7
_NONREL_RET = 8
_RN_FUL = 9
_RN_POSS = 10
_RNR_FUL = 11
_RNR_POSS = 12
_RN_UNDEFINED = 13
_RNR_UNDEFINED = 14
_N_COUNTS = 15


@jit
def _popcount(x: np.uint64) -> int:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@jit
def _bit(bits: np.ndarray, row: int, words: int, column: int) -> bool:
    return (bits[row * words + (column >> 6)] >> np.uint64(column & 63)) & _ONE == _ONE


@jit
def _count_in(bits: np.ndarray, row: int, mask: np.ndarray, words: int, lo: int, hi: int) -> int:
    """Set bits of ``bits[row] & mask`` in columns lo..hi-1."""
    total = 0
    for w in range(lo >> 6, (hi + 63) >> 6):
        x = bits[row * words + w] & mask[w]
        if w == lo >> 6:
            x &= ~np.uint64(0) << np.uint64(lo & 63)
        if w == (hi - 1) >> 6 and hi & 63:
            x &= (_ONE << np.uint64(hi & 63)) - _ONE
        total += _popcount(x)
    return total


@jit
def _internal_ranks(ranks: np.ndarray, max_docs: int) -> tuple[np.ndarray, int]:
    """Each document's internal rank (retrieved ones first, in rank order; then docno order) and njr."""
    nd = ranks.shape[0]
    retrieved = np.empty(nd, dtype=np.int64)
    njr = 0
    for d in range(nd):
        if 0 <= ranks[d] < max_docs:
            retrieved[njr] = d
            njr += 1
    rank_of = np.empty(njr, dtype=np.int64)
    for t in range(njr):
        rank_of[t] = ranks[retrieved[t]]
    by_rank = stable_order(rank_of, False)
    internal = np.empty(nd, dtype=np.int64)
    for t in range(njr):
        internal[retrieved[by_rank[t]]] = t
    nxt = njr
    for d in range(nd):
        if not 0 <= ranks[d] < max_docs:
            internal[d] = nxt
            nxt += 1
    return internal, njr


@jit
def _sorted_entries(
    group: np.ndarray, subgroup: np.ndarray, level: np.ndarray, doc: np.ndarray
) -> np.ndarray:
    """Positions that sort the judgments by subgroup, then level descending, then internal rank (as trec_eval).

    Judgments arrive grouped by (group, subgroup) in code order; each segment is sorted on its own.
    """
    n = group.shape[0]
    order = np.empty(n, dtype=np.int64)
    start = 0
    while start < n:
        stop = start + 1
        while stop < n and group[stop] == group[start] and subgroup[stop] == subgroup[start]:
            stop += 1
        by_doc = stable_order(doc[start:stop], False)
        levels = np.empty(stop - start, dtype=np.float64)
        for t in range(stop - start):
            levels[t] = level[start + by_doc[t]]
        by_level = stable_order(levels, True)
        for t in range(stop - start):
            order[start + t] = start + by_doc[by_level[t]]
        start = stop
    return order


@jit
def _below(values: np.ndarray, value: int) -> int:
    """How many of the sorted ``values`` are < ``value``."""
    return np.searchsorted(values, value)


@jit
def _ec_group(
    level: np.ndarray,
    doc: np.ndarray,
    lo: int,
    hi: int,
    njr: int,
    pool: np.ndarray,
    pool_start: int,
    counts: np.ndarray,
    members: np.ndarray,
    member_class: np.ndarray,
) -> int:
    """Counts of a one-subgroup group (judgments lo..hi-1, sorted); returns how many of its documents have preferences.

    Its members (documents of a counted EC, by internal rank) go into ``members[:m]`` with their EC.
    """
    n = hi - lo
    classes = np.zeros(n, dtype=np.int64)
    n_classes = 0
    for t in range(lo, hi):
        if t == lo or level[t] != level[t - 1]:
            n_classes += 1
        classes[t - lo] = n_classes - 1
    counted = n_classes - 1 if level[lo] == _ILLEGAL_LEVEL else n_classes
    size = np.zeros(counted + 1, dtype=np.int64)
    got = np.zeros(counted + 1, dtype=np.int64)
    m = 0
    for t in range(lo, hi):
        e = classes[t - lo]
        if e < counted:
            size[e] += 1
            if doc[t] < njr:
                got[e] += 1
            members[m] = doc[t]
            member_class[m] = e
            m += 1
            if level[t] > 0.0:
                counts[_REL] += 1
                counts[_REL_RET] += doc[t] < njr
            else:
                counts[_NONREL] += 1
                counts[_NONREL_RET] += doc[t] < njr
    by_doc = stable_order(members[:m], False)
    sorted_members = np.empty(m, dtype=np.int64)
    sorted_class = np.empty(m, dtype=np.int64)
    for t in range(m):
        sorted_members[t] = members[by_doc[t]]
        sorted_class[t] = member_class[by_doc[t]]
    members[:m] = sorted_members
    member_class[:m] = sorted_class
    # x_all: retrieved pairs, a in a higher EC ranking above b; x_last: those with b in the last EC (a Fenwick tree over ECs).
    last = counted - 1
    tree = np.zeros(counted + 1, dtype=np.int64)
    x_all = 0
    x_last = 0
    n_retrieved = 0
    while n_retrieved < m and members[n_retrieved] < njr:
        e = member_class[n_retrieved]
        above = 0
        i = e
        while i > 0:
            above += tree[i]
            i -= i & -i
        x_all += above
        if e == last:
            x_last += above
        i = e + 1
        while i <= counted:
            tree[i] += 1
            i += i & -i
        n_retrieved += 1
    retrieved_members = members[:n_retrieved]
    # Pair counts between ECs from their sizes: sum over e1 < e2 of a[e1] * b[e2], by prefix sums.
    ret_ret = ret_unret = unret_ret = unret_unret = 0
    all_all_before_last = ret_unret_before_last = ret_ret_before_last = 0
    seen_got = seen_missed = seen_all = 0
    for e in range(counted):
        missed = size[e] - got[e]
        ret_ret += seen_got * got[e]
        ret_unret += seen_got * missed
        unret_ret += seen_missed * got[e]
        unret_unret += seen_missed * missed
        if e < last:
            all_all_before_last += seen_all * size[e]
            ret_unret_before_last += seen_got * missed
            ret_ret_before_last += seen_got * got[e]
        seen_got += got[e]
        seen_missed += missed
        seen_all += size[e]
    counts[_FR] = x_all
    counts[_PR] = ret_ret
    counts[_FI] = ret_unret
    counts[_PI] = ret_unret + unret_ret
    counts[_NO] = unret_unret
    # The recounts of the Rnonrel measures (m_prefs_avgjg_Rnonrel*.c recalculate(), EC branch).
    if counts[_REL] < counts[_NONREL]:
        last_start = pool_start + seen_all - size[last]
        ful = (x_all - x_last) + ret_unret_before_last
        for k in range(counts[_REL]):
            if last_start + k >= pool.shape[0]:
                counts[_RN_UNDEFINED] = 1
                break
            ful += _below(retrieved_members, pool[last_start + k])
        counts[_RN_FUL] = ful
        counts[_RN_POSS] = all_all_before_last + seen_all * counts[_REL]
    if counts[_REL_RET] < counts[_NONREL_RET]:
        last_start = pool_start + seen_all - size[last]
        ful = x_all - x_last
        taken = 0
        for k in range(counts[_REL_RET]):
            if last_start + k >= pool.shape[0]:
                counts[_RNR_UNDEFINED] = 1
                break
            p = pool[last_start + k]
            if p >= njr:
                break
            ful += _below(retrieved_members, p)
            taken += 1
        counts[_RNR_FUL] = ful
        counts[_RNR_POSS] = ret_ret_before_last + n_retrieved * taken
    return m


@jit
def _closure(adjacency: np.ndarray, n: int, words: int) -> int:
    """Close ``adjacency`` (n rows of ``words`` words) transitively, in place; -1, or a member of a cycle."""
    indegree = np.zeros(n, dtype=np.int64)
    for k in range(n):
        for j in range(n):
            if _bit(adjacency, k, words, j):
                indegree[j] += 1
    order = np.empty(n, dtype=np.int64)
    head = tail = 0
    for k in range(n):
        if indegree[k] == 0:
            order[tail] = k
            tail += 1
    while head < tail:
        k = order[head]
        head += 1
        for j in range(n):
            if _bit(adjacency, k, words, j):
                indegree[j] -= 1
                if indegree[j] == 0:
                    order[tail] = j
                    tail += 1
    if tail < n:
        # Every node left has a predecessor left: walking back n steps lands on a cycle.
        k = 0
        while indegree[k] == 0:
            k += 1
        for _ in range(n):
            j = 0
            while indegree[j] == 0 or not _bit(adjacency, j, words, k):
                j += 1
            k = j
        return k
    row = np.empty(words, dtype=np.uint64)
    for t in range(n - 1, -1, -1):
        k = order[t]
        row[:] = adjacency[k * words : (k + 1) * words]
        for j in range(n):
            if (row[j >> 6] >> np.uint64(j & 63)) & _ONE == _ONE:
                for w in range(words):
                    adjacency[k * words + w] |= adjacency[j * words + w]
    return -1


@jit
def _pa_counts(
    closure: np.ndarray, n: int, words: int, n_retrieved: int, mask: np.ndarray, out: np.ndarray
) -> None:
    """Preference counts of a closed preference array over the members in ``mask`` (out: fr, pr, fi, pi, no)."""
    fr = pr = fi = pi = no = 0
    for k in range(n):
        if (mask[k >> 6] >> np.uint64(k & 63)) & _ONE == 0:
            continue
        if k < n_retrieved:
            pr += _count_in(closure, k, mask, words, 0, k)
            fr += _count_in(closure, k, mask, words, k + 1, n_retrieved)
            fi += _count_in(closure, k, mask, words, n_retrieved, n)
        else:
            pi += _count_in(closure, k, mask, words, 0, n_retrieved)
            no += _count_in(closure, k, mask, words, n_retrieved, n)
    out[0] = fr
    out[1] = pr + fr
    out[2] = fi
    out[3] = pi + fi
    out[4] = no


@jit
def _kept(rel: np.ndarray, n: int, words: int, limit: int, relevant: int) -> np.ndarray:
    """The members recalculate() keeps: all but the non-relevant ones from the (relevant + 1)-th on, searched among the first ``limit``."""
    mask = np.zeros(words, dtype=np.uint64)
    discard_from = limit
    seen = 0
    for k in range(limit):
        if rel[k] == 0.0:
            seen += 1
            if seen == relevant + 1:
                discard_from = k
                break
    for k in range(n):
        if not (k >= discard_from and rel[k] == 0.0):
            mask[k >> 6] |= _ONE << np.uint64(k & 63)
    return mask


@jit
def _pa_group(
    subgroup: np.ndarray,
    level: np.ndarray,
    doc: np.ndarray,
    lo: int,
    hi: int,
    njr: int,
    counts: np.ndarray,
    members: np.ndarray,
    local: np.ndarray,
) -> tuple[np.ndarray, int, int, int, int]:
    """Counts of a group with several subgroups (judgments lo..hi-1, sorted).

    Returns its closed preference array over its members (``members[:m]``, by internal rank; ``local[t]``
    is judgment t's member), its words per row, its member count, an error code and the judgment at fault.
    """
    n = hi - lo
    by_doc = stable_order(doc[lo:hi], False)
    m = 0
    for t in range(n):
        j = lo + by_doc[t]
        if m == 0 or members[m - 1] != doc[j]:
            members[m] = doc[j]
            m += 1
        local[j - lo] = m - 1
    words = (m + 63) >> 6
    rel = np.full(m, -1.0)
    for t in range(lo, hi):
        k = local[t - lo]
        if (rel[k] > 0.0 and level[t] == 0.0) or (rel[k] == 0.0 and level[t] > 0.0):
            return np.zeros(0, dtype=np.uint64), words, m, ZERO_AND_POSITIVE_LEVEL, t
        rel[k] = level[t]
    # Each member prefers, in each of its subgroups, the members of lower level there.
    adjacency = np.zeros(m * words, dtype=np.uint64)
    below = np.zeros(words, dtype=np.uint64)
    t = hi
    while t > lo:
        start = t - 1
        while start > lo and subgroup[start - 1] == subgroup[t - 1]:
            start -= 1
        below[:] = 0
        stop = t
        while stop > start:
            first = stop - 1
            while first > start and level[first - 1] == level[stop - 1]:
                first -= 1
            for u in range(first, stop):
                k = local[u - lo]
                for w in range(words):
                    adjacency[k * words + w] |= below[w]
            for u in range(first, stop):
                k = local[u - lo]
                below[k >> 6] |= _ONE << np.uint64(k & 63)
            stop = first
        t = start
    cycle = _closure(adjacency, m, words)
    if cycle >= 0:
        for u in range(lo, hi):
            if local[u - lo] == cycle:
                return adjacency, words, m, CONTRADICTION, u
    n_retrieved = 0
    while n_retrieved < m and members[n_retrieved] < njr:
        n_retrieved += 1
    for k in range(m):
        if rel[k] > 0.0:
            counts[_REL] += 1
            counts[_REL_RET] += k < n_retrieved
        elif rel[k] == 0.0:
            counts[_NONREL] += 1
            counts[_NONREL_RET] += k < n_retrieved
    everyone = _kept(rel, m, words, m, m)
    _pa_counts(adjacency, m, words, n_retrieved, everyone, counts)
    part = np.zeros(5, dtype=np.int64)
    if counts[_REL] < counts[_NONREL]:
        _pa_counts(adjacency, m, words, n_retrieved, _kept(rel, m, words, m, counts[_REL]), part)
        counts[_RN_FUL] = part[0] + part[2]
        counts[_RN_POSS] = part[1] + part[3] + part[4]
    if counts[_REL_RET] < counts[_NONREL_RET]:
        _pa_counts(adjacency, m, words, n_retrieved, _kept(rel, m, words, n_retrieved, counts[_REL]), part)
        counts[_RNR_FUL] = part[0]
        counts[_RNR_POSS] = part[1]
    return adjacency, words, m, OK, -1


@jit
def _ratio_or_nan(numerator: int, denominator: int) -> float:
    # C divides unguarded; numba's division by zero would raise. A count is never above its denominator.
    if denominator == 0:
        return np.nan
    return numerator / denominator


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
                ahead = _bit(bits[bits_offsets[g] :], k, words, t)
                behind = _bit(bits[bits_offsets[g] :], t, words, k)
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
def _query_measures(
    c: int,
    entry_offsets: np.ndarray,
    entry_group: np.ndarray,
    entry_subgroup: np.ndarray,
    entry_level: np.ndarray,
    entry_doc: np.ndarray,
    n_docs: np.ndarray,
    doc_rank: np.ndarray,
    max_docs: int,
    values: np.ndarray,
) -> tuple[int, int]:
    """Query c's fourteen values into ``values``; returns an error code and the judgment (index) at fault."""
    base = entry_offsets[c]
    n = entry_offsets[c + 1] - base
    nd = n_docs[c]
    internal, njr = _internal_ranks(doc_rank[base : base + nd], max_docs)
    raw_doc = np.empty(n, dtype=np.int64)
    for t in range(n):
        raw_doc[t] = internal[entry_doc[base + t]]
    order = _sorted_entries(entry_group[base : base + n], entry_subgroup[base : base + n], entry_level[base : base + n], raw_doc)
    group = np.empty(n, dtype=np.int64)
    subgroup = np.empty(n, dtype=np.int64)
    level = np.empty(n, dtype=np.float64)
    doc = np.empty(n, dtype=np.int64)
    for t in range(n):
        group[t] = entry_group[base + order[t]]
        subgroup[t] = entry_subgroup[base + order[t]]
        level[t] = entry_level[base + order[t]]
        doc[t] = raw_doc[order[t]]
    # Groups, whether each has several subgroups, and the rank pool of the one-subgroup groups.
    group_start = np.empty(n + 1, dtype=np.int64)
    several = np.zeros(n, dtype=np.bool_)
    n_groups = 0
    for t in range(n):
        if t == 0 or group[t] != group[t - 1]:
            group_start[n_groups] = t
            n_groups += 1
        elif subgroup[t] != subgroup[t - 1]:
            several[n_groups - 1] = True
    group_start[n_groups] = n
    pool_start = np.zeros(n_groups, dtype=np.int64)
    pool = np.empty(n, dtype=np.int64)
    pooled = 0
    for g in range(n_groups):
        pool_start[g] = pooled
        if not several[g]:
            for t in range(group_start[g], group_start[g + 1]):
                pool[pooled] = doc[t]
                pooled += 1
    pool = pool[:pooled]
    counts = np.zeros((n_groups, _N_COUNTS), dtype=np.int64)
    member_offsets = np.zeros(n_groups + 1, dtype=np.int64)
    members = np.empty(n, dtype=np.int64)
    member_class = np.zeros(n, dtype=np.int64)
    local = np.empty(n, dtype=np.int64)
    group_words = np.zeros(n_groups, dtype=np.int64)
    bits_offsets = np.zeros(n_groups + 1, dtype=np.int64)
    bits_parts = []
    for g in range(n_groups):
        lo, hi = group_start[g], group_start[g + 1]
        at = member_offsets[g]
        if several[g]:
            closed, words, m, error, fault = _pa_group(subgroup, level, doc, lo, hi, njr, counts[g], members[at:], local)
            if error != OK:
                return error, order[fault]
            group_words[g] = words
            bits_parts.append(closed)
            bits_offsets[g + 1] = bits_offsets[g] + closed.shape[0]
        else:
            m = _ec_group(level, doc, lo, hi, njr, pool, pool_start[g], counts[g], members[at:], member_class[at:])
            bits_offsets[g + 1] = bits_offsets[g]
        member_offsets[g + 1] = at + m
    _combine(counts, n_groups, values)
    _pairs(
        counts, n_groups, nd, njr, member_offsets, members, member_class, group_words, bits_offsets, bits_parts, values
    )
    return OK, -1


@jit
def _combine(counts: np.ndarray, n_groups: int, values: np.ndarray) -> None:
    """The measures but the pair ones, from the per-group counts (sums in group order, as trec_eval)."""
    poss = ful = ful_ret = poss_ret = poss_imp = 0
    avgjg = avgjg_ret = avgjg_imp = rnonrel = rnonrel_ret = 0.0
    rn_undefined = rnr_undefined = False
    for g in range(n_groups):
        k = counts[g]
        poss += k[_PR] + k[_PI] + k[_NO]
        ful += k[_FR] + k[_FI]
        ful_ret += k[_FR]
        poss_ret += k[_PR]
        poss_imp += k[_PR] + k[_PI]
        if k[_PR] + k[_PI] + k[_NO]:
            avgjg += (k[_FR] + k[_FI]) / (k[_PR] + k[_PI] + k[_NO])
        if k[_PR]:
            avgjg_ret += k[_FR] / k[_PR]
        if k[_PR] + k[_PI]:
            avgjg_imp += (k[_FR] + k[_FI]) / (k[_PR] + k[_PI])
        big_r, big_n = k[_REL], k[_NONREL]
        if big_r >= big_n:
            rnonrel += _ratio_or_nan(
                k[_FR] + k[_FI] + k[_REL_RET] * (big_r - big_n), k[_PR] + k[_PI] + k[_NO] + k[_REL] * (big_r - big_n)
            )
        else:
            rnonrel += _ratio_or_nan(k[_RN_FUL], k[_RN_POSS])
            rn_undefined |= k[_RN_UNDEFINED] == 1
        big_r, big_n = k[_REL_RET], k[_NONREL_RET]
        if big_r >= big_n:
            rnonrel_ret += _ratio_or_nan(k[_FR] + k[_REL_RET] * (big_r - big_n), k[_PR] + k[_REL] * (big_r - big_n))
        else:
            rnonrel_ret += _ratio_or_nan(k[_RNR_FUL], k[_RNR_POSS])
            rnr_undefined |= k[_RNR_UNDEFINED] == 1
    values[NUM_PREFS_POSS] = poss
    values[NUM_PREFS_FUL] = ful
    values[NUM_PREFS_FUL_RET] = ful_ret
    values[SIMP] = ful / poss if poss else 0.0
    values[SIMP_RET] = ful_ret / poss_ret if poss_ret else 0.0
    values[SIMP_IMP] = ful / poss_imp if poss_imp else 0.0
    values[AVGJG] = avgjg / n_groups if avgjg > 0.0 else 0.0
    values[AVGJG_RET] = avgjg_ret / n_groups if avgjg_ret > 0.0 else 0.0
    values[AVGJG_IMP] = avgjg_imp / n_groups if avgjg_imp > 0.0 else 0.0
    # A NaN sum fails "sum > 0.0" and leaves 0; a read of memory the query never wrote has no value.
    values[AVGJG_RNONREL] = np.nan if rn_undefined else (rnonrel / n_groups if rnonrel > 0.0 else 0.0)
    values[AVGJG_RNONREL_RET] = np.nan if rnr_undefined else (rnonrel_ret / n_groups if rnonrel_ret > 0.0 else 0.0)


@jit
def _pairs(
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
    values: np.ndarray,
) -> None:
    """The pair measures: pairs of retrieved documents, then retrieved with unretrieved, then (counted only) unretrieved pairs."""
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
            sum_ret += counts[g, _FR]
            sum_imp += counts[g, _FR] + counts[g, _FI]
            pairs_ret += counts[g, _PR]
            pairs_imp += counts[g, _PR] + counts[g, _PI]
            pairs_all += counts[g, _PR] + counts[g, _PI] + counts[g, _NO]
        values[PAIR_RET] = sum_ret / pairs_ret if pairs_ret else 0.0
        values[PAIR_IMP] = sum_imp / pairs_imp if pairs_imp else 0.0
        values[PAIR] = sum_imp / pairs_all if pairs_all else 0.0
        return
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
            values[PAIR_RET] = total / pairs[0] if pairs[0] else 0.0
    values[PAIR_IMP] = total / (pairs[0] + pairs[1]) if pairs[0] + pairs[1] else 0.0
    values[PAIR] = total / (pairs[0] + pairs[1] + pairs[2]) if pairs[0] + pairs[1] + pairs[2] else 0.0


def _example() -> tuple:
    """One query judging two documents in one group (levels 1 and 0), the first retrieved at rank 0."""
    return (
        np.zeros(1, dtype=np.int64), read_only([0, 2], np.int64), read_only([0, 0], np.int64),
        read_only([0, 0], np.int64), read_only([1.0, 0.0], np.float64), read_only([0, 1], np.int64),
        read_only([2], np.int64), read_only([0, -1], np.int64), np.iinfo(np.int64).max,
    )


@parallel_jit(example=_example)
def preference_measures(
    qrels_query: np.ndarray,
    entry_offsets: np.ndarray,
    entry_group: np.ndarray,
    entry_subgroup: np.ndarray,
    entry_level: np.ndarray,
    entry_doc: np.ndarray,
    n_docs: np.ndarray,
    doc_rank: np.ndarray,
    max_docs: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fourteen measures (columns ``NUM_PREFS_POSS`` ... ``AVGJG_IMP``) of each evaluated query.

    ``qrels_query[e]``: evaluated query e's query in the judgment index of
    :func:`~retrieval_eval.kernels.prefs_index.index_preference_judgments` (-1: none, every value
    0); ``doc_rank``: where the run ranks each judged document
    (:func:`~retrieval_eval.kernels.prefs_ranks.rank_preference_documents`), retrieved when
    0 <= rank < ``max_docs``. Returns the values, and per query an error code (``OK``,
    ``ZERO_AND_POSITIVE_LEVEL``, ``CONTRADICTION``: its values are then 0) with the judgment
    (an index of the entries) at fault, -1 when none.
    """
    n = qrels_query.shape[0]
    values = np.zeros((n, N_MEASURES), dtype=np.float64)
    errors = np.zeros(n, dtype=np.int64)
    faults = np.full(n, -1, dtype=np.int64)
    for e in prange(n):
        c = qrels_query[e]
        if c < 0:
            continue
        error, fault = _query_measures(
            c, entry_offsets, entry_group, entry_subgroup, entry_level, entry_doc, n_docs, doc_rank, max_docs, values[e]
        )
        if error != OK:
            errors[e] = error
            faults[e] = entry_offsets[c] + fault
            values[e, :] = 0.0
    return values, errors, faults
