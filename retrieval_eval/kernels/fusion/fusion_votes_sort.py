"""CPython 3.11's ``list.sort`` with ranx's Condorcet comparison of two candidates, as ranx sorts them.

ranx 0.3.21's Condorcet fusion (ranx/fusion/condorcet.py, weighted_condorcet.py) orders a
query's candidates with ``sorted(range(n), key=cmp_to_key(compare))``, where ``compare(x, y)``
is -1 (x first) when the runs voting for x weigh at least as much as those voting for y, and 1
otherwise. Run r votes for x when x's 0-based position in r is smaller than y's, a run lacking
a candidate giving it position 1,000,000; every other run (y ahead, or both absent) votes for
y. This is no order: two candidates can each come before the other (equal votes), and majority
preferences can cycle (x over y over z over x). The sorted result then depends on which pairs
the sort compares, in what sequence: on CPython's sort algorithm itself. So the algorithm is
reproduced here, comparison for comparison, from CPython 3.11's Objects/listobject.c (the
interpreter ranx runs under here): timsort with natural runs found by ``count_run`` (strictly
descending runs reversed), runs shorter than ``minrun`` extended by binary insertion, powersort's
merge policy (``found_new_run``/``powerloop``), ``merge_lo``/``merge_hi`` with galloping and its
adaptive ``min_gallop``, and ``merge_force_collapse`` at the end. Only ``<`` is ever asked, as
``cmp_to_key``'s ``__lt__`` asks ``compare(x, y) < 0``.

Later CPythons changed ``count_run`` (3.13: descending runs with equal elements), so ranx under
another interpreter may order such inputs otherwise; the tests compare with the ``sorted`` of
the interpreter they run under.

Why a copy and not the interpreter's own ``sorted`` (decided in issue 30, measured then): calling
``sorted`` per query is a Python loop over queries, and almost no query escapes it (0 of 200
benchmark queries had a majority relation that is a strict weak order, where any sort agrees).
On 2,000 queries of about 110 candidates it took 1.1-1.6 s, the compiled copy 0.02-0.05 s. The
copy gives ranx's order under CPython 3.11 and 3.12, which agree on every one of 300 random
rankings; under 3.13, 38 of them sort otherwise, so there ranx's own result changes and this one
does not (the project runs on 3.11).
"""

from __future__ import annotations

import numpy as np

from .._config import jit

#: Where ranx places a candidate a run lacks (``_get_run_indices``).
ABSENT_POSITION = 1_000_000
#: CPython's MIN_GALLOP: consecutive wins of one run before a merge starts galloping.
MIN_GALLOP = 7
#: CPython's MAX_MERGE_PENDING: the pending runs' stack (powersort keeps it under log2(n) + 1).
MAX_MERGE_PENDING = 85
#: CPython's MAX_MINRUN.
MAX_MINRUN = 64

# MergeState's scalars, in one int64 array: min_gallop and the number of pending runs.
_MIN_GALLOP = 0
_N_PENDING = 1

# How a merge loop ended (CPython's labels Succeed, CopyA / CopyB).
_GOING = 0
_SUCCEED = 1
_COPY = 2


@jit
def precedes(x: int, y: int, ranks: np.ndarray, weights: np.ndarray) -> bool:
    """Whether candidate ``x`` sorts before ``y`` (``compare(x, y) == -1``): the weight of the runs
    placing x ahead is at least that of the others. ``ranks``: int64[n, n_runs], 1-based, 0 absent."""
    for_x = 0.0
    for_y = 0.0
    for r in range(ranks.shape[1]):
        position_x = ranks[x, r] - 1 if ranks[x, r] > 0 else ABSENT_POSITION
        position_y = ranks[y, r] - 1 if ranks[y, r] > 0 else ABSENT_POSITION
        if position_x < position_y:
            for_x += weights[r]
        else:
            for_y += weights[r]
    return for_x >= for_y


@jit
def _count_run(a: np.ndarray, lo: int, hi: int, ranks: np.ndarray, weights: np.ndarray) -> int:
    """The length of the natural run at ``a[lo:hi]``, negative when it is strictly descending (3.11's ``count_run``)."""
    if lo + 1 == hi:
        return 1
    n = 2
    p = lo + 2
    if precedes(a[lo + 1], a[lo], ranks, weights):
        while p < hi and precedes(a[p], a[p - 1], ranks, weights):
            n += 1
            p += 1
        return -n
    while p < hi and not precedes(a[p], a[p - 1], ranks, weights):
        n += 1
        p += 1
    return n


