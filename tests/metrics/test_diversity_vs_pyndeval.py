"""The diversity family against pyndeval 0.0.8 (ndeval.c 4.5): per-query values to the bit, and the summary.

pyndeval orders equal scores by ascending document id, ndeval's -traditional (and this family)
by descending id: pyndeval is given each query's ranking as distinct scores, so both rank alike
and the values are compared on that ranking. The tie order itself is checked against ndeval's
-traditional order in the test that sorts by hand below.
"""

from __future__ import annotations

import math

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import Evaluator
from retrieval_eval.data import Qrels, Run
from retrieval_eval.errors import ConfigError
from retrieval_eval.metrics.options import EvaluationOptions

pyndeval = pytest.importorskip("pyndeval")
pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")

KS = (1, 2, 3, 5, 10, 20)
OURS = {"ERR-IA": "err_ia", "nERR-IA": "nerr_ia", "alpha-DCG": "alpha_dcg", "alpha-nDCG": "alpha_ndcg",
        "P-IA": "p_ia", "strec": "strec"}
WHOLE = {"NRBP": "nrbp", "nNRBP": "nnrbp", "MAP-IA": "map_ia"}
QUERIES = ["q1", "q2", "q3", "q4"]
DOCS = [f"d{i}" for i in range(9)]
SUBTOPICS = ["1", "2", "3", "10"]


@st.composite
def collections(draw):
    judged = draw(st.dictionaries(
        st.tuples(st.sampled_from(QUERIES[:3]), st.sampled_from(SUBTOPICS), st.sampled_from(DOCS)),
        st.sampled_from([-1, 0, 1, 1, 2]), min_size=1, max_size=40))
    retrieved = draw(st.dictionaries(
        st.tuples(st.sampled_from(QUERIES[1:]), st.sampled_from(DOCS)),
        st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 3.0]), min_size=1, max_size=30))
    # Rows in a drawn order: pyndeval adds a query's gains in order of its subtopics' first rows.
    qrels_rows = draw(st.permutations(sorted((q, s, d, label) for (q, s, d), label in judged.items())))
    return qrels_rows, sorted((q, d, x) for (q, d), x in retrieved.items())


def _tables(qrels_rows, run_rows):
    qrels = Qrels(pa.table({
        "query_id": [r[0] for r in qrels_rows], "group": [r[1] for r in qrels_rows],
        "doc_id": [r[2] for r in qrels_rows], "relevance": [r[3] for r in qrels_rows],
    }), judgments="qrels_jg")
    run = Run(pa.table({"query_id": [r[0] for r in run_rows], "doc_id": [r[1] for r in run_rows],
                        "score": pa.array([r[2] for r in run_rows], pa.float64())}))
    return qrels, run


def _ranked_as_scores(run_rows):
    """The run with each query's documents scored by their place in ndeval's -traditional order (distinct scores)."""
    out = []
    for query in sorted({r[0] for r in run_rows}):
        docs = [r for r in run_rows if r[0] == query]
        # score descending, then document id descending (strcmp), as ndeval -traditional and trec_eval
        docs.sort(key=lambda r: (r[2], r[1]), reverse=True)
        out += [(query, d, float(len(docs) - i)) for i, (_, d, _) in enumerate(docs)]
    return out


def _same(ours: float, theirs: float) -> bool:
    return (math.isnan(ours) and math.isnan(theirs)) or ours == theirs


def _compare(qrels_rows, run_rows, alpha, beta, rel):
    measures = [f"{m}@{k}" for m in OURS for k in KS] + list(WHOLE)
    expected = pyndeval.ndeval(
        [(q, s, d, label) for q, s, d, label in qrels_rows], _ranked_as_scores(run_rows), measures, alpha=alpha, beta=beta,
    ) if rel == 1 else pyndeval.RelevanceEvaluator(qrels_rows, measures, relevance_level=rel, alpha=alpha, beta=beta).evaluate(
        _ranked_as_scores(run_rows))
    params = f"(alpha={alpha},beta={beta},rel={rel})"
    ours = {}
    for peer, name in (*OURS.items(), *WHOLE.items()):
        keys = [f"{peer}@{k}" for k in KS] if peer in OURS else [peer]
        for key in keys:
            k = key.partition("@")[2]
            own = {"nrbp": "alpha,beta,rel", "nnrbp": "alpha,beta,rel"}.get(name, "alpha,rel" if name in (
                "err_ia", "nerr_ia", "alpha_dcg", "alpha_ndcg") else "rel")
            chosen = ",".join(f"{p}={dict(alpha=alpha, beta=beta, rel=rel)[p]}" for p in own.split(","))
            ours[key] = f"{name}({chosen})" + (f"@{k}" if k else "")
    qrels, run = _tables(qrels_rows, run_rows)
    result = Evaluator(qrels, list(ours.values())).evaluate(run)
    per_query = result.to_dict()
    assert set(map(str, per_query)) == set(expected), params
    for query, values in expected.items():
        mine = per_query[query]
        for key, value in values.items():
            assert _same(mine[ours[key]], value), (query, key, mine[ours[key]], value, params)
    return result, expected, ours


