"""Plain-Python oracle for trec_eval's per-query measures (``trec_eval -q``), plus a few common extensions.

Written from trec_eval 9's C sources (``form_res_rels.c`` and the ``m_*.c`` measure files) using only the standard
library, independently of the ``retrieval_eval`` package. It evaluates every query of a qrels/run pair.

Semantics copied from trec_eval:

* Ranking ``R = (d_1, ..., d_n)``: the run's documents of a query sorted by score, descending; ties are broken by
  document id, *descending*, comparing the UTF-8 bytes like C ``strcmp``. The run's own order never matters. With
  ``max_docs`` (``trec_eval -M``) only the first ``max_docs`` documents of that order are kept. ``n = num_ret``.
* ``r_i``, the relevance of ``d_i``: ``NONPOOL = -1`` if ``d_i`` is not in the query's qrels; ``UNJUDGED = -2`` if
  it is, with a negative label; otherwise its label (``>= 0``).
* ``m = rel_level >= 1``; ``hit_i = [r_i >= m]``; ``H@k = sum_{i<=min(k,n)} hit_i``.
  ``num_rel = R = |{judged docs with label >= m}|``, ``N = |{judged docs with 0 <= label < m}|``,
  ``num_rel_ret = H@n``, ``num_ret = n``.
* Gains (they ignore ``m``): ``g(l) = l`` for ``ndcg``, ``g(l) = 2^l - 1`` for ``ndcg_burges``, and ``g(l) = 0``
  whenever ``l <= 0`` (so NONPOOL/UNJUDGED docs gain 0). ``I = (I_1 >= I_2 >= ...)`` are the *positive* labels of all
  judged docs of the query, retrieved or not.
* Formulas (each is 0 when its denominator is 0; ``[.]`` is 1 if true else 0)::

      ndcg@k         = DCG@k / IDCG@k,   DCG@k  = sum_{i<=min(k,n)}   g(r_i) / log2(i + 1),
                                         IDCG@k = sum_{i<=min(k,|I|)} g(I_i) / log2(i + 1)
      ndcg           = ndcg@infinity                  (ndcg_burges, ndcg_burges@k: same with g(l) = 2^l - 1)
      map@k          = (1/R) * sum_{i<=min(k,n), hit_i} H@i / i            map = map@infinity
      precision@k    = H@k / k                         (k, not min(k, n))
      recall@k       = H@k / R
      f1@k           = 2 * precision@k * recall@k / (precision@k + recall@k)
      success@k      = [H@k > 0]
      recip_rank     = 1 / f,  f = min{i : hit_i}      recip_rank@k = recip_rank if f <= k else 0
      rprec          = H@min(n, R) / R
      judged@k       = |{i <= min(k, n) : d_i is in the qrels, any label}| / min(k, n)
      bpref          = (1/R) * sum_{i : r_i >= m} b_i,
                       b_i = 1 - min(nr_i, R) / min(N, R)   if nr_i > 0,   b_i = 1 otherwise
      infap          = (1/R) * sum_{i : r_i >= m} a_i,     a_1 = 1 and, for i >= 2 with j = i - 1,
                       a_i = 1/i + ((j/i) * ((rel_i + nr_i + u_i) / j)) * ((rel_i + eps) / (rel_i + nr_i + 2 eps))

  where, counting only ranks above ``i``: ``rel_i`` = docs with ``r >= m``, ``nr_i`` = docs with ``0 <= r < m``,
  ``u_i`` = UNJUDGED docs (NONPOOL docs count in none of them but still count in ``i``); ``eps = 0.00001``
  (``INFAP_EPSILON``).
* Float operations follow trec_eval's order: DCG and IDCG are each accumulated rank by rank
  (``sum += g / log2(i + 1)``), ``map`` accumulates ``H@i / i`` then divides once by ``R``, ``bpref`` and ``infap``
  accumulate per relevant doc then divide once by ``R``.
* Queries: a query is evaluated when it has at least one judgment and the run has its key. A judged query absent
  from the run is omitted, unless ``all_queries`` (``trec_eval -c``), which evaluates it as trec_eval.c does: against
  a ranking of one document, ``STAND_IN`` (not in the pool unless the qrels judge that name), then resets
  ``num_ret`` and ``unjudged@k`` to 0 (every other measure is then 0 too, ``num_rel`` still counted). Queries only in
  the run are ignored. A run key with an empty ranking is a query that retrieved nothing: it is evaluated. A qrels
  key with no judgments is treated as absent (a TREC qrels file cannot express it; pytrec_eval 0.5.11 drops it too).
* ``judged_only`` (``trec_eval -J``, form_res_rels.c): after ``max_docs``, the NONPOOL and UNJUDGED documents are
  dropped and the rest move up.

Interpolated precision (``iprec_at_recall(recall=l)`` for l in 0.0, 0.1, ..., 1.0): walking the ranking from the
bottom, the best precision seen so far when the c-th relevant document is reached, c = (long)(l * R + 0.5)
(trec_eval 10; ``iprec_rounding=0.9`` gives trec_eval 9's, which pytrec_eval has); 0 when fewer than c relevant
documents were retrieved; with nothing ranked, trec_eval's starting precision num_rel_ret / num_ret is 0/0, and the
levels with c <= 0 get that NaN. ``iprec_11pt`` is their mean (summed from 1.0 down). ``gm_map`` and ``gm_bpref`` are map
and bpref per query; only their summary differs (geometric).

Set measures over the whole retrieved list (H = num_rel_ret): ``set_precision = H/n``, ``set_recall = H/R``,
``set_f = 2 P R/(P + R)`` (beta 1; 0 when H = 0), ``set_map = H^2/(n R)``, ``set_relative_precision = H/min(n, R)``;
``relative_precision@k = H@k/min(k, R)``; ``num_nonrel_judged_ret`` = retrieved docs with ``0 <= r < m``;
``unjudged@k`` (trec_eval ``unj``) = NONPOOL or UNJUDGED docs among the top ``min(k, n)``, divided by ``k``.

Not in trec_eval, defined here: ``ndcg_burges``, ``ndcg_burges@k``, ``recip_rank@k``, ``judged@k`` (ir_measures'
``Judged@k``), ``f1@k``. Output names for trec_eval's measures: ``ndcg_cut_k -> ndcg@k``, ``map_cut_k -> map@k``,
``P_k -> precision@k``, ``recall_k -> recall@k``, ``success_k -> success@k``, ``Rprec -> rprec``, ``infAP -> infap``.

Deliberate differences from trec_eval / pytrec_eval:

* Scores are compared as given (Python floats). trec_eval stores them in a C ``float`` before sorting, so two scores
  that differ only beyond float32 precision tie there (and are then ordered by docid) but not here.
* NaN scores, non-integral labels, ``rel_level < 1``, cut-offs ``< 1`` and ``max_docs < 0`` raise ``ValueError``. A
  ranking given as ``(doc_id, score)`` pairs with a repeated doc id raises ``ValueError`` (trec_eval refuses
  duplicates too).
* A query whose judgments are all negative is evaluated normally here (``num_rel = 0``, every measure 0 except the
  counts and ``judged@k``); pytrec_eval 0.5.11 reads stale/uninitialised memory for it (segfault or endless loop).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping

INFAP_EPSILON = 0.00001
ELEVEN_POINTS = tuple(level / 10 for level in range(11))  # trec_eval's recall levels 0.0, 0.1, ..., 1.0
# trec_eval 10 turns a recall level into a count of relevant documents rounding half up;
# trec_eval 9 (and so pytrec_eval 0.5.11) added 0.9 instead.
IPREC_ROUNDING = 0.5
RELVALUE_NONPOOL = -1
RELVALUE_UNJUDGED = -2
#: The one document trec_eval ranks for a judged query the run lacks under -c (trec_eval.c, bogus_ranking).
STAND_IN = "ceci_nest_pas_un_docno"
DEFAULT_CUTOFFS = (1, 3, 5, 10, 20, 100)

Judgments = Mapping[str, int] | Iterable[tuple[str, int]]
Ranking = Mapping[str, float] | Iterable[tuple[str, float]]


def measure_names(cutoffs: Iterable[int] = DEFAULT_CUTOFFS) -> list[str]:
    """Every measure name ``reference_trec`` returns for these cut-offs, in output order."""
    names = ["num_ret", "num_rel", "num_rel_ret", "map", "rprec", "bpref", "recip_rank", "infap", "ndcg", "ndcg_burges"]
    for prefix in ("ndcg", "ndcg_burges", "map", "precision", "recall", "recip_rank", "success", "judged", "f1"):
        names.extend(f"{prefix}@{k}" for k in _sorted_cutoffs(cutoffs))
    names.extend(iprec_name(level) for level in ELEVEN_POINTS)
    names.extend(["iprec_11pt", "gm_map", "gm_bpref"])
    names.extend(f"relative_precision@{k}" for k in _sorted_cutoffs(cutoffs))
    names.extend(["set_precision", "set_recall", "set_f", "set_map", "set_relative_precision", "num_nonrel_judged_ret"])
    names.extend(f"unjudged@{k}" for k in _sorted_cutoffs(cutoffs))
    return names


def iprec_name(level: float) -> str:
    """The name of interpolated precision at a recall level (``iprec_at_recall(recall=0.1)``)."""
    return f"iprec_at_recall(recall={level!r})"


def reference_trec(
    qrels: Mapping[str, Judgments],
    run: Mapping[str, Ranking],
    *,
    cutoffs: Iterable[int] = DEFAULT_CUTOFFS,
    rel_level: int = 1,
    all_queries: bool = False,
    max_docs: int | None = None,
    iprec_rounding: float = IPREC_ROUNDING,
    judged_only: bool = False,
    float_labels: bool = False,
) -> dict[str, dict[str, float]]:
    """Compute the per-query trec_eval measures of ``run`` against ``qrels`` (see the module docstring).

    :param qrels: ``{query_id: {doc_id: label}}`` (or ``(doc_id, label)`` pairs per query); labels are integers,
        negative ones meaning "in the pool but not judged".
    :param run: ``{query_id: {doc_id: score}}`` (or ``(doc_id, score)`` pairs per query); scores are real, not NaN.
    :param cutoffs: positive rank cut-offs ``k`` for the ``@k`` measures.
    :param rel_level: lowest label counted as relevant (``trec_eval -l``), at least 1.
    :param all_queries: evaluate judged queries missing from the run with an empty ranking (``trec_eval -c``).
    :param max_docs: keep only the first ``max_docs`` ranked documents of each query (``trec_eval -M``).
    :param iprec_rounding: added to recall level * R before truncation (0.5: trec_eval 10's lround; 0.9: trec_eval 9).
    :param judged_only: rank only the judged documents (``trec_eval -J``).
    :param float_labels: labels may be any finite real, read by the same definitions (relevant when ``>= m``,
        unjudged when ``< 0``, gain the label); trec_eval itself would truncate them (``atol``).
    :return: ``{query_id: {measure_name: value}}`` with the names of ``measure_names(cutoffs)``, all floats.
    :raises ValueError: on invalid configuration or input.
    """
    ks = _validate_config(cutoffs, rel_level, max_docs)
    results: dict[str, dict[str, float]] = {}
    for qid, raw_judgments in qrels.items():
        judgments = _judgments(qid, raw_judgments, float_labels)
        if not judgments:
            continue
        if qid in run:
            ranked = _rank(qid, run[qid], max_docs)
        elif all_queries:
            ranked = [STAND_IN][:max_docs]
        else:
            continue
        if judged_only:
            ranked = [doc for doc in ranked if judgments.get(doc, -1) >= 0]
        values = _evaluate_query(judgments, ranked, ks, rel_level, iprec_rounding)
        if qid not in run:
            # trec_eval.c resets these (by name) after scoring the stand-in ranking.
            values.update({name: 0.0 for name in values if name == "num_ret" or name.startswith("unjudged@")})
        results[qid] = values
    for qid, ranking in run.items():
        if qid not in results:
            _rank(qid, ranking, max_docs)  # validate queries that are not evaluated as well
    return results


def _evaluate_query(
    judgments: dict[str, int], ranked: list[str], ks: list[int], m: int, iprec_rounding: float
) -> dict[str, float]:
    """All measures of one query; ``ranked`` is already sorted and truncated."""
    n = len(ranked)
    rels = [_relevance(judgments, doc) for doc in ranked]
    hits = [r >= m for r in rels]
    num_rel = sum(label >= m for label in judgments.values())
    num_nonrel = sum(0 <= label < m for label in judgments.values())
    ideal = sorted((label for label in judgments.values() if label > 0), reverse=True)

    out: dict[str, float] = {
        "num_ret": float(n),
        "num_rel": float(num_rel),
        "num_rel_ret": float(sum(hits)),
        "map": _average_precision(hits, n, num_rel),
        "rprec": _rprec(hits, num_rel),
        "bpref": _bpref(rels, m, num_rel, num_nonrel),
        "recip_rank": _recip_rank(hits, n),
        "infap": _infap(rels, m, num_rel),
        "ndcg": _ndcg(rels, ideal, None, _linear_gain),
        "ndcg_burges": _ndcg(rels, ideal, None, _exp_gain),
    }
    for k in ks:
        out[f"ndcg@{k}"] = _ndcg(rels, ideal, k, _linear_gain)
    for k in ks:
        out[f"ndcg_burges@{k}"] = _ndcg(rels, ideal, k, _exp_gain)
    for k in ks:
        out[f"map@{k}"] = _average_precision(hits, k, num_rel)
    for k in ks:
        out[f"precision@{k}"] = _precision(hits, k)
    for k in ks:
        out[f"recall@{k}"] = _recall(hits, k, num_rel)
    for k in ks:
        out[f"recip_rank@{k}"] = _recip_rank(hits, k)
    for k in ks:
        out[f"success@{k}"] = 1.0 if any(hits[:k]) else 0.0
    for k in ks:
        top = ranked[:k]
        out[f"judged@{k}"] = sum(doc in judgments for doc in top) / len(top) if top else 0.0
    for k in ks:
        p = _precision(hits, k)
        r = _recall(hits, k, num_rel)
        out[f"f1@{k}"] = 2 * p * r / (p + r) if p + r != 0 else 0.0
    iprec = _interpolated_precision(hits, num_rel, ELEVEN_POINTS, iprec_rounding)
    for level, value in zip(ELEVEN_POINTS, iprec):
        out[iprec_name(level)] = value
    total = 0.0
    for value in reversed(iprec):  # trec_eval's 11pt_avg adds from the highest level down
        total += value
    out["iprec_11pt"] = total / len(ELEVEN_POINTS)
    out["gm_map"] = out["map"]  # per query; only the summary is geometric
    out["gm_bpref"] = out["bpref"]
    for k in ks:
        out[f"relative_precision@{k}"] = sum(hits[:k]) / min(k, num_rel) if num_rel else 0.0
    found = sum(hits)
    set_p = found / n if n else 0.0
    set_r = found / num_rel if num_rel else 0.0
    out["set_precision"] = set_p
    out["set_recall"] = set_r
    out["set_f"] = (1.0 + 1.0) * set_p * set_r / (1.0 * set_p + set_r) if found else 0.0  # trec_eval's set_F, beta 1
    out["set_map"] = (found * found) / (n * num_rel) if n and num_rel else 0.0
    out["set_relative_precision"] = found / min(n, num_rel) if min(n, num_rel) else 0.0
    out["num_nonrel_judged_ret"] = float(sum(0 <= r < m for r in rels))
    for k in ks:
        out[f"unjudged@{k}"] = sum(r < 0 for r in rels[:k]) / k
    return out


def _interpolated_precision(hits: list[bool], num_rel: int, levels: tuple[float, ...], rounding: float) -> list[float]:
    """trec_eval's iprec_at_recall loop, transcribed: walk the ranking from the bottom, keep the best
    precision seen so far, and hand it to the level whose count of relevant documents is reached."""
    num_ret, num_rel_ret = len(hits), sum(hits)
    counts = [_round_half_away(level * num_rel) if rounding == 0.5 else int(level * num_rel + rounding) for level in levels]
    values = [0.0] * len(levels)
    current = len(levels) - 1
    while current >= 0 and counts[current] > num_rel_ret:
        current -= 1
    # trec_eval starts from the precision of the whole ranking: 0/0, a NaN with the sign bit (-nan), when it is empty.
    best = num_rel_ret / num_ret if num_ret else -math.nan
    rel_so_far = num_rel_ret
    i = num_ret
    while i > 0 and rel_so_far > 0:
        best = max(best, rel_so_far / i)
        if hits[i - 1]:
            while current >= 0 and rel_so_far == counts[current]:
                values[current] = best
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = best
        current -= 1
    return values


def relevance_list(
    qid: str,
    raw_judgments: Judgments,
    ranking: Ranking | None,
    *,
    max_docs: int | None = None,
    judged_only: bool = False,
) -> tuple[dict[str, int], list[int]]:
    """A query's judgments and trec_eval's ``results_rel_list`` for it (form_res_rels.c): the relevance of each
    ranked document, NONPOOL, UNJUDGED or its label, after ``max_docs`` and ``judged_only``. ``ranking`` None is a
    query the run lacks, scored (``-c``) against the one ``STAND_IN`` document."""
    judgments = _judgments(qid, raw_judgments)
    ranked = [STAND_IN][:max_docs] if ranking is None else _rank(qid, ranking, max_docs)
    rels = [_relevance(judgments, doc) for doc in ranked]
    return judgments, [r for r in rels if r >= 0] if judged_only else rels


def _round_half_away(x: float) -> int:
    """C's lround: to the nearest integer, halves away from zero."""
    magnitude = abs(x)
    whole = math.floor(magnitude)
    rounded = whole + (1 if magnitude - whole >= 0.5 else 0)
    return -rounded if x < 0 else rounded


def _relevance(judgments: dict[str, int], doc: str) -> int:
    """trec_eval's relevance value of a retrieved doc: NONPOOL, UNJUDGED or its (non-negative) label."""
    if doc not in judgments:
        return RELVALUE_NONPOOL
    label = judgments[doc]
    return RELVALUE_UNJUDGED if label < 0 else label


def _linear_gain(label: int) -> float:
    """trec_eval's default ndcg gain: the label itself, 0 for labels <= 0."""
    return float(label) if label > 0 else 0.0


def _exp_gain(label: int) -> float:
    """Burges et al.'s gain ``2^label - 1``, 0 for labels <= 0."""
    return 2.0**label - 1.0 if label > 0 else 0.0


def _ndcg(rels: list[int], ideal: list[int], k: int | None, gain: Callable[[int], float]) -> float:
    """``DCG@k / IDCG@k`` with ``gain`` (``k=None``: no cut-off); sums accumulated in rank order, 0 if IDCG is 0."""
    dcg = 0.0
    for i, r in enumerate(rels[:k]):
        g = gain(r)
        if g != 0:
            dcg += g / math.log2(i + 2)
    idcg = 0.0
    for i, label in enumerate(ideal[:k]):
        idcg += gain(label) / math.log2(i + 2)
    return dcg / idcg if idcg > 0 else 0.0


def _average_precision(hits: list[bool], k: int, num_rel: int) -> float:
    """``sum_{i<=k, hit_i} H@i / i`` accumulated in rank order, divided once by ``num_rel`` (0 when 0)."""
    if num_rel == 0:
        return 0.0
    total = 0.0
    rel_so_far = 0
    for i, hit in enumerate(hits[:k]):
        if hit:
            rel_so_far += 1
            total += rel_so_far / (i + 1)
    return total / num_rel


def _precision(hits: list[bool], k: int) -> float:
    """``H@k / k``."""
    return sum(hits[:k]) / k


def _recall(hits: list[bool], k: int, num_rel: int) -> float:
    """``H@k / num_rel``, 0 when ``num_rel == 0``."""
    return sum(hits[:k]) / num_rel if num_rel else 0.0


def _recip_rank(hits: list[bool], k: int) -> float:
    """``1 / rank`` of the first hit within the top ``k``, else 0."""
    for i, hit in enumerate(hits[:k]):
        if hit:
            return 1.0 / (i + 1)
    return 0.0


def _rprec(hits: list[bool], num_rel: int) -> float:
    """``H@min(n, R) / R``, 0 when ``min(n, R) == 0``."""
    top = min(len(hits), num_rel)
    return sum(hits[:top]) / num_rel if top else 0.0


def _bpref(rels: list[int], m: int, num_rel: int, num_nonrel: int) -> float:
    """trec_eval ``m_bpref.c``: NONPOOL and UNJUDGED docs are skipped."""
    bpref = 0.0
    nonrel_so_far = 0
    for r in rels:
        if r in (RELVALUE_NONPOOL, RELVALUE_UNJUDGED):
            continue
        if 0 <= r < m:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            bpref += 1.0 - float(min(nonrel_so_far, num_rel)) / float(min(num_nonrel, num_rel))
        else:
            bpref += 1.0
    if num_rel:
        bpref /= num_rel
    return bpref


def _infap(rels: list[int], m: int, num_rel: int) -> float:
    """trec_eval ``m_infap.c``: ``j`` runs over every retrieved doc, NONPOOL ones included."""
    inf_ap = 0.0
    rel_so_far = nonrel_so_far = pool_unjudged_so_far = 0
    for j, r in enumerate(rels):
        if r == RELVALUE_NONPOOL:
            continue
        if r == RELVALUE_UNJUDGED:
            pool_unjudged_so_far += 1
            continue
        if 0 <= r < m:
            nonrel_so_far += 1
            continue
        rel_so_far += 1
        if j == 0:
            inf_ap += 1.0
        else:
            fj = float(j)
            inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                (rel_so_far - 1 + nonrel_so_far + pool_unjudged_so_far) / fj
            ) * ((rel_so_far - 1 + INFAP_EPSILON) / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON))
    if num_rel:
        inf_ap /= num_rel
    return inf_ap