@jit
def _binary_insertion(a: np.ndarray, lo: int, hi: int, start: int, ranks: np.ndarray, weights: np.ndarray) -> None:
    """Sort ``a[lo:hi]`` whose ``a[lo:start]`` is sorted (start > lo: a natural run), by binary insertion (``binarysort``)."""
    while start < hi:
        left = lo
        right = start
        pivot = a[right]
        while True:
            middle = left + ((right - left) >> 1)
            if precedes(pivot, a[middle], ranks, weights):
                right = middle
            else:
                left = middle + 1
            if left >= right:
                break
        for p in range(start, left, -1):
            a[p] = a[p - 1]
        a[left] = pivot
        start += 1


@jit
def _gallop_left(key: int, a: np.ndarray, base: int, n: int, hint: int, ranks: np.ndarray, weights: np.ndarray) -> int:
    """k in 0..n with ``a[base + k - 1] < key <= a[base + k]`` (``gallop_left``, starting at ``hint``)."""
    last = 0
    offset = 1
    if precedes(a[base + hint], key, ranks, weights):
        most = n - hint
        while offset < most:
            if precedes(a[base + hint + offset], key, ranks, weights):
                last = offset
                offset = (offset << 1) + 1
            else:
                break
        if offset > most:
            offset = most
        last += hint
        offset += hint
    else:
        most = hint + 1
        while offset < most:
            if precedes(a[base + hint - offset], key, ranks, weights):
                break
            last = offset
            offset = (offset << 1) + 1
        if offset > most:
            offset = most
        k = last
        last = hint - offset
        offset = hint - k
    last += 1
    while last < offset:
        middle = last + ((offset - last) >> 1)
        if precedes(a[base + middle], key, ranks, weights):
            last = middle + 1
        else:
            offset = middle
    return offset


@jit
def _gallop_right(key: int, a: np.ndarray, base: int, n: int, hint: int, ranks: np.ndarray, weights: np.ndarray) -> int:
    """k in 0..n with ``a[base + k - 1] <= key < a[base + k]`` (``gallop_right``, starting at ``hint``)."""
    last = 0
    offset = 1
    if precedes(key, a[base + hint], ranks, weights):
        most = hint + 1
        while offset < most:
            if precedes(key, a[base + hint - offset], ranks, weights):
                last = offset
                offset = (offset << 1) + 1
            else:
                break
        if offset > most:
            offset = most
        k = last
        last = hint - offset
        offset = hint - k
    else:
        most = n - hint
        while offset < most:
            if precedes(key, a[base + hint + offset], ranks, weights):
                break
            last = offset
            offset = (offset << 1) + 1
        if offset > most:
            offset = most
        last += hint
        offset += hint
    last += 1
    while last < offset:
        middle = last + ((offset - last) >> 1)
        if precedes(key, a[base + middle], ranks, weights):
            offset = middle
        else:
            last = middle + 1
    return offset


@jit
def _merge_lo(
    a: np.ndarray, pa: int, na: int, pb: int, nb: int, tmp: np.ndarray, state: np.ndarray,
    ranks: np.ndarray, weights: np.ndarray,
) -> None:
    """Merge the adjacent runs ``a[pa:pa+na]`` and ``a[pb:pb+nb]`` (na <= nb) from the left (``merge_lo``)."""
    for i in range(na):
        tmp[i] = a[pa + i]
    dest = pa
    ia = 0
    ib = pb
    a[dest] = a[ib]
    dest += 1
    ib += 1
    nb -= 1
    outcome = _GOING
    if nb == 0:
        outcome = _SUCCEED
    elif na == 1:
        outcome = _COPY
    min_gallop = state[_MIN_GALLOP]
    while outcome == _GOING:
        a_count = 0
        b_count = 0
        while True:
            if precedes(a[ib], tmp[ia], ranks, weights):
                a[dest] = a[ib]
                dest += 1
                ib += 1
                b_count += 1
                a_count = 0
                nb -= 1
                if nb == 0:
                    outcome = _SUCCEED
                    break
                if b_count >= min_gallop:
                    break
            else:
                a[dest] = tmp[ia]
                dest += 1
                ia += 1
                a_count += 1
                b_count = 0
                na -= 1
                if na == 1:
                    outcome = _COPY
                    break
                if a_count >= min_gallop:
                    break
        if outcome != _GOING:
            break
        min_gallop += 1
        while True:
            if min_gallop > 1:
                min_gallop -= 1
            state[_MIN_GALLOP] = min_gallop
            k = _gallop_right(a[ib], tmp, ia, na, 0, ranks, weights)
            a_count = k
            if k:
                for i in range(k):
                    a[dest + i] = tmp[ia + i]
                dest += k
                ia += k
                na -= k
                if na == 1:
                    outcome = _COPY
                    break
                # na == 0 is impossible if the comparison is consistent (CPython's comment): it is not.
                if na == 0:
                    outcome = _SUCCEED
                    break
            a[dest] = a[ib]
            dest += 1
            ib += 1
            nb -= 1
            if nb == 0:
                outcome = _SUCCEED
                break
            k = _gallop_left(tmp[ia], a, ib, nb, 0, ranks, weights)
            b_count = k
            if k:
                for i in range(k):  # dest < ib: a forward copy is memmove's
                    a[dest + i] = a[ib + i]
                dest += k
                ib += k
                nb -= k
                if nb == 0:
                    outcome = _SUCCEED
                    break
            a[dest] = tmp[ia]
            dest += 1
            ia += 1
            na -= 1
            if na == 1:
                outcome = _COPY
                break
            if a_count < MIN_GALLOP and b_count < MIN_GALLOP:
                break
        if outcome != _GOING:
            break
        min_gallop += 1  # penalize it for leaving galloping mode
        state[_MIN_GALLOP] = min_gallop
    if outcome == _SUCCEED:
        for i in range(na):
            a[dest + i] = tmp[ia + i]
    else:  # the last element of run A belongs at the end of the merge
        for i in range(nb):
            a[dest + i] = a[ib + i]
        a[dest + nb] = tmp[ia]


