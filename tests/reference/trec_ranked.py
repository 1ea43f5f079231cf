"""Plain-Python oracle for the rest of trec_eval 10's standard measures, transcribed from its C sources.

Independent of the ``retrieval_eval`` package; standard library only. Each function takes one query's
``results_rel_list`` (``rels``: the relevance of each ranked document, -1 when the qrels do not list it, -2
when they list it with a negative label, else its label; see ``trec_measures.relevance_list``) and what else
the C function reads, and returns the double trec_eval stores for the query:

* ``rprec_mult`` (m_Rprec_mult.c), ``eleven_point`` (m_11pt_avg.c), ``utility`` (m_utility.c), ``set_f``
  (m_set_F.c), ``bing`` (m_binG.c), ``yaap`` (m_yaap.c);
* ``gain_table`` (gain_init.c's setup_gains and glibc 2.36's qsort, a top-down merge sort, with
  ``comp_rel_gain``'s ``(int)`` of the difference), ``ndcg`` (m_ndcg.c: dcg and ideal_dcg), ``ndcg_rel``
  (m_ndcg_rel.c), ``rndcg`` (m_Rndcg.c), ``g`` (m_G.c), ``rbp`` (m_rbp.c) and ``rbp_resid`` (m_rbp_resid.c).

The loops are the C loops, statement for statement, so that the floating-point operations come in the same
order. C's arithmetic where Python's differs: division by zero is IEEE's (x86's 0/0 is a NaN with the sign bit
set), ``log2`` of 0 or less is glibc's, ``lround`` rounds halves away from zero, and ``(long)``/``(int)`` of a
double out of range is x86-64's smallest value. m_rbp.c compares gains with ``min`` and ``max`` it never
initializes: here they are the minimum and maximum gain of the map, the defined behaviour.

``reference_ranked`` runs them over a qrels/run pair as trec_eval does, including ``-c`` (a missing query is
scored against one stand-in document, then num_ret, unjudged, the unparameterized utility and rbp_resid are reset)
and the label counts trec_eval keeps from the previous query (its queries in byte order) for a query whose
judgments are all negative.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from tests.reference.trec_measures import Judgments, Ranking, relevance_list

NONPOOL = -1
UNJUDGED = -2
LONG_MIN = -(2**63)
INT_MIN = -(2**31)
ELEVEN_POINTS = tuple(level / 10 for level in range(11))


# -- C arithmetic ----------------------------------------------------------------------------------------------


def c_div(a: float, b: float) -> float:
    """``a / b`` as x86-64 divides doubles."""
    if b != 0 or math.isnan(b):
        return a / b
    if math.isnan(a):
        return a
    if a == 0:
        return -math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def c_log2(x: float) -> float:
    if math.isnan(x):
        return x
    if x > 0:
        return math.log2(x)
    return -math.inf if x == 0 else -math.nan


def c_lround(x: float) -> int:
    if math.isnan(x) or not -(2.0**63) <= x < 2.0**63:
        return LONG_MIN
    magnitude = abs(x)
    whole = math.floor(magnitude)
    rounded = whole + (1 if magnitude - whole >= 0.5 else 0)
    return -rounded if x < 0 else rounded


def c_long(x: float) -> int:
    if math.isnan(x) or not -(2.0**63) <= x < 2.0**63:
        return LONG_MIN
    return int(x)


def c_int(x: float) -> int:
    if math.isnan(x) or not -2147483649.0 < x < 2147483648.0:
        return INT_MIN
    return int(x)


# -- measures over counts and relevant documents ---------------------------------------------------------------


def counts(rels: Sequence[int], judgments: Mapping[str, int], rel: int) -> tuple[int, int, int]:
    """(num_ret, num_rel, num_rel_ret) as form_res_rels counts them."""
    num_rel = sum(1 for label in judgments.values() if label >= 0 and label >= rel)
    return len(rels), num_rel, sum(1 for r in rels if r >= 0 and r >= rel)


def rprec_mult(rels: Sequence[int], rel: int, num_rel: int, mult: float) -> float:
    num_ret = len(rels)
    num_rel_ret = sum(1 for r in rels if r >= rel)
    cutoff = c_long(mult * num_rel + 0.9)
    value = 0.0
    if cutoff > num_ret:
        return num_rel_ret / cutoff
    rel_so_far = num_rel_ret
    i = num_ret
    while i > 0 and rel_so_far > 0:
        if i == cutoff:
            value = rel_so_far / i
        if rels[i - 1] >= rel:
            rel_so_far -= 1
        i -= 1
    return value


def eleven_point(rels: Sequence[int], rel: int, num_rel: int, levels: Sequence[float]) -> float:
    num_ret = len(rels)
    num_rel_ret = sum(1 for r in rels if r >= rel)
    cutoffs = [c_lround(level * num_rel) for level in levels]
    current = len(levels) - 1
    while current >= 0 and cutoffs[current] > num_rel_ret:
        current -= 1
    total = 0.0
    best = c_div(float(num_rel_ret), float(num_ret))
    rel_so_far = num_rel_ret
    i = num_ret
    while i > 0 and rel_so_far > 0:
        precision = rel_so_far / i
        if best < precision:
            best = precision
        if rels[i - 1] >= rel:
            while current >= 0 and rel_so_far == cutoffs[current]:
                total += best
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        total += best
        current -= 1
    return total / len(levels)


def utility(rels: Sequence[int], judgments: Mapping[str, int], rel: int, coefficients: Sequence[float], size: int) -> float:
    num_ret, num_rel, num_rel_ret = counts(rels, judgments, rel)
    a, b, c, d = coefficients
    return a * num_rel_ret + b * (num_ret - num_rel_ret) + c * (num_rel - num_rel_ret) + d * (
        size + num_rel_ret - num_ret - num_rel
    )


def set_f(rels: Sequence[int], judgments: Mapping[str, int], rel: int, beta: float) -> float:
    num_ret, num_rel, num_rel_ret = counts(rels, judgments, rel)
    if not num_rel_ret:
        return 0.0
    precision = num_rel_ret / num_ret
    recall = num_rel_ret / num_rel
    return c_div((beta + 1.0) * precision * recall, beta * precision + recall)


def bing(rels: Sequence[int], rel: int, num_rel: int) -> float:
    rel_so_far = 0
    total = 0.0
    for i, r in enumerate(rels):
        if r >= rel:
            rel_so_far += 1
            total += 1.0 / math.log2(float(3 + i - rel_so_far))
    return total / num_rel if rel_so_far else 0.0


def yaap(rels: Sequence[int], rel: int, num_rel: int) -> float:
    rel_so_far = 0
    total = 0.0
    for i, r in enumerate(rels):
        if r >= rel:
            rel_so_far += 1
            total += rel_so_far / (i + 1)
    return math.log((1.0 + total) / (1.0 + num_rel - total))


def unjudged(rels: Sequence[int], k: int) -> float:
    return sum(1 for r in rels[:k] if r in (NONPOOL, UNJUDGED)) / k


# -- gain maps ------------------------------------------------------------------------------------------------


def glibc_msort(items: list, compare: Callable[[object, object], int]) -> list:
    """glibc 2.36's qsort for small arrays (msort_with_tmp): halves of n // 2 and the rest; ties take the left."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = glibc_msort(items[:half], compare), glibc_msort(items[half:], compare)
    merged = []
    while left and right:
        merged.append(left.pop(0) if compare(left[0], right[0]) <= 0 else right.pop(0))
    return merged + left + right


