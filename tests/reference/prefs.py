"""Plain-Python oracle for trec_eval 10's preference measures (``trec_eval -m all_prefs -q``).

A line-by-line transcription of trec_eval 10's C sources, standard library only, independent of the
``retrieval_eval`` package: ``form_prefs_counts.c`` (how a query's judgments become preferences and
counts) and the fourteen ``m_prefs_*.c`` measures. It keeps trec_eval's data structures (a dense
counts array, a dense preference array per judgment group with subgroups, transitive closure by
repeated boolean matrix products, equivalence classes with their rank pool), so it is slow and meant
for small inputs.

Inputs: per query, judgment lines ``(group, subgroup, docno, level)`` (``-R prefs``; ``-R qrels_prefs``
is the same with subgroup ``"0"``) and ranked lines ``(docno, score)``. Strings compare as C ``strcmp``
(their UTF-8 bytes). What trec_eval does, and so what this does:

* The run is sorted by score descending, equal scores by docno *ascending* (``comp_sim_docno`` here
  compares ``p1, p2``; form_res_rels.c, for the other measures, compares ``p2, p1``), cut at
  ``max_docs`` (``-M``); ``-J`` is not read. A docno repeated within the kept documents is an error.
* Each judged docno of the query gets an internal rank: the retrieved ones 0..njr-1 in rank order, the
  others njr.. in docno order.
* A judgment group (jg) with one subgroup holds equivalence classes (ECs), one per distinct level,
  highest first, each listing its internal ranks ascending; its preferences are all pairs across ECs.
  The number of ECs is counted from a level of -3.0 (``rel_level = -3.0; /* Illegal rel_level */``),
  so a group whose highest level is exactly -3.0 loses its lowest EC. A group with several subgroups
  holds a preference array: each subgroup prefers a document to every document of its with a lower
  level, closed transitively; a cycle is an error (trec_eval aborts), and so is a document with level
  0 in one subgroup and a positive level in the next one that lists it.
* ``prefs_avgjg_Rnonrel(_ret)`` recompute an EC group's counts with "the first R documents of the last
  EC" (R = relevant documents of the group, or the retrieved ones). When R exceeds that EC's size,
  trec_eval reads on into the rank pool: the ECs of the query's next EC groups, whose values this
  reproduces, and past them memory left by earlier queries or never written. That value has no
  definition; this oracle returns NaN for it (``UNDEFINED``).

Measures that divide by 0 stay 0, as trec_eval leaves them, except the two ``Rnonrel`` measures, which
divide unguarded: a group of 0/0 makes their sum NaN, and a NaN sum fails their ``sum > 0.0`` test,
so the query's value is 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

MEASURES = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
#: The measures that are counts (trec_eval prints them with ``%ld`` and sums them in its ``all`` line).
COUNTS = MEASURES[:3]
_ILLEGAL_LEVEL = -3.0
_USHRT = 0xFFFF  # the counts array is unsigned short: it wraps past 65535 groups

Judgment = tuple[str, str, str, float]  # (group, subgroup, docno, level)
Retrieved = tuple[str, float]  # (docno, score)


class PrefsError(ValueError):
    """Input trec_eval refuses (or aborts on) while forming a query's preferences."""


class _Undefined(Exception):
    """trec_eval would read memory this query never wrote."""


def _key(text: str) -> bytes:
    return text.encode("utf-8")


class _EC:
    def __init__(self, level: float, start: int, size: int) -> None:
        self.level, self.start, self.size = level, start, size


class _Group:
    """One judgment group, as form_prefs_counts.c's JG."""

    def __init__(self) -> None:
        self.ecs: list[_EC] = []
        self.num_ecs = 0  # 0 also marks a preference-array group, as in C
        self.pa: list[list[int]] | None = None
        self.rel_array: list[float] | None = None
        self.ful_ret = self.poss_ret = self.ful_imp = self.poss_imp = self.notoccur = 0
        self.num_rel = self.num_rel_ret = self.num_nonrel = self.num_nonrel_ret = 0


class _QueryPrefs:
    def __init__(self, num_judged: int, num_judged_ret: int) -> None:
        self.num_judged, self.num_judged_ret = num_judged, num_judged_ret
        self.counts = [[0] * num_judged for _ in range(num_judged)]
        self.groups: list[_Group] = []
        self.rank_pool: list[int] = []


def _sorted_results(results: Sequence[Retrieved], max_docs: int | None) -> list[str]:
    ranked = sorted(results, key=lambda r: (-r[1], _key(r[0])))
    if max_docs is not None:
        ranked = ranked[:max_docs]
    docnos = [docno for docno, _ in ranked]
    if len(set(docnos)) != len(docnos):
        raise PrefsError("duplicate docs")
    return docnos