def _distinct_pairs(qid: str, raw: Ranking | Judgments, side: str) -> list[tuple[str, object]]:
    """The (doc id, value) pairs of one query of the run or qrels; a non-string or repeated doc id raises."""
    pairs = list(raw.items()) if isinstance(raw, Mapping) else list(raw)
    seen: set[str] = set()
    for doc, _ in pairs:
        if not isinstance(doc, str):
            raise ValueError(f"query {qid!r}: document id {doc!r} is not a string")
        if doc in seen:
            raise ValueError(f"query {qid!r}: duplicate document {doc!r} in the {side}")
        seen.add(doc)
    return pairs


def _rank(qid: str, ranking: Ranking, max_docs: int | None) -> list[str]:
    """Doc ids by score descending, ties by UTF-8 docid bytes descending, truncated to ``max_docs``."""
    scores: dict[str, float] = {}
    for doc, score in _distinct_pairs(qid, ranking, "run"):
        if isinstance(score, bool) or not isinstance(score, numbers.Real):
            raise ValueError(f"query {qid!r}: score {score!r} of document {doc!r} is not a real number")
        score = float(score)
        if math.isnan(score):
            raise ValueError(f"query {qid!r}: score of document {doc!r} is NaN")
        scores[doc] = score
    ranked = sorted(scores, key=lambda doc: (scores[doc], doc.encode("utf-8")), reverse=True)
    return ranked if max_docs is None else ranked[:max_docs]