def gain_table(pairs: Sequence[tuple[int, float]], labels: Sequence[int]) -> list[list]:
    """setup_gains: [label, gain, documents] entries, sorted as trec_eval sorts them. ``labels``: the judged labels
    form_res_rels counted (>= 0 count; the levels are 0..max)."""
    levels = [label for label in labels if label >= 0]
    num_rel_levels = max(levels) + 1 if levels else 0
    table = [[label, float(gain), 0] for label, gain in pairs]
    for level in range(num_rel_levels):
        count = levels.count(level)
        for entry in table:
            if entry[0] == level:
                entry[2] = count
                break
        else:
            table.append([level, float(level), count])
    return glibc_msort(table, lambda a, b: c_int(a[1] - b[1]))


def get_gain(table: Sequence[Sequence], relevance: int) -> float:
    for label, gain, _ in table:
        if label == relevance:
            return gain
    return 0.0


class _Ideal:
    """The ideal ranking's walk shared by m_ndcg.c, m_ndcg_rel.c, m_Rndcg.c and m_G.c (cur_level, num_at_level)."""

    def __init__(self, table: Sequence[Sequence]) -> None:
        self.table = table
        self.level = len(table) - 1
        self.taken = 0
        self.gain = table[self.level][1] if self.level >= 0 else 0.0

    def step(self) -> float:
        self.taken += 1
        while self.level >= 0 and self.taken > self.table[self.level][2]:
            self.taken = 1
            self.level -= 1
            self.gain = self.table[self.level][1] if self.level >= 0 else 0.0
        return self.gain