def form_prefs(judgments: Sequence[Judgment], results: Sequence[Retrieved], max_docs: int | None = None) -> _QueryPrefs:
    """form_prefs_counts() for one query."""
    ranked = _sorted_results(results, max_docs)
    judged = {docno for _, _, docno, _ in judgments}
    retrieved = [docno for docno in ranked if docno in judged]
    internal = {docno: i for i, docno in enumerate(retrieved)}
    for docno in sorted(judged - set(retrieved), key=_key):
        internal[docno] = len(internal)
    rows = sorted(
        ((jg, jsg, level, internal[docno], docno) for jg, jsg, docno, level in judgments),
        key=lambda r: (_key(r[0]), _key(r[1]), -r[2], r[3]),
    )
    q = _QueryPrefs(len(internal), len(retrieved))
    start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and rows[end][0] == rows[start][0]:
            end += 1
        group_rows = rows[start:end]
        subgroups = len({r[1] for r in group_rows})
        levels = 0
        level = _ILLEGAL_LEVEL
        for r in group_rows:
            if r[2] != level:
                levels += 1
                level = r[2]
        group = _Group()
        if subgroups > 1:
            _form_pa(group, group_rows, q)
        else:
            group.num_ecs = levels
            _form_ec(group, group_rows, q)
        q.groups.append(group)
        start = end
    return q


def _form_ec(group: _Group, rows: list[tuple], q: _QueryPrefs) -> None:
    base = len(q.rank_pool)
    for r in rows:
        if not group.ecs or group.ecs[-1].level != r[2]:
            group.ecs.append(_EC(r[2], len(q.rank_pool), 0))
        q.rank_pool.append(r[3])
        group.ecs[-1].size += 1
    assert len(q.rank_pool) == base + len(rows)
    njr = q.num_judged_ret
    pool = q.rank_pool
    for e1 in range(group.num_ecs):
        ec1 = group.ecs[e1]
        ranks1 = pool[ec1.start : ec1.start + ec1.size]
        retrieved = 0
        while retrieved < len(ranks1) and ranks1[retrieved] < njr:
            retrieved += 1
        if ec1.level > 0.0:
            group.num_rel_ret += retrieved
            group.num_rel += ec1.size
        else:
            group.num_nonrel_ret += retrieved
            group.num_nonrel += ec1.size
        for e2 in range(e1 + 1, group.num_ecs):
            ec2 = group.ecs[e2]
            for p1 in ranks1:
                for p2 in pool[ec2.start : ec2.start + ec2.size]:
                    q.counts[p1][p2] = (q.counts[p1][p2] + 1) & _USHRT
                    if p1 == p2:
                        raise PrefsError(f"Internal docid {p1} occurs with different rel_level in same jsg")
                    if p1 < p2:
                        if p2 < njr:
                            group.ful_ret += 1
                        elif p1 < njr:
                            group.ful_imp += 1
                        else:
                            group.notoccur += 1
                    else:
                        if p1 < njr:
                            group.poss_ret += 1
                        elif p2 < njr:
                            group.poss_imp += 1
                        else:
                            group.notoccur += 1
    group.poss_ret += group.ful_ret
    group.poss_imp += group.ful_imp


def _form_pa(group: _Group, rows: list[tuple], q: _QueryPrefs) -> None:
    n = q.num_judged
    pa = [[0] * n for _ in range(n)]
    rel = [-1.0] * n
    for i, r in enumerate(rows):
        rank, level = r[3], r[2]
        if (rel[rank] > 0.0 and level == 0.0) or (rel[rank] == 0.0 and level > 0.0):
            raise PrefsError(f"doc '{r[4]}' has both 0 and non-0 rel_level assigned")
        rel[rank] = level
        j = i + 1
        while j < len(rows) and rows[j][1] == r[1] and rows[j][2] == level:
            j += 1
        while j < len(rows) and rows[j][1] == r[1]:
            pa[rank][rows[j][3]] = 1
            j += 1
    _add_transitives(pa)
    group.pa, group.rel_array = pa, rel
    njr = q.num_judged_ret
    for i in range(njr):
        if rel[i] > 0.0:
            group.num_rel_ret += 1
        elif rel[i] == 0.0:
            group.num_nonrel_ret += 1
    group.num_rel, group.num_nonrel = group.num_rel_ret, group.num_nonrel_ret
    for i in range(njr, n):
        if rel[i] > 0.0:
            group.num_rel += 1
        elif rel[i] == 0.0:
            group.num_nonrel += 1
    c = q.counts
    for i in range(njr):
        for j in range(i):
            if pa[i][j]:
                c[i][j] = (c[i][j] + 1) & _USHRT
                group.poss_ret += 1
        for j in range(i + 1, njr):
            if pa[i][j]:
                c[i][j] = (c[i][j] + 1) & _USHRT
                group.ful_ret += 1
        for j in range(njr, n):
            if pa[i][j]:
                c[i][j] = (c[i][j] + 1) & _USHRT
                group.ful_imp += 1
    for i in range(njr, n):
        for j in range(njr):
            if pa[i][j]:
                c[i][j] = (c[i][j] + 1) & _USHRT
                group.poss_imp += 1
        for j in range(njr, n):
            if pa[i][j]:
                c[i][j] = (c[i][j] + 1) & _USHRT
                group.notoccur += 1
    group.poss_ret += group.ful_ret
    group.poss_imp += group.ful_imp


