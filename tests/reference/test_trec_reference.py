"""The plain-Python trec_eval oracle (``tests/reference/trec_measures.py``) against trec_eval itself and the peers.

* pytrec_eval (pytrec-eval-terrier, trec_eval 9 in C): every measure it has (``ndcg``, ``ndcg_cut``, ``map``,
  ``map_cut``, ``P``, ``recall``, ``recip_rank``, ``Rprec``, ``success``, ``bpref``, ``infAP``, ``num_ret``,
  ``num_rel``, ``num_rel_ret``) agrees within 1e-12 on random data with frequent score ties, graded and negative
  labels, multi-byte and prefix-related doc ids, ``relevance_level`` 1..3 and cut-offs beyond the ranking; both
  evaluate exactly the judged queries present in the run. ``max_docs`` (``trec_eval -M``, not exposed by pytrec_eval)
  is checked against pytrec_eval on a run truncated by an independent ``comp_sim_docno`` comparator.
* ranx: ``f1@k``, ``mrr@k``/``mrr`` (= ``recip_rank@k``/``recip_rank``) and ``ndcg_burges@k``/``ndcg_burges``.
* ir_measures: ``Judged@k`` (= ``judged@k``).
* Hand-computed examples pin every measure family independently of any peer.

pytrec_eval 0.5.11 inputs left out of the random data, because they hit undefined behaviour in its C code:

* a judged query whose labels are *all* negative: ``te_form_res_rels`` sizes ``rel_levels`` by the maximum label
  (``max_rel + 1 <= 0``) and leaves ``num_rel_levels`` (a static) stale; depending on the process' memory the call
  segfaults, loops forever, or returns 0 for every measure (the oracle returns 0 except the counts and ``judged@k``).
* a run key with an empty ranking: the first such evaluation in a process segfaults; later ones evaluate the query
  with an empty ranking (num_rel counted, every other measure 0), as the oracle does.

Also: pytrec_eval drops qrels keys with no judgments (the oracle does the same) and compares scores as C ``float``
(float32), so the random scores are multiples of 0.25, exact in float32.

Peer differences (the comparisons are restricted to where the definitions agree; the oracle is not changed):

* ranx ``ndcg_burges`` at ``rel_lvl > 1`` drops the judgments below ``rel_lvl`` (``clean_qrels``) before computing
  both DCG and IDCG, so labels in ``[1, rel_lvl)`` gain 0 there and ``2^l - 1`` in the oracle (trec_eval's ndcg gains
  ignore the relevance level): compared at ``rel_lvl = 1`` only.
* ranx keeps the run's input order among tied scores and ir_measures' ``Judged`` breaks ties by doc id *ascending*
  (trec_eval: descending): both are compared on tie-free scores only.
* ranx needs the qrels and the run to hold the same queries (in the same order: it pairs them by position) and every
  query to have at least one judgment and one retrieved doc; ir_measures' ``Judged`` divides by zero on an empty
  ranking. The peer data respect that.
* ranx hashes doc ids to float64 (``hash(doc_id)``), a theoretical collision risk ignored here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cmp_to_key

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reference.trec_measures import DEFAULT_CUTOFFS, ELEVEN_POINTS, INFAP_EPSILON, iprec_name, measure_names, reference_trec

TOL = 1e-12
DOC_IDS = [f"d{i}" for i in range(31)] + ["a", "ab", "abc", "B", "b", "Z", "e", "é", "ü", "日本", "d 1", ""]
QUERY_IDS = [f"q{i}" for i in range(8)]
# multiples of 0.25 in [-3, 3]: exact in float32 (pytrec_eval's C float) and few enough to tie often
SCORES = [i / 4 for i in range(-12, 13)]
# a slow peer's example budget: at most 30, never above the active profile's
PEER_EXAMPLES = min(30, settings().max_examples)

PYTREC_NAMES = {
    "Rprec": "rprec", "infAP": "infap", "set_P": "set_precision", "set_F": "set_f",
    "set_relative_P": "set_relative_precision",
}
PYTREC_PREFIXES = {"ndcg_cut_": "ndcg@", "map_cut_": "map@", "P_": "precision@", "recall_": "recall@"}
PYTREC_PREFIXES["success_"] = "success@"
PYTREC_PREFIXES["relative_P_"] = "relative_precision@"
PYTREC_SCALAR = [
    "ndcg", "map", "recip_rank", "Rprec", "bpref", "infAP", "num_ret", "num_rel", "num_rel_ret", "set_P", "set_recall",
    "set_F", "set_map", "set_relative_P", "num_nonrel_judged_ret",
]
PYTREC_CUT = ["ndcg_cut", "map_cut", "P", "recall", "success", "relative_P"]


# ---------------------------------------------------------------------------------------------------------------------
# helpers


def canonical(pytrec_name: str) -> str:
    """pytrec_eval output key -> oracle measure name (``ndcg_cut_10 -> ndcg@10``, ``P_5 -> precision@5`` ...)."""
    if pytrec_name in PYTREC_NAMES:
        return PYTREC_NAMES[pytrec_name]
    for prefix, name in PYTREC_PREFIXES.items():
        if pytrec_name.startswith(prefix) and pytrec_name[len(prefix) :].isdigit():
            return name + pytrec_name[len(prefix) :]
    return pytrec_name


def pytrec_evaluate(qrels, run, cutoffs: Iterable[int], rel_level: int) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query values of every measure it shares with the oracle, under the oracle's names."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ks = ",".join(str(k) for k in sorted(set(cutoffs)))
    measures = set(PYTREC_SCALAR) | {f"{m}.{ks}" for m in PYTREC_CUT}
    out = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=rel_level).evaluate(run)
    return {qid: {canonical(k): v for k, v in values.items()} for qid, values in out.items()}


def pytrec_expected_names(cutoffs: Iterable[int]) -> set[str]:
    """The oracle names pytrec_eval must return for these cut-offs."""
    ks = sorted(set(cutoffs))
    scalar = {PYTREC_NAMES.get(m, m) for m in PYTREC_SCALAR}
    cut = ("ndcg", "map", "precision", "recall", "success", "relative_precision")
    return scalar | {f"{p}@{k}" for p in cut for k in ks}


def assert_close(expected: dict[str, dict[str, float]], actual: dict[str, dict[str, float]], names=None) -> None:
    """Same queries; every measure (or every one of ``names``) within ``TOL``."""
    assert set(actual) == set(expected)
    for qid, values in expected.items():
        for name in names if names is not None else values:
            assert math.isclose(actual[qid][name], values[name], rel_tol=0, abs_tol=TOL), (
                qid,
                name,
                values[name],
                actual[qid][name],
            )


def trec_sorted(ranking: dict[str, float]) -> list[str]:
    """Doc ids in trec_eval's order, with a transcription of its ``comp_sim_docno`` comparator."""

    def comp_sim_docno(a: tuple[str, float], b: tuple[str, float]) -> int:
        if a[1] > b[1]:
            return -1
        if a[1] < b[1]:
            return 1
        docno_a, docno_b = a[0].encode(), b[0].encode()  # strcmp(ptr2->docno, ptr1->docno)
        return (docno_b > docno_a) - (docno_b < docno_a)

    return [doc for doc, _ in sorted(ranking.items(), key=cmp_to_key(comp_sim_docno))]