@settings(max_examples=150)
@given(collections(), st.sampled_from([0.5, 0.5, 0.25, 0.0, 1.0]), st.sampled_from([0.5, 0.5, 0.75, 0.0, 1.0]),
       st.sampled_from([1, 1, 2]))
def test_values_match_pyndeval(collection, alpha, beta, rel):
    qrels_rows, run_rows = collection
    result, expected, ours = _compare(qrels_rows, run_rows, alpha, beta, rel)
    # The summary: the mean of the queries' values (ndeval's amean), NaN (nNRBP of a query without
    # relevant documents) left out as undefined.
    for key, name in ours.items():
        values = [v[key] for v in expected.values() if not math.isnan(v[key])]
        if values:
            assert result.means[name] == pytest.approx(math.fsum(values) / len(values), rel=1e-12, abs=1e-15)


@settings(max_examples=40)
@given(collections(), st.sampled_from([0.3, 0.7]), st.sampled_from([0.3, 0.9]))
def test_any_alpha_and_beta(collection, alpha, beta):
    """Non-dyadic alpha and beta: the same doubles, ndeval's products and sums in its order."""
    _compare(*collection, alpha, beta, 1)


def test_ties_follow_ndeval_traditional_order():
    """Equal scores rank by descending document id (ndeval -traditional: strcmp(b, a)), not pyndeval's ascending id."""
    qrels_rows = [("q1", "1", "d1", 1), ("q1", "2", "d2", 1)]
    qrels, run = _tables(qrels_rows, [("q1", "d1", 1.0), ("q1", "d2", 1.0), ("q1", "d0", 1.0)])
    ours = Evaluator(qrels, ["p_ia@1", "strec@1"]).evaluate(run).to_dict()["q1"]
    # d2 first: relevant to one subtopic of two.
    assert ours == {"p_ia@1": 0.5, "strec@1": 0.5}


def test_judged_queries_the_run_lacks_score_zero_under_query_set_qrels():
    """ndeval -c: the mean over every judged topic, one the run lacks at 0 (nNRBP too)."""
    qrels_rows = [("q1", "1", "d1", 1), ("q2", "1", "d1", 1), ("q3", "1", "d1", 0)]
    qrels, run = _tables(qrels_rows, [("q1", "d1", 1.0)])
    result = Evaluator(qrels, ["alpha_ndcg@5", "nnrbp"], options=EvaluationOptions(query_set="qrels")).evaluate(run)
    assert result.to_dict() == {"q1": {"alpha_ndcg@5": 1.0, "nnrbp": 1.0}, "q2": {"alpha_ndcg@5": 0.0, "nnrbp": 0.0},
                                "q3": {"alpha_ndcg@5": 0.0, "nnrbp": 0.0}}


def test_max_docs_cuts_the_run_as_ndeval_m():
    qrels_rows = [("q1", "1", "d1", 1), ("q1", "2", "d2", 1)]
    qrels, run = _tables(qrels_rows, [("q1", "d1", 2.0), ("q1", "d2", 1.0)])
    assert Evaluator(qrels, ["strec@5"], options=EvaluationOptions(max_docs=1)).evaluate(run).to_dict()["q1"] == {"strec@5": 0.5}


def test_ideal_ranking_breaks_equal_gains_by_greatest_document_id():
    """dC{1,3} before dA{1,2} and dB{3,4} (gains 2, 1.5, 1.5); the smallest id first would give 2, 2, 1."""
    qrels_rows = [("q1", s, d, 1) for d, subtopics in (("dA", "12"), ("dB", "34"), ("dC", "13")) for s in subtopics]
    _compare(qrels_rows, [("q1", "dA", 3.0), ("q1", "dB", 2.0), ("q1", "dC", 1.0)], 0.5, 0.5, 1)


def test_cutoffs_stop_at_ndeval_depth():
    qrels, run = _tables([("q1", "1", "d1", 1)], [("q1", "d1", 1.0)])
    with pytest.raises(ConfigError, match="k must be at most 20"):
        Evaluator(qrels, ["alpha_ndcg@21"]).evaluate(run)