def _judgments(qid: str, raw: Judgments, float_labels: bool = False) -> dict[str, int]:
    """The query's judgments as ``{doc_id: int label}`` (float labels as floats when allowed); duplicates and
    non-integral labels raise."""
    judgments: dict[str, int] = {}
    for doc, label in _distinct_pairs(qid, raw, "qrels"):
        if float_labels and isinstance(label, float) and math.isfinite(label):
            judgments[doc] = label
            continue
        if not isinstance(label, numbers.Integral):
            raise ValueError(f"query {qid!r}: label {label!r} of document {doc!r} is not an integer")
        judgments[doc] = int(label)
    return judgments


def _sorted_cutoffs(cutoffs: Iterable[int]) -> list[int]:
    """Distinct cut-offs, ascending."""
    return sorted(set(cutoffs))


def _validate_config(cutoffs: Iterable[int], rel_level: int, max_docs: int | None) -> list[int]:
    """Raise ``ValueError`` on a bad configuration; return the sorted distinct cut-offs."""
    ks = list(cutoffs)
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"cut-offs must be integers >= 1, got {k!r}")
    if isinstance(rel_level, bool) or not isinstance(rel_level, numbers.Integral) or rel_level < 1:
        raise ValueError(f"rel_level must be an integer >= 1, got {rel_level!r}")
    if max_docs is not None and (
        isinstance(max_docs, bool) or not isinstance(max_docs, numbers.Integral) or max_docs < 0
    ):
        raise ValueError(f"max_docs must be None or an integer >= 0, got {max_docs!r}")
    return _sorted_cutoffs(int(k) for k in ks)