# ---------------------------------------------------------------------------------------------------------------------
# strategies


@st.composite
def judgments(draw, labels=st.integers(-1, 4)):
    """A query's judgments with at least one label >= 0 (pytrec_eval misbehaves otherwise, see the docstring)."""
    judged = draw(st.dictionaries(st.sampled_from(DOC_IDS), labels, min_size=1, max_size=15))
    if all(label < 0 for label in judged.values()):
        judged[draw(st.sampled_from(DOC_IDS))] = draw(st.integers(0, 4))
    return judged


@st.composite
def trec_collection(draw):
    """(qrels, run): 1-6 queries, each judged and retrieved, judged only, retrieved only, or without relevant docs."""
    qids = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=6, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qid in qids:
        role = draw(st.sampled_from(["both", "both", "both", "no_relevant", "qrels_only", "run_only", "empty_qrels"]))
        if role in ("both", "qrels_only"):
            qrels[qid] = draw(judgments())
        elif role == "no_relevant":
            qrels[qid] = draw(judgments(st.integers(-1, 0)))
        elif role == "empty_qrels":
            qrels[qid] = {}
        if role in ("both", "no_relevant", "run_only", "empty_qrels"):
            run[qid] = draw(st.dictionaries(st.sampled_from(DOC_IDS), st.sampled_from(SCORES), min_size=1, max_size=30))
    return qrels, run


