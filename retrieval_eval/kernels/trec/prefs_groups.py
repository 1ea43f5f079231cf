"""The preference counts of one judgment group of a query (form_prefs_counts.c), and its Rnonrel recounts.

A query's judgments arrive sorted as trec_eval sorts them (group, subgroup, level descending,
internal rank; see :mod:`retrieval_eval.kernels.trec.prefs`), documents by internal rank: the ones the
run retrieved 0..njr-1, the others after. A group has

- *one subgroup*: its levels are equivalence classes (ECs), highest first; every document is
  preferred to those of every lower EC. Counts come from the ECs' sizes and one sweep over the
  retrieved documents in rank order with a Fenwick tree over ECs (pairs a above b), not from
  trec_eval's loop over every pair. trec_eval counts the ECs from a level of -3.0, so a group whose
  highest level is exactly -3.0 loses its lowest EC, here too. Level > 0 is relevant, <= 0 not.
- *several subgroups*: each subgroup prefers each document to its documents of lower level; the
  union is closed transitively (a bitset per member, in topological order) instead of trec_eval's
  docs x docs byte arrays multiplied until they stop changing. A cycle is an error (trec_eval
  aborts), and so is a document of level 0 in one subgroup and > 0 in the next (subgroup order)
  that lists it. A document's level is that of its last subgroup; > 0 is relevant, 0 is not,
  a negative one neither.

Per group (row ``counts[g]``): ``FR``, ``PR``, ``FI``, ``PI``, ``NO`` (see the measures' module),
``REL``, ``REL_RET``, ``NONREL``, ``NONREL_RET``, and, where the group has fewer relevant than
non-relevant documents, the fulfilled and possible counts of the Rnonrel recounts
(m_prefs_avgjg_Rnonrel*.c ``recalculate()``) with ``RN_UNDEFINED`` / ``RNR_UNDEFINED`` set where
that recount reads past the query's own judgments (below).

The one-subgroup recount pairs every EC, the last (non-relevant) one included, with "the first R
documents of the last EC" read from trec_eval's rank pool, the ECs of the query's one-subgroup
groups laid end to end. When R exceeds that EC the read goes on into the next groups' ECs
(reproduced), and past the query's last one into memory it never wrote: undefined.
"""

from __future__ import annotations

import numpy as np

from .._config import jit
from ..core.sorting import stable_order

# Why a query's preferences could not be formed (trec_eval stops, or aborts, on both).
OK = 0
ZERO_AND_POSITIVE_LEVEL = 1  # a document with level 0 in one subgroup of a group and > 0 in the next
CONTRADICTION = 2  # a group prefers a document to itself through others

# The columns of a group's counts.
FR = 0
PR = 1
FI = 2
PI = 3
NO = 4
REL = 5
REL_RET = 6
NONREL = 7
NONREL_RET = 8
RN_FUL = 9
RN_POSS = 10
RNR_FUL = 11
RNR_POSS = 12
RN_UNDEFINED = 13
RNR_UNDEFINED = 14
N_COUNTS = 15

_ILLEGAL_LEVEL = -3.0
_ONE = np.uint64(1)

@jit
def _popcount(x: np.uint64) -> int:
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@jit
def bit(bits: np.ndarray, row: int, words: int, column: int) -> bool:
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
def _below(values: np.ndarray, value: int) -> int:
    """How many of the sorted ``values`` are < ``value``."""
    return np.searchsorted(values, value)


@jit
def ec_group(
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
                counts[REL] += 1
                counts[REL_RET] += doc[t] < njr
            else:
                counts[NONREL] += 1
                counts[NONREL_RET] += doc[t] < njr
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
    counts[FR] = x_all
    counts[PR] = ret_ret
    counts[FI] = ret_unret
    counts[PI] = ret_unret + unret_ret
    counts[NO] = unret_unret
    # The recounts of the Rnonrel measures (m_prefs_avgjg_Rnonrel*.c recalculate(), EC branch).
    if counts[REL] < counts[NONREL]:
        last_start = pool_start + seen_all - size[last]
        ful = (x_all - x_last) + ret_unret_before_last
        for k in range(counts[REL]):
            if last_start + k >= pool.shape[0]:
                counts[RN_UNDEFINED] = 1
                break
            ful += _below(retrieved_members, pool[last_start + k])
        counts[RN_FUL] = ful
        counts[RN_POSS] = all_all_before_last + seen_all * counts[REL]
    if counts[REL_RET] < counts[NONREL_RET]:
        last_start = pool_start + seen_all - size[last]
        ful = x_all - x_last
        taken = 0
        for k in range(counts[REL_RET]):
            if last_start + k >= pool.shape[0]:
                counts[RNR_UNDEFINED] = 1
                break
            p = pool[last_start + k]
            if p >= njr:
                break
            ful += _below(retrieved_members, p)
            taken += 1
        counts[RNR_FUL] = ful
        counts[RNR_POSS] = ret_ret_before_last + n_retrieved * taken
    return m


@jit
def _closure(adjacency: np.ndarray, n: int, words: int) -> int:
    """Close ``adjacency`` (n rows of ``words`` words) transitively, in place; -1, or a member of a cycle."""
    indegree = np.zeros(n, dtype=np.int64)
    for k in range(n):
        for j in range(n):
            if bit(adjacency, k, words, j):
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
            if bit(adjacency, k, words, j):
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
            while indegree[j] == 0 or not bit(adjacency, j, words, k):
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
def pa_group(
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
            counts[REL] += 1
            counts[REL_RET] += k < n_retrieved
        elif rel[k] == 0.0:
            counts[NONREL] += 1
            counts[NONREL_RET] += k < n_retrieved
    everyone = _kept(rel, m, words, m, m)
    _pa_counts(adjacency, m, words, n_retrieved, everyone, counts)
    part = np.zeros(5, dtype=np.int64)
    if counts[REL] < counts[NONREL]:
        _pa_counts(adjacency, m, words, n_retrieved, _kept(rel, m, words, m, counts[REL]), part)
        counts[RN_FUL] = part[0] + part[2]
        counts[RN_POSS] = part[1] + part[3] + part[4]
    if counts[REL_RET] < counts[NONREL_RET]:
        _pa_counts(adjacency, m, words, n_retrieved, _kept(rel, m, words, n_retrieved, counts[REL]), part)
        counts[RNR_FUL] = part[0]
        counts[RNR_POSS] = part[1]
    return adjacency, words, m, OK, -1