def ndcg(rels: Sequence[int], table: Sequence[Sequence]) -> tuple[float, float]:
    """m_ndcg.c: (results_dcg, ideal_dcg)."""
    ideal = _Ideal(table)
    dcg = ideal_dcg = 0.0
    i = 0
    while i < len(rels) and ideal.gain > 0.0:
        gain = get_gain(table, rels[i])
        if gain != 0:
            dcg += gain / math.log2(float(i + 2))
        if ideal.step() > 0.0:
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    while i < len(rels):
        gain = get_gain(table, rels[i])
        if gain != 0:
            dcg += gain / math.log2(float(i + 2))
        i += 1
    while ideal.gain > 0.0:
        if ideal.step() > 0.0:
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    return dcg, ideal_dcg


def ndcg_rel(rels: Sequence[int], table: Sequence[Sequence]) -> float:
    ideal = _Ideal(table)
    dcg = ideal_dcg = total = 0.0
    num_rel = num_rel_ret = 0
    i = 0
    while i < len(rels) and ideal.gain > 0.0:
        gain = get_gain(table, rels[i])
        if gain != 0:
            dcg += gain / math.log2(float(i + 2))
        if ideal.step() > 0.0:
            num_rel += 1
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        if gain > 0:
            total += c_div(dcg, ideal_dcg)
            num_rel_ret += 1
        i += 1
    while i < len(rels):
        gain = get_gain(table, rels[i])
        if gain != 0:
            dcg += gain / math.log2(float(i + 2))
        if gain > 0:
            total += c_div(dcg, ideal_dcg)
            num_rel_ret += 1
        i += 1
    while ideal.gain > 0.0:
        if ideal.step() > 0.0:
            num_rel += 1
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    total += c_div(float(num_rel - num_rel_ret) * dcg, ideal_dcg)
    return c_div(total, float(num_rel)) if total > 0.0 else 0.0


def rndcg(rels: Sequence[int], table: Sequence[Sequence], num_rel: int) -> float:
    if num_rel == 0:
        return 0.0
    ideal = _Ideal(table)
    previous = ideal.gain
    dcg = ideal_dcg = total = 0.0
    changes = 0
    i = 0
    while i < len(rels) and ideal.gain > 0.0:
        gain = get_gain(table, rels[i])
        ideal.step()
        if previous != ideal.gain:
            if ideal_dcg > 0.0:
                total += dcg / ideal_dcg
                changes += 1
            previous = ideal.gain
        if gain != 0:
            dcg += gain / math.log2(float(i + 2))
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    if i < len(rels):
        while i < len(rels):
            gain = get_gain(table, rels[i])
            if gain != 0:
                dcg += gain / math.log2(float(i + 2))
            i += 1
        if ideal_dcg > 0.0:
            total += dcg / ideal_dcg
            changes += 1
    while ideal.gain > 0.0:
        ideal.step()
        if previous != ideal.gain:
            if ideal_dcg > 0.0:
                total += dcg / ideal_dcg
                changes += 1
            previous = ideal.gain
        if ideal.gain > 0.0:
            ideal_dcg += ideal.gain / math.log2(float(i + 2))
        i += 1
    return c_div(total, float(changes))


def g(rels: Sequence[int], table: Sequence[Sequence]) -> float:
    ideal = _Ideal(table)
    value = results = ideal_sum = cost = 0.0
    i = 0
    while i < len(rels) and ideal.gain > 0.0:
        gain = get_gain(table, rels[i])
        results += gain
        if ideal.step() > 0.0:
            ideal_sum += ideal.gain
        cost += ideal.gain if ideal.gain >= 1.0 else 1.0
        if gain != 0:
            value += c_div(gain, c_log2(2 + cost - results))
        i += 1
    while i < len(rels):
        gain = get_gain(table, rels[i])
        results += gain
        cost += 1.0
        if gain != 0:
            value += c_div(gain, c_log2(2 + cost - results))
        i += 1
    while ideal.gain > 0.0:
        if ideal.step() > 0.0:
            ideal_sum += ideal.gain
    return value / ideal_sum if ideal_sum > 0.0 else 0.0


