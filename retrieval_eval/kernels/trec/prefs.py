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
order (ratios of int64 counts; the pair sums add their terms pair by pair in its loop order,
:mod:`retrieval_eval.kernels.trec.prefs_pairs`). A group's counts: :mod:`retrieval_eval.kernels.trec.prefs_groups`.

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

from .._config import jit, parallel_jit, prange, read_only
from ..core.sorting import stable_order
from .prefs_groups import (
    CONTRADICTION,
    FI,
    FR,
    N_COUNTS,
    NO,
    NONREL,
    NONREL_RET,
    OK,
    PI,
    PR,
    REL,
    REL_RET,
    RN_FUL,
    RN_POSS,
    RN_UNDEFINED,
    RNR_FUL,
    RNR_POSS,
    RNR_UNDEFINED,
    ZERO_AND_POSITIVE_LEVEL,
    ec_group,
    pa_group,
)
from .prefs_pairs import pair_measures

__all__ = ["CONTRADICTION", "N_MEASURES", "OK", "ZERO_AND_POSITIVE_LEVEL", "preference_measures"]

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
def _ratio_or_nan(numerator: int, denominator: int) -> float:
    # C divides unguarded; numba's division by zero would raise. A count is never above its denominator.
    if denominator == 0:
        return np.nan
    return numerator / denominator


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
    counts = np.zeros((n_groups, N_COUNTS), dtype=np.int64)
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
            closed, words, m, error, fault = pa_group(subgroup, level, doc, lo, hi, njr, counts[g], members[at:], local)
            if error != OK:
                return error, order[fault]
            group_words[g] = words
            bits_parts.append(closed)
            bits_offsets[g + 1] = bits_offsets[g] + closed.shape[0]
        else:
            m = ec_group(level, doc, lo, hi, njr, pool, pool_start[g], counts[g], members[at:], member_class[at:])
            bits_offsets[g + 1] = bits_offsets[g]
        member_offsets[g + 1] = at + m
    _combine(counts, n_groups, values)
    values[PAIR_RET], values[PAIR_IMP], values[PAIR] = pair_measures(
        counts, n_groups, nd, njr, member_offsets, members, member_class, group_words, bits_offsets, bits_parts
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
        poss += k[PR] + k[PI] + k[NO]
        ful += k[FR] + k[FI]
        ful_ret += k[FR]
        poss_ret += k[PR]
        poss_imp += k[PR] + k[PI]
        if k[PR] + k[PI] + k[NO]:
            avgjg += (k[FR] + k[FI]) / (k[PR] + k[PI] + k[NO])
        if k[PR]:
            avgjg_ret += k[FR] / k[PR]
        if k[PR] + k[PI]:
            avgjg_imp += (k[FR] + k[FI]) / (k[PR] + k[PI])
        big_r, big_n = k[REL], k[NONREL]
        if big_r >= big_n:
            rnonrel += _ratio_or_nan(
                k[FR] + k[FI] + k[REL_RET] * (big_r - big_n), k[PR] + k[PI] + k[NO] + k[REL] * (big_r - big_n)
            )
        else:
            rnonrel += _ratio_or_nan(k[RN_FUL], k[RN_POSS])
            rn_undefined |= k[RN_UNDEFINED] == 1
        big_r, big_n = k[REL_RET], k[NONREL_RET]
        if big_r >= big_n:
            rnonrel_ret += _ratio_or_nan(k[FR] + k[REL_RET] * (big_r - big_n), k[PR] + k[REL] * (big_r - big_n))
        else:
            rnonrel_ret += _ratio_or_nan(k[RNR_FUL], k[RNR_POSS])
            rnr_undefined |= k[RNR_UNDEFINED] == 1
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
    :func:`~retrieval_eval.kernels.trec.prefs_index.index_preference_judgments` (-1: none, every value
    0); ``doc_rank``: where the run ranks each judged document
    (:func:`~retrieval_eval.kernels.trec.prefs_ranks.rank_preference_documents`), retrieved when
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