@st.composite
def tie_free_collection(draw, max_queries: int = 6):
    """(qrels, run) with the same queries in the same order, non-empty on both sides, distinct scores per query."""
    n_queries = draw(st.integers(1, max_queries))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qid in QUERY_IDS[:n_queries]:
        qrels[qid] = draw(judgments())
        docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=len(SCORES), unique=True))
        scores = draw(st.lists(st.sampled_from(SCORES), min_size=len(docs), max_size=len(docs), unique=True))
        run[qid] = dict(zip(docs, scores))
    return qrels, run


cutoff_sets = st.one_of(
    st.just(DEFAULT_CUTOFFS),
    st.lists(st.integers(1, 40), min_size=1, max_size=6, unique=True).map(tuple),
)


# ---------------------------------------------------------------------------------------------------------------------
# against pytrec_eval


@given(trec_collection(), st.integers(1, 3), cutoff_sets)
def test_matches_pytrec_eval(collection, rel_level, cutoffs):
    qrels, run = collection
    expected = pytrec_evaluate(qrels, run, cutoffs, rel_level)
    actual = reference_trec(qrels, run, cutoffs=cutoffs, rel_level=rel_level)
    # the same queries: judged (non-empty qrels) and present in the run
    assert set(actual) == set(expected) == {q for q, j in qrels.items() if j and q in run}
    names = pytrec_expected_names(cutoffs)
    for values in expected.values():
        assert set(values) == names
    assert_close(expected, actual)
    for values in actual.values():
        assert list(values) == measure_names(cutoffs)