@jit
def _merge_hi(
    a: np.ndarray, pa: int, na: int, pb: int, nb: int, tmp: np.ndarray, state: np.ndarray,
    ranks: np.ndarray, weights: np.ndarray,
) -> None:
    """Merge the adjacent runs ``a[pa:pa+na]`` and ``a[pb:pb+nb]`` (na > nb) from the right (``merge_hi``)."""
    for i in range(nb):
        tmp[i] = a[pb + i]
    dest = pb + nb - 1
    ib = nb - 1
    ia = pa + na - 1
    a[dest] = a[ia]
    dest -= 1
    ia -= 1
    na -= 1
    # CPython checks na == 0 here too, which cannot be: merge_at merges from the right only when na > nb >= 1.
    outcome = _COPY if nb == 1 else _GOING
    min_gallop = state[_MIN_GALLOP]
    while outcome == _GOING:
        a_count = 0
        b_count = 0
        while True:
            if precedes(tmp[ib], a[ia], ranks, weights):
                a[dest] = a[ia]
                dest -= 1
                ia -= 1
                a_count += 1
                b_count = 0
                na -= 1
                if na == 0:
                    outcome = _SUCCEED
                    break
                if a_count >= min_gallop:
                    break
            else:
                a[dest] = tmp[ib]
                dest -= 1
                ib -= 1
                b_count += 1
                a_count = 0
                nb -= 1
                if nb == 1:
                    outcome = _COPY
                    break
                if b_count >= min_gallop:
                    break
        if outcome != _GOING:
            break
        min_gallop += 1
        while True:
            if min_gallop > 1:
                min_gallop -= 1
            state[_MIN_GALLOP] = min_gallop
            k = na - _gallop_right(tmp[ib], a, pa, na, na - 1, ranks, weights)
            a_count = k
            if k:
                dest -= k
                ia -= k
                for i in range(k, 0, -1):  # dest > ia: a backward copy is memmove's
                    a[dest + i] = a[ia + i]
                na -= k
                if na == 0:
                    outcome = _SUCCEED
                    break
            a[dest] = tmp[ib]
            dest -= 1
            ib -= 1
            nb -= 1
            if nb == 1:
                outcome = _COPY
                break
            k = nb - _gallop_left(a[ia], tmp, 0, nb, nb - 1, ranks, weights)
            b_count = k
            if k:
                dest -= k
                ib -= k
                for i in range(1, k + 1):
                    a[dest + i] = tmp[ib + i]
                nb -= k
                if nb == 1:
                    outcome = _COPY
                    break
                # nb == 0 is impossible if the comparison is consistent (CPython's comment): it is not.
                if nb == 0:
                    outcome = _SUCCEED
                    break
            a[dest] = a[ia]
            dest -= 1
            ia -= 1
            na -= 1
            if na == 0:
                outcome = _SUCCEED
                break
            if a_count < MIN_GALLOP and b_count < MIN_GALLOP:
                break
        if outcome != _GOING:
            break
        min_gallop += 1  # penalize it for leaving galloping mode
        state[_MIN_GALLOP] = min_gallop
    if outcome == _SUCCEED:
        for i in range(nb):
            a[dest - (nb - 1) + i] = tmp[i]
    else:  # the first element of run B belongs at the front of the merge
        for i in range(0, -na, -1):
            a[dest + i] = a[ia + i]
        dest -= na
        a[dest] = tmp[ib]