def rbp(rels: Sequence[int], table: Sequence[Sequence], p: float) -> float:
    gains = [entry[1] for entry in table]
    if gains and (min(gains) < 0 or max(gains) > 1):
        low, high = min(gains), max(gains)
        table = [[label, c_div(gain - low, high - low), count] for label, gain, count in table]
    total = 0.0
    weight = 1.0
    for r in rels:
        gain = get_gain(table, r)
        if gain != 0:
            total += gain * weight
        weight = weight * p
    return (1.0 - p) * total


def rbp_resid(rels: Sequence[int], p: float) -> float:
    unjudged_so_far = 0
    total = 0.0
    weight = 1.0
    for r in rels:
        if r < 0:
            unjudged_so_far += 1
            total += weight
        weight = weight * p
    return weight + (1 - p) * total if unjudged_so_far else 0.0


# -- a qrels/run pair -----------------------------------------------------------------------------------------

#: trec_eval's defaults of rbp's and rbp_resid's p and of utility's coefficients.
DEFAULT_P = 0.9
DEFAULT_COEFFICIENTS = (1.0, -1.0, 0.0, 0.0)


def reference_ranked(
    qrels: Mapping[str, Judgments],
    run: Mapping[str, Ranking],
    *,
    rel_level: int = 1,
    all_queries: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    collection_size: int = 0,
    pairs: Sequence[tuple[int, float]] = (),
    multiples: Sequence[float] = (0.2, 1.0, 1.5),
    levels: Sequence[float] = ELEVEN_POINTS,
    p: float | None = None,
    beta: float = 1.0,
    coefficients: Sequence[float] | None = None,
    cutoffs: Sequence[int] = (1, 5, 20),
) -> dict[str, dict[str, float]]:
    """Every measure of this module per query, keyed by names of the form ``rprec_mult(mult=0.2)``.

    ``pairs``: the gain map (label, gain) in order; ``p``/``coefficients`` None: their defaults, which trec_eval
    resets for a query the run lacks (it resets by printed name, and parameters change the name).
    """
    ordered = sorted((qid for qid in qrels if qrels[qid]), key=lambda q: q.encode("utf-8"))
    evaluated = [qid for qid in ordered if qid in run or all_queries]
    counted: dict[str, list[int]] = {}
    previous: list[int] = []
    for qid in ordered:  # form_res_rels.c keeps the last query's label counts when all of a query's are negative
        labels = list(dict(qrels[qid]).values())
        if any(label >= 0 for label in labels):
            previous = labels
        counted[qid] = previous
    persistence = DEFAULT_P if p is None else p
    weights = DEFAULT_COEFFICIENTS if coefficients is None else coefficients
    results: dict[str, dict[str, float]] = {}
    for qid in evaluated:
        missing = qid not in run
        judgments, rels = relevance_list(
            qid, qrels[qid], None if missing else run[qid], max_docs=max_docs, judged_only=judged_only
        )
        _, num_rel, _ = counts(rels, judgments, rel_level)
        table = gain_table(pairs, counted[qid])
        dcg, ideal_dcg = ndcg(rels, table)
        out = {
            "bing": bing(rels, rel_level, num_rel),
            "yaap": yaap(rels, rel_level, num_rel),
            "set_f": set_f(rels, judgments, rel_level, beta),
            "utility": utility(rels, judgments, rel_level, weights, collection_size),
            "iprec_11pt": eleven_point(rels, rel_level, num_rel, levels),
            "dcg": dcg,
            "ideal_dcg": ideal_dcg,
            "ndcg": dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0,
            "ndcg_rel": ndcg_rel(rels, table),
            "rndcg": rndcg(rels, table, num_rel),
            "g": g(rels, table),
            "rbp": rbp(rels, table, persistence),
            "rbp_resid": rbp_resid(rels, persistence),
            **{f"rprec_mult(mult={mult!r})": rprec_mult(rels, rel_level, num_rel, mult) for mult in multiples},
            **{f"unjudged@{k}": unjudged(rels, k) for k in cutoffs},
        }
        if missing:
            # trec_eval.c's reset after scoring the stand-in ranking, by printed name.
            out.update({name: 0.0 for name in out if name.startswith("unjudged@")})
            if coefficients is None:
                out["utility"] = 0.0
            if p is None:
                out["rbp_resid"] = 0.0
        results[qid] = out
    return results