@given(trec_collection(), st.integers(1, 3))
def test_interpolated_precision_and_geometric_measures_match_pytrec_eval(collection, rel_level):
    """With trec_eval 9's rounding of recall levels (pytrec_eval's); pytrec_eval reports gm_map per query as
    log(max(AP, 1e-5)), the term its geometric mean averages."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = collection
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall", "11pt_avg", "gm_map", "gm_bpref"}, relevance_level=rel_level)
    expected = evaluator.evaluate(run)
    actual = reference_trec(qrels, run, rel_level=rel_level, iprec_rounding=0.9)
    assert set(actual) == set(expected)
    for qid, values in expected.items():
        ours = actual[qid]
        pairs = [(values[f"iprec_at_recall_{level:.2f}"], ours[iprec_name(level)]) for level in ELEVEN_POINTS]
        pairs.append((values["11pt_avg"], ours["iprec_11pt"]))
        pairs += [(values[name], math.log(max(ours[name], 0.00001))) for name in ("gm_map", "gm_bpref")]
        for theirs, mine in pairs:
            assert math.isclose(mine, theirs, rel_tol=0, abs_tol=TOL), (qid, theirs, mine)


@given(trec_collection(), st.integers(1, 3), st.integers(0, 12))
def test_max_docs_matches_pytrec_eval_on_truncated_run(collection, rel_level, max_docs):
    qrels, run = collection
    truncated = {qid: {doc: ranking[doc] for doc in trec_sorted(ranking)[:max_docs]} for qid, ranking in run.items()}
    # pytrec_eval cannot take an empty ranking (see the docstring): leave such queries out of both sides
    truncated = {qid: ranking for qid, ranking in truncated.items() if ranking}
    expected = pytrec_evaluate(qrels, truncated, DEFAULT_CUTOFFS, rel_level)
    actual = reference_trec(qrels, run, rel_level=rel_level, max_docs=max_docs)
    if max_docs == 0:
        assert all(values["num_ret"] == 0 for values in actual.values())
        return
    assert_close(expected, actual)
    assert actual == reference_trec(qrels, truncated, rel_level=rel_level)


@given(trec_collection(), st.integers(1, 3))
def test_all_queries_adds_missing_judged_queries_with_an_empty_ranking(collection, rel_level):
    qrels, run = collection
    plain = reference_trec(qrels, run, rel_level=rel_level)
    complete = reference_trec(qrels, run, rel_level=rel_level, all_queries=True)
    assert set(complete) == {q for q, j in qrels.items() if j}
    for qid, values in complete.items():
        if qid in run:
            assert values == plain[qid]
        else:
            num_rel = sum(label >= rel_level for label in qrels[qid].values())
            assert values == {name: float(num_rel) if name == "num_rel" else 0.0 for name in measure_names()}
    # an explicit empty ranking is the same thing, but for trec_eval's 0/0 (a NaN) where interpolated precision
    # needs no relevant document: trec_eval -c scores the missing query against one document, not none
    empty = {qid: {} for qid in qrels if qid not in run}
    emptied = reference_trec(qrels, {**run, **empty}, rel_level=rel_level)
    for qid, values in emptied.items():
        undefined = {name for name, value in values.items() if math.isnan(value)}
        assert undefined == (set() if qid in run else empty_ranking_nans(qrels[qid], rel_level)), (qid, undefined)
        assert {n: v for n, v in values.items() if n not in undefined} == {
            n: v for n, v in complete[qid].items() if n not in undefined
        }


@given(trec_collection(), st.randoms(use_true_random=False))
def test_run_order_and_representation_do_not_matter(collection, rnd):
    qrels, run = collection
    shuffled = {}
    for qid, ranking in run.items():
        pairs = list(ranking.items())
        rnd.shuffle(pairs)
        shuffled[qid] = pairs  # (doc, score) pairs in a random order
    assert reference_trec(qrels, shuffled) == reference_trec(qrels, run)


# ---------------------------------------------------------------------------------------------------------------------
# against ranx and ir_measures (tie-free scores)


@pytest.mark.filterwarnings("ignore::Warning")
@settings(max_examples=PEER_EXAMPLES)
@given(tie_free_collection(), st.integers(1, 3))
def test_f1_and_reciprocal_rank_match_ranx(collection, rel_level):
    ranx = pytest.importorskip("ranx")
    qrels, run = collection
    ks = DEFAULT_CUTOFFS
    suffix = f"-l{rel_level}"
    metrics = [f"f1@{k}{suffix}" for k in ks] + [f"mrr@{k}{suffix}" for k in ks] + [f"mrr{suffix}"]
    scores = ranx.evaluate(qrels, run, metrics, return_mean=False)
    actual = reference_trec(qrels, run, cutoffs=ks, rel_level=rel_level)
    for i, qid in enumerate(qrels):
        for k in ks:
            assert math.isclose(actual[qid][f"f1@{k}"], scores[f"f1@{k}{suffix}"][i], rel_tol=0, abs_tol=TOL)
            assert math.isclose(actual[qid][f"recip_rank@{k}"], scores[f"mrr@{k}{suffix}"][i], rel_tol=0, abs_tol=TOL)
        assert math.isclose(actual[qid]["recip_rank"], scores[f"mrr{suffix}"][i], rel_tol=0, abs_tol=TOL)


@pytest.mark.filterwarnings("ignore::Warning")
@settings(max_examples=PEER_EXAMPLES)
@given(tie_free_collection())
def test_ndcg_burges_matches_ranx_at_rel_level_1(collection):
    ranx = pytest.importorskip("ranx")
    qrels, run = collection
    ks = DEFAULT_CUTOFFS
    metrics = [f"ndcg_burges@{k}" for k in ks] + ["ndcg_burges"]
    scores = ranx.evaluate(qrels, run, metrics, return_mean=False)
    actual = reference_trec(qrels, run, cutoffs=ks)
    for i, qid in enumerate(qrels):
        for k in ks:
            assert math.isclose(actual[qid][f"ndcg_burges@{k}"], scores[f"ndcg_burges@{k}"][i], rel_tol=0, abs_tol=TOL)
        assert math.isclose(actual[qid]["ndcg_burges"], scores["ndcg_burges"][i], rel_tol=0, abs_tol=TOL)


@settings(max_examples=PEER_EXAMPLES)
@given(tie_free_collection())
def test_judged_matches_ir_measures(collection):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = collection
    ks = (1, 3, 5, 10, 20, 100)
    measures = [ir_measures.Judged @ k for k in ks]
    expected: dict[str, dict[str, float]] = {}
    for metric in ir_measures.iter_calc(measures, qrels, run):
        expected.setdefault(metric.query_id, {})[f"judged@{metric.measure['cutoff']}"] = metric.value
    actual = reference_trec(qrels, run, cutoffs=ks)
    assert_close(expected, actual, names=[f"judged@{k}" for k in ks])


# ---------------------------------------------------------------------------------------------------------------------
# the documented differences, pinned on one example each


def test_difference_pytrec_eval_compares_scores_as_float32():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    # float32(1 + 1e-9) == float32(1): a tie in trec_eval, broken by docid descending -> b first
    out = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert out["q"]["recip_rank"] == 1 / 2
    assert reference_trec(qrels, run)["q"]["recip_rank"] == 1.0


def test_difference_ir_measures_judged_breaks_ties_by_docid_ascending():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0, "x": 1.0}}
    (metric,) = ir_measures.iter_calc([ir_measures.Judged @ 1], qrels, run)
    assert metric.value == 1.0  # a first
    assert reference_trec(qrels, run, cutoffs=(1,))["q"]["judged@1"] == 0.0  # x first (trec_eval order)


@pytest.mark.filterwarnings("ignore::Warning")
def test_difference_ranx_ndcg_burges_drops_labels_below_rel_level():
    ranx = pytest.importorskip("ranx")
    qrels, run = {"q": {"a": 1, "b": 2}}, {"q": {"a": 2.0, "b": 1.0}}
    scores = ranx.evaluate(qrels, run, ["ndcg_burges-l2", "ndcg_burges-l1"], return_mean=False)
    assert math.isclose(scores["ndcg_burges-l2"][0], (3 / L2(3)) / 3, abs_tol=TOL)  # a (label 1) gains 0
    oracle = (1 + 3 / L2(3)) / (3 + 1 / L2(3))  # gains 1 (a) and 3 (b) whatever the level
    assert math.isclose(scores["ndcg_burges-l1"][0], oracle, abs_tol=TOL)
    assert math.isclose(reference_trec(qrels, run, rel_level=2)["q"]["ndcg_burges"], oracle, abs_tol=TOL)


# ---------------------------------------------------------------------------------------------------------------------
# hand-computed examples

# q1, rel_level 1: judged a=2 b=0 c=1 d=-1 (in the pool, unjudged) e=3 f=0  -> R = 3 (a, c, e), N = 2 (b, f)
# ranking: b 0.9, d 0.8, x 0.7 (not judged: NONPOOL), then c and a tie at 0.5 -> docid descending: c, a
#   rank:   1  2  3  4  5
#   doc:    b  d  x  c  a
#   r_i:    0 -2 -1  1  2        hits at ranks 4 and 5
HAND_QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "d": -1, "e": 3, "f": 0}}
HAND_RUN = {"q1": {"a": 0.5, "b": 0.9, "x": 0.7, "c": 0.5, "d": 0.8}}
HAND_CUTOFFS = (1, 4, 10)
L2 = math.log2
EPS = INFAP_EPSILON
# IDCG (linear) of the ideal gains 3, 2, 1 and (2^l - 1) of 7, 3, 1; only 3 ideal docs, so IDCG@4 = IDCG@10 = IDCG
IDCG = 3 / L2(2) + 2 / L2(3) + 1 / L2(4)
IDCG_BURGES = 7 / L2(2) + 3 / L2(3) + 1 / L2(4)

HAND_EXPECTED_L1 = {
    "num_ret": 5.0,
    "num_rel": 3.0,
    "num_rel_ret": 2.0,
    "map": (1 / 4 + 2 / 5) / 3,  # 0.216667: precision 1/4 at c, 2/5 at a
    "rprec": 0.0,  # top min(5, 3) = 3 docs: b, d, x -> no hit
    # b: nonrel_so_far = 1; c: 1 - min(1, 3)/min(2, 3) = 1/2; a: 1/2  -> 1/3
    "bpref": (0.5 + 0.5) / 3,
    "recip_rank": 1 / 4,
    # j=3 (c): rel 0 above, nonrel 1 (b), unjudged 1 (d): 1/4 + (3/4) * (2/3) * (eps / (1 + 2 eps))
    # j=4 (a): rel 1, nonrel 1, unjudged 1:             1/5 + (4/5) * (3/4) * ((1 + eps) / (2 + 2 eps)) = 1/2
    "infap": (1 / 4 + 0.5 * EPS / (1 + 2 * EPS) + 1 / 2) / 3,  # 0.2500016666
    "ndcg": (1 / L2(5) + 2 / L2(6)) / IDCG,  # 0.252923
    "ndcg_burges": (1 / L2(5) + 3 / L2(6)) / IDCG_BURGES,  # 0.169410
    "ndcg@1": 0.0,
    "ndcg@4": (1 / L2(5)) / IDCG,  # 0.090443
    "ndcg@10": (1 / L2(5) + 2 / L2(6)) / IDCG,
    "ndcg_burges@1": 0.0,
    "ndcg_burges@4": (1 / L2(5)) / IDCG_BURGES,  # 0.045852
    "ndcg_burges@10": (1 / L2(5) + 3 / L2(6)) / IDCG_BURGES,
    "map@1": 0.0,
    "map@4": (1 / 4) / 3,
    "map@10": (1 / 4 + 2 / 5) / 3,
    "precision@1": 0.0,
    "precision@4": 1 / 4,
    "precision@10": 2 / 10,  # divided by k, not by the 5 retrieved docs
    "recall@1": 0.0,
    "recall@4": 1 / 3,
    "recall@10": 2 / 3,
    "recip_rank@1": 0.0,
    "recip_rank@4": 1 / 4,
    "recip_rank@10": 1 / 4,
    "success@1": 0.0,
    "success@4": 1.0,
    "success@10": 1.0,
    "judged@1": 1.0,  # b
    "judged@4": 3 / 4,  # b, d (negative label still counts), c; not x
    "judged@10": 4 / 5,  # over min(10, 5) docs
    "f1@1": 0.0,
    "f1@4": 2 / 7,  # p = 1/4, r = 1/3
    "f1@10": 4 / 13,  # p = 1/5, r = 2/3
    # interpolated precision: c = int(level * 3 + 0.5) relevant docs; precision 1/4 at c (rank 4), 2/5 at a (rank 5)
    # levels 0.0-0.1 -> c = 0, 0.2-0.4 -> 1, 0.5-0.8 -> 2: best precision from there on = 2/5; 0.9, 1.0 -> c = 3 > 2: 0
    **{iprec_name(level): (2 / 5 if level < 0.85 else 0.0) for level in ELEVEN_POINTS},
    "iprec_11pt": 9 * (2 / 5) / 11,
    "gm_map": (1 / 4 + 2 / 5) / 3,  # map per query; the geometric part is the summary's
    "gm_bpref": (0.5 + 0.5) / 3,
    "relative_precision@1": 0.0,
    "relative_precision@4": 1 / 3,  # 1 hit / min(4, R = 3)
    "relative_precision@10": 2 / 3,
    "set_precision": 2 / 5,
    "set_recall": 2 / 3,
    "set_f": 2 * (2 / 5) * (2 / 3) / (2 / 5 + 2 / 3),  # 0.5
    "set_map": 4 / 15,  # 2 * 2 / (5 * 3)
    "set_relative_precision": 2 / 3,  # 2 / min(5, 3)
    "num_nonrel_judged_ret": 1.0,  # b (d is unjudged, x not in the pool)
    # d (in the pool, label -1) and x (not in the pool) are unjudged: ranks 2 and 3 of b, d, x, c, a
    "unjudged@1": 0.0,
    "unjudged@4": 2 / 4,
    "unjudged@10": 2 / 10,
}

# the same at rel_level 2: relevant a=2, e=3 -> R = 2; N = 3 (b, f and c=1); the only hit is a at rank 5
HAND_EXPECTED_L2 = {
    **HAND_EXPECTED_L1,  # gains (ndcg, ndcg_burges) ignore the relevance level; judged@k ignores labels
    "num_rel": 2.0,
    "num_rel_ret": 1.0,
    "map": (1 / 5) / 2,
    "rprec": 0.0,  # top 2: b, d
    "bpref": 0.0,  # a: nonrel_so_far = 2 (b, c): 1 - min(2, 2)/min(3, 2) = 0
    # j=4 (a): rel 0 above, nonrel 2 (b, c), unjudged 1 (d): 1/5 + (4/5) * (3/4) * (eps / (2 + 2 eps))
    "infap": (1 / 5 + (3 / 5) * EPS / (2 + 2 * EPS)) / 2,  # 0.1000015
    "recip_rank": 1 / 5,
    "map@1": 0.0,
    "map@4": 0.0,
    "map@10": (1 / 5) / 2,
    "precision@4": 0.0,
    "precision@10": 1 / 10,
    "recall@4": 0.0,
    "recall@10": 1 / 2,
    "recip_rank@4": 0.0,
    "recip_rank@10": 1 / 5,
    "success@4": 0.0,
    "f1@4": 0.0,
    "f1@10": 1 / 6,  # p = 1/10, r = 1/2
    # c = int(level * 2 + 0.5): levels 0.0-0.2 -> 0, 0.3-0.7 -> 1 (a, precision 1/5), 0.8-1.0 -> 2 > 1 hit: 0
    **{iprec_name(level): (1 / 5 if level < 0.75 else 0.0) for level in ELEVEN_POINTS},
    "iprec_11pt": 8 * (1 / 5) / 11,
    "gm_map": (1 / 5) / 2,
    "gm_bpref": 0.0,
    "relative_precision@1": 0.0,
    "relative_precision@4": 0.0,
    "relative_precision@10": 1 / 2,  # 1 hit / min(10, R = 2)
    "set_precision": 1 / 5,
    "set_recall": 1 / 2,
    "set_f": 2 * (1 / 5) * (1 / 2) / (1 / 5 + 1 / 2),  # 2/7
    "set_map": 1 / 10,
    "set_relative_precision": 1 / 2,
    "num_nonrel_judged_ret": 2.0,  # b and c (label 1 < 2)
    # d (in the pool, label -1) and x (not in the pool) are unjudged: ranks 2 and 3 of b, d, x, c, a
    "unjudged@1": 0.0,
    "unjudged@4": 2 / 4,
    "unjudged@10": 2 / 10,
}


@pytest.mark.parametrize(("rel_level", "expected"), [(1, HAND_EXPECTED_L1), (2, HAND_EXPECTED_L2)])
def test_hand_computed_example(rel_level, expected):
    actual = reference_trec(HAND_QRELS, HAND_RUN, cutoffs=HAND_CUTOFFS, rel_level=rel_level)
    assert set(actual["q1"]) == set(expected)
    for name, value in expected.items():
        assert math.isclose(actual["q1"][name], value, rel_tol=0, abs_tol=1e-15), (name, value, actual["q1"][name])


@pytest.mark.parametrize(("relevant", "rank"), [("é", 1), ("e", 2), ("ab", 3), ("a", 4), ("B", 5)])
def test_ties_break_by_docid_bytes_descending(relevant, rank):
    # all tied at 1.0; UTF-8 bytes: é = c3 a9 > e = 65 > ab > a (a prefix sorts first) > B = 42
    run = {"q": {"a": 1.0, "B": 1.0, "é": 1.0, "ab": 1.0, "e": 1.0}}
    out = reference_trec({"q": {relevant: 1}}, run)
    assert out["q"]["recip_rank"] == 1 / rank


def test_max_docs_keeps_the_top_of_the_trec_order():
    out = reference_trec(HAND_QRELS, HAND_RUN, cutoffs=HAND_CUTOFFS, max_docs=3)["q1"]  # keeps b, d, x
    assert (out["num_ret"], out["num_rel"], out["num_rel_ret"]) == (3.0, 3.0, 0.0)
    assert out["judged@10"] == 2 / 3  # b, d over min(10, 3)
    assert out["precision@10"] == out["map"] == out["bpref"] == out["infap"] == out["ndcg"] == 0.0
    out = reference_trec(HAND_QRELS, HAND_RUN, cutoffs=HAND_CUTOFFS, max_docs=4)["q1"]  # the tie cut: c stays
    assert out["num_rel_ret"] == 1.0 and out["recip_rank"] == 1 / 4
    zero = reference_trec(HAND_QRELS, HAND_RUN, max_docs=0)["q1"]
    assert zero["num_ret"] == zero["judged@1"] == zero["ndcg"] == 0.0 and zero["num_rel"] == 3.0


def test_query_sets():
    qrels = {**HAND_QRELS, "q2": {"a": 1, "b": 0}, "q3": {}}
    run = {**HAND_RUN, "q3": {"a": 1.0}, "q4": {"a": 1.0}}
    # q2 is not in the run, q3 has no judgments, q4 is not judged
    assert set(reference_trec(qrels, run)) == {"q1"}
    complete = reference_trec(qrels, run, all_queries=True)
    assert set(complete) == {"q1", "q2"}
    assert complete["q2"] == {name: 1.0 if name == "num_rel" else 0.0 for name in measure_names()}
    # a run key with an empty ranking retrieved nothing: evaluated without all_queries, the levels that need no
    # relevant document (0.0 to 0.4 of R = 1) being trec_eval's 0/0
    emptied = reference_trec(qrels, {**run, "q2": {}})["q2"]
    assert {name for name, value in emptied.items() if math.isnan(value)} == empty_ranking_nans(qrels["q2"], 1)
    assert all(emptied[name] == complete["q2"][name] for name in emptied if not math.isnan(emptied[name]))


def empty_ranking_nans(judgments, rel_level):
    """The measures that are NaN for an empty ranking: interpolated precision at the levels l with lround(l R) = 0."""
    num_rel = sum(label >= rel_level for label in judgments.values())
    nans = {iprec_name(level) for level in ELEVEN_POINTS if level * num_rel < 0.5}
    return nans | {"iprec_11pt"} if nans else nans


def test_all_negative_judgments_give_zero_relevance_measures():
    out = reference_trec({"q": {"a": -1, "b": -1}}, {"q": {"a": 1.0, "c": 0.5}}, cutoffs=(1, 2))["q"]
    assert out["num_rel"] == out["num_rel_ret"] == out["ndcg"] == out["bpref"] == out["infap"] == 0.0
    assert out["num_ret"] == 2.0 and out["judged@1"] == 1.0 and out["judged@2"] == 0.5


@pytest.mark.parametrize(
    ("qrels", "run", "kwargs"),
    [
        (HAND_QRELS, HAND_RUN, {"rel_level": 0}),
        (HAND_QRELS, HAND_RUN, {"cutoffs": (0, 5)}),
        (HAND_QRELS, HAND_RUN, {"max_docs": -1}),
        (HAND_QRELS, {"q1": {"a": math.nan}}, {}),
        (HAND_QRELS, {"q9": {"a": math.nan}}, {}),  # also for queries that are not evaluated
        (HAND_QRELS, {"q1": [("a", 1.0), ("a", 2.0)]}, {}),
        ({"q1": [("a", 1), ("a", 0)]}, HAND_RUN, {}),
        ({"q1": {"a": 1.5}}, HAND_RUN, {}),
    ],
)
def test_invalid_input_raises(qrels, run, kwargs):
    with pytest.raises(ValueError):
        reference_trec(qrels, run, **kwargs)