@jit
def _merge_at(
    a: np.ndarray, i: int, tmp: np.ndarray, state: np.ndarray, bases: np.ndarray, lengths: np.ndarray,
    powers: np.ndarray, ranks: np.ndarray, weights: np.ndarray,
) -> None:
    """Merge the pending runs i and i + 1 (``merge_at``)."""
    pa = bases[i]
    na = lengths[i]
    pb = bases[i + 1]
    nb = lengths[i + 1]
    lengths[i] = na + nb
    if i == state[_N_PENDING] - 3:
        bases[i + 1] = bases[i + 2]
        lengths[i + 1] = lengths[i + 2]
        powers[i + 1] = powers[i + 2]
    state[_N_PENDING] -= 1
    # Where does run B start in run A? What comes before is in place already.
    k = _gallop_right(a[pb], a, pa, na, 0, ranks, weights)
    pa += k
    na -= k
    if na == 0:
        return
    # Where does run A end in run B? What comes after is in place already.
    nb = _gallop_left(a[pa + na - 1], a, pb, nb, nb - 1, ranks, weights)
    if nb <= 0:
        return
    if na <= nb:
        _merge_lo(a, pa, na, pb, nb, tmp, state, ranks, weights)
    else:
        _merge_hi(a, pa, na, pb, nb, tmp, state, ranks, weights)


@jit
def _power(s1: int, n1: int, n2: int, n: int) -> int:
    """The power of the run at ``s1`` (length n1) before one of length n2, in a list of n (``powerloop``)."""
    result = 0
    a = 2 * s1 + n1
    b = a + n1 + n2
    while True:
        result += 1
        if a >= n:
            a -= n
            b -= n
        elif b >= n:
            break
        a <<= 1
        b <<= 1
    return result


@jit
def _min_run(n: int) -> int:
    """``merge_compute_minrun``: n below 64, else a length in 32..64 splitting n into about a power of 2 runs."""
    r = 0
    while n >= MAX_MINRUN:
        r |= n & 1
        n >>= 1
    return n + r


@jit
def condorcet_sort(a: np.ndarray, ranks: np.ndarray, weights: np.ndarray) -> None:
    """Sort the candidate indices ``a`` in place as ``a.sort(key=cmp_to_key(compare))`` does (module docstring).

    ``ranks``: int64[n_candidates, n_runs], each candidate's 1-based position in each run (0
    where the run lacks it); ``weights``: float64[n_runs] (ones for unweighted Condorcet).
    """
    n = a.shape[0]
    if n < 2:
        return
    tmp = np.empty((n + 1) // 2, dtype=np.int64)
    state = np.zeros(2, dtype=np.int64)
    state[_MIN_GALLOP] = MIN_GALLOP
    bases = np.zeros(MAX_MERGE_PENDING, dtype=np.int64)
    lengths = np.zeros(MAX_MERGE_PENDING, dtype=np.int64)
    powers = np.zeros(MAX_MERGE_PENDING, dtype=np.int64)
    min_run = _min_run(n)
    lo = 0
    remaining = n
    while remaining > 0:
        length = _count_run(a, lo, lo + remaining, ranks, weights)
        if length < 0:
            length = -length
            a[lo : lo + length] = a[lo : lo + length][::-1].copy()
        if length < min_run:
            force = remaining if remaining <= min_run else min_run
            _binary_insertion(a, lo, lo + force, lo + length, ranks, weights)
            length = force
        # powersort: merge the pending runs deeper in the merge tree than the one before this run.
        top = state[_N_PENDING]
        if top > 0:
            power = _power(bases[top - 1], lengths[top - 1], length, n)
            while state[_N_PENDING] > 1 and powers[state[_N_PENDING] - 2] > power:
                _merge_at(a, state[_N_PENDING] - 2, tmp, state, bases, lengths, powers, ranks, weights)
            powers[state[_N_PENDING] - 1] = power
        top = state[_N_PENDING]
        bases[top] = lo
        lengths[top] = length
        state[_N_PENDING] = top + 1
        lo += length
        remaining -= length
    while state[_N_PENDING] > 1:
        i = state[_N_PENDING] - 2
        if i > 0 and lengths[i - 1] < lengths[i + 1]:
            i -= 1
        _merge_at(a, i, tmp, state, bases, lengths, powers, ranks, weights)