def _multiply(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
    n = len(a)
    return [[1 if any(a[i][k] and b[k][j] for k in range(n)) else 0 for j in range(n)] for i in range(n)]


def _add_transitives(pa: list[list[int]]) -> None:
    n = len(pa)
    for i in range(n):
        pa[i][i] = 1
    current = pa
    product = _multiply(pa, current)
    if product != current:
        while True:
            current, product = product, _multiply(pa, product)
            if product == current:
                break
        for i in range(n):
            pa[i][:] = product[i]
    for i in range(n):
        pa[i][i] = 0
    for i in range(n):
        for j in range(n):
            if i != j and pa[i][j] and pa[j][i]:
                raise PrefsError(f"Pref inconsistency found: internal rank {i} and internal rank {j} are conflicted")


def _pool_at(q: _QueryPrefs, index: int) -> int:
    if index >= len(q.rank_pool):
        raise _Undefined
    return q.rank_pool[index]


def _recalculate(group: _Group, q: _QueryPrefs, retrieved_only: bool) -> tuple[int, int]:
    """``recalculate()`` of m_prefs_avgjg_Rnonrel.c (``retrieved_only``: of m_prefs_avgjg_Rnonrel_ret.c)."""
    njr = q.num_judged_ret
    pool = q.rank_pool
    ful = poss = 0
    if group.num_ecs > 0:
        last = group.ecs[group.num_ecs - 1]
        new_size = group.num_rel_ret if retrieved_only else group.num_rel

        def members(ec: _EC) -> Iterable[int]:
            for p in pool[ec.start : ec.start + ec.size]:
                if retrieved_only and p >= njr:
                    return
                yield p

        def new_members() -> Iterable[int]:
            for k in range(new_size):
                p = _pool_at(q, last.start + k)
                if retrieved_only and p >= njr:
                    return
                yield p

        for e1 in range(group.num_ecs):
            for e2 in range(e1 + 1, group.num_ecs - 1):
                for p1 in members(group.ecs[e1]):
                    for p2 in members(group.ecs[e2]):
                        if p1 < p2 and (retrieved_only or p1 < njr):
                            ful += 1
                        else:
                            poss += 1
        for e1 in range(group.num_ecs):
            for p1 in members(group.ecs[e1]):
                for p2 in new_members():
                    if p1 < p2 and (retrieved_only or p1 < njr):
                        ful += 1
                    else:
                        poss += 1
        return ful, poss + ful
    a, rel = group.pa, group.rel_array
    assert a is not None and rel is not None
    n = q.num_judged
    seen = 0
    first_discarded = njr if retrieved_only else n
    for i in range(njr if retrieved_only else n):
        if rel[i] == 0.0:
            seen += 1
            if seen == group.num_rel + 1:
                first_discarded = i
                break

    def kept(i: int) -> bool:
        return not (i >= first_discarded and rel[i] == 0.0)

    for i in range(njr):
        if not kept(i):
            continue
        for j in range(i):
            if kept(j) and a[i][j]:
                poss += 1
        for j in range(i + 1, njr):
            if kept(j) and a[i][j]:
                ful += 1
        if not retrieved_only:
            for j in range(njr, n):
                if kept(j) and a[i][j]:
                    ful += 1
    if not retrieved_only:
        for i in range(njr, n):
            if not kept(i):
                continue
            for j in range(n):
                if kept(j) and a[i][j]:
                    poss += 1
    return ful, poss + ful


def _divide(numerator: float, denominator: float) -> float:
    """C's double division: x/0 is inf or NaN, not an exception."""
    if denominator == 0.0:
        return math.nan if numerator == 0.0 else math.copysign(math.inf, numerator)
    return numerator / denominator


def _rnonrel(q: _QueryPrefs, retrieved_only: bool) -> float:
    total = 0.0
    for g in q.groups:
        big_r, big_n = (g.num_rel_ret, g.num_nonrel_ret) if retrieved_only else (g.num_rel, g.num_nonrel)
        if big_r >= big_n:
            if retrieved_only:
                ful, poss = g.ful_ret, g.poss_ret
            else:
                ful, poss = g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.notoccur
            ful += g.num_rel_ret * (big_r - big_n)
            poss += g.num_rel * (big_r - big_n)
        else:
            ful, poss = _recalculate(g, q, retrieved_only)
        total += _divide(float(ful), float(poss))
    return total / len(q.groups) if total > 0.0 else 0.0


def _avgjg(q: _QueryPrefs, parts: str) -> float:
    total = 0.0
    for g in q.groups:
        ful, poss = _ful_poss(g, parts)
        if poss:
            total += ful / poss
    return total / len(q.groups) if total > 0.0 else 0.0


def _ful_poss(g: _Group, parts: str) -> tuple[int, int]:
    if parts == "ret":
        return g.ful_ret, g.poss_ret
    if parts == "imp":
        return g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp
    return g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.notoccur


def _simp(q: _QueryPrefs, parts: str) -> float:
    ful = poss = 0
    for g in q.groups:
        f, p = _ful_poss(g, parts)
        ful, poss = ful + f, poss + p
    return ful / poss if poss else 0.0


def _pair(q: _QueryPrefs, parts: str) -> float:
    c, njr, n = q.counts, q.num_judged_ret, q.num_judged
    total = 0.0
    pairs = 0
    for i in range(njr):
        for j in range(i + 1, njr):
            if c[i][j] or c[j][i]:
                pairs += 1
                total += c[i][j] / (c[i][j] + c[j][i])
    if parts != "ret":
        for i in range(njr):
            for j in range(njr, n):
                if c[i][j] or c[j][i]:
                    pairs += 1
                    total += c[i][j] / (c[i][j] + c[j][i])
    if parts == "all":
        for i in range(njr, n):
            for j in range(i + 1, n):
                if c[i][j] or c[j][i]:
                    pairs += 1
    return total / pairs if pairs else 0.0


def _guarded(compute, *args) -> float:
    try:
        return compute(*args)
    except _Undefined:
        return math.nan


def query_measures(
    judgments: Sequence[Judgment], results: Sequence[Retrieved], max_docs: int | None = None
) -> dict[str, float]:
    """The fourteen measures of one query, by trec_eval's names (see the module docstring)."""
    q = form_prefs(judgments, results, max_docs)
    groups = q.groups
    values = {
        "prefs_num_prefs_poss": float(sum(g.poss_ret + g.poss_imp + g.notoccur for g in groups)),
        "prefs_num_prefs_ful": float(sum(g.ful_ret + g.ful_imp for g in groups)),
        "prefs_num_prefs_ful_ret": float(sum(g.ful_ret for g in groups)),
        "prefs_simp": _simp(q, "all"),
        "prefs_pair": _pair(q, "all"),
        "prefs_avgjg": _avgjg(q, "all"),
        "prefs_avgjg_Rnonrel": _guarded(_rnonrel, q, False),
        "prefs_simp_ret": _simp(q, "ret"),
        "prefs_pair_ret": _pair(q, "ret"),
        "prefs_avgjg_ret": _avgjg(q, "ret"),
        "prefs_avgjg_Rnonrel_ret": _guarded(_rnonrel, q, True),
        "prefs_simp_imp": _simp(q, "imp"),
        "prefs_pair_imp": _pair(q, "imp"),
        "prefs_avgjg_imp": _avgjg(q, "imp"),
    }
    return values


def reference_prefs(
    judgments: dict[str, Sequence[Judgment]],
    run: dict[str, Sequence[Retrieved]],
    *,
    max_docs: int | None = None,
    all_queries: bool = False,
) -> dict[str, dict[str, float]]:
    """``{qid: {measure: value}}`` for the judged queries the run retrieved for (all judged ones with ``all_queries``,
    a missing one retrieving nothing)."""
    out = {}
    for qid in sorted(judgments, key=_key):
        if qid in run or all_queries:
            out[qid] = query_measures(judgments[qid], run.get(qid, ()), max_docs)
    return out
