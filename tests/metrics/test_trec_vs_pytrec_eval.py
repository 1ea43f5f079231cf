"""Every TREC measure that trec_eval has, against pytrec_eval (trec_eval's own C code) on random data.

Graded labels with negatives (in the pool but unjudged), frequent ties, ids that are prefixes of
each other and multi-byte, queries on one side only, relevance levels 1..3, cutoffs beyond the
lists. Interpolated precision is left out: pytrec_eval has trec_eval 9's rounding of recall levels
(the oracle's tests compare it with that rounding). pytrec_eval 0.5.11 compares scores as 32-bit floats (trec_eval 10.0 uses 64 bits), so
scores here are exact in float32: both orders agree. A query whose labels are all negative is
left out: pytrec_eval crashes or loops on it (the plain-Python oracle covers that case).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import evaluate

# Generated collections include runs that share no query with the qrels: scoring them is the point here.
pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 2, 3, 5, 10, 50)
DOCS = [f"d{i}" for i in range(10)] + ["a", "ab", "B", "é", "d1x"]
SCORES = [x / 4 for x in range(-12, 13)]

# pytrec_eval's result key -> our metric name.
NAMES = {
    "ndcg": "ndcg", "map": "map", "recip_rank": "recip_rank", "Rprec": "rprec", "bpref": "bpref", "infAP": "infap",
    "num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret", "set_P": "set_precision", "set_recall": "set_recall",
    "set_F": "set_f", "set_map": "set_map", "set_relative_P": "set_relative_precision",
    **{f"{trec}_{k}": f"{ours}@{k}" for k in CUTOFFS for trec, ours in
       [("ndcg_cut", "ndcg"), ("map_cut", "map"), ("P", "precision"), ("recall", "recall"), ("success", "success"),
        ("relative_P", "relative_precision")]},
}
CUTOFF_LIST = ",".join(map(str, CUTOFFS))
# pytrec_eval reports gm_map and gm_bpref per query as log(max(v, 1e-5)), the terms of their geometric mean.
LOGGED = {"gm_map": "gm_map", "gm_bpref": "gm_bpref"}
MEASURES = {"ndcg", "map", "recip_rank", "Rprec", "bpref", "infAP", "num_ret", "num_rel", "num_rel_ret", *LOGGED,
            "num_nonrel_judged_ret", "set_P", "set_recall", "set_F", "set_map", "set_relative_P",
            *(f"{m}.{CUTOFF_LIST}" for m in ("ndcg_cut", "map_cut", "P", "recall", "success", "relative_P"))}


@st.composite
def judged_and_ranked(draw):
    """qrels {query: {doc: label}} and run {query: {doc: score}}, with queries on one side only."""
    queries = [f"q{i}" for i in range(draw(st.integers(1, 6)))]
    qrels, run = {}, {}
    for query in queries:
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if side != "run":
            judged = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 4), min_size=1, max_size=12))
            # pytrec_eval 0.5.11 misbehaves (crash, endless loop) on a query whose labels are all negative.
            if max(judged.values()) < 0:
                judged[next(iter(judged))] = draw(st.integers(0, 4))
            qrels[query] = judged
        if side != "qrels":
            run[query] = draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=1, max_size=15))
    if not qrels:
        qrels["q0"] = {"d0": 1}
    return qrels, run


def frames(qrels, run):
    qrels_frame = pd.DataFrame(
        [(q, d, label) for q, docs in qrels.items() for d, label in docs.items()], columns=["query_id", "doc_id", "relevance"]
    )
    run_frame = pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()], columns=["query_id", "doc_id", "score"]
    )
    return qrels_frame, run_frame


@given(data=judged_and_ranked(), rel_level=st.integers(1, 3))
def test_every_measure_equals_pytrec_eval(data, rel_level):
    qrels, run = data
    expected = pytrec_eval.RelevanceEvaluator(qrels, MEASURES, relevance_level=rel_level).evaluate(run)
    qrels_frame, run_frame = frames(qrels, run)
    if run_frame.empty:
        return  # nothing to rank: pytrec_eval has no queries to report either
    ours = evaluate(qrels_frame, run_frame, [*NAMES.values(), *LOGGED.values()], rel_level=rel_level).per_query
    ours = ours.set_index("query_id")
    # The same queries: those in both (trec_eval without -c).
    assert set(ours.index) == set(expected)
    for query, values in expected.items():
        for key, name in NAMES.items():
            assert math.isclose(ours.loc[query, name], values[key], rel_tol=0, abs_tol=1e-12), (
                query, key, ours.loc[query, name], values[key])
        for key, name in LOGGED.items():
            logged = math.log(max(ours.loc[query, name], 0.00001))
            assert math.isclose(logged, values[key], rel_tol=0, abs_tol=1e-12), (query, key, logged, values[key])
