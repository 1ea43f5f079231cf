"""The TREC kernel against the plain-Python oracle (tests/reference/trec_measures.py), bit for bit.

Covers what pytrec_eval cannot: the measures trec_eval lacks (ndcg_burges, recip_rank@k,
judged@k, f1@k), ``max_docs`` (-M), ``query_set="qrels"`` (-c), queries whose labels are all
negative, integer document ids (tied as decimal text), and rows in any order.
"""

from __future__ import annotations

import random

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import Metric, evaluate
from tests.reference.trec_measures import measure_names, reference_trec

# Generated collections include runs that share no query with the qrels: scoring them is the point here.
pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")

CUTOFFS = (1, 2, 3, 5, 10, 40)
STRING_DOCS = [f"d{i}" for i in range(10)] + ["a", "ab", "abc", "B", "é", "日本", "", "d 1"]
SCORES = [x / 4 for x in range(-8, 9)] + [1e-300, -0.0, 1e300]


@st.composite
def collection(draw):
    int_ids = draw(st.booleans())
    docs = st.integers(-12, 120) if int_ids else st.sampled_from(STRING_DOCS)
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 6))):
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"]))
        if side != "run":
            qrels[f"q{q}"] = draw(st.dictionaries(docs, st.integers(-2, 5), min_size=1, max_size=12))
        if side != "qrels":
            run[f"q{q}"] = draw(st.dictionaries(docs, st.sampled_from(SCORES), min_size=1, max_size=45))
    if not qrels:
        qrels["q0"] = {draw(docs): draw(st.integers(-2, 5))}
    return qrels, run


def frames(qrels, run, seed):
    qrels_rows = [(q, d, label) for q, docs in qrels.items() for d, label in docs.items()]
    run_rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    random.Random(seed).shuffle(run_rows)  # trec_eval's order does not depend on the rows' order
    return (
        pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"]),
    )


def as_text(side):
    return {q: {str(d): v for d, v in docs.items()} for q, docs in side.items()}


@given(
    data=collection(),
    rel_level=st.integers(1, 3),
    all_queries=st.booleans(),
    max_docs=st.one_of(st.none(), st.integers(1, 12)),
    seed=st.integers(0, 2**16),
)
def test_kernel_equals_the_oracle(data, rel_level, all_queries, max_docs, seed):
    qrels, run = data
    qrels_frame, run_frame = frames(qrels, run, seed)
    if run_frame.empty:
        return
    expected = reference_trec(
        as_text(qrels), as_text(run), cutoffs=CUTOFFS, rel_level=rel_level, all_queries=all_queries, max_docs=max_docs
    )
    names = measure_names(CUTOFFS)
    result = evaluate(
        qrels_frame, run_frame, names, rel_level=rel_level, max_docs=max_docs,
        query_set="qrels" if all_queries else "both",
    )
    per_query = result.per_query.set_index("query_id")
    assert set(per_query.index) == set(expected)
    columns = [str(m) for m in result_metrics(result, names)]
    for query, values in expected.items():
        for name, column in zip(names, columns):
            ours, theirs = float(per_query.loc[query, column]), values[name]
            assert ours == theirs, (query, name, ours, theirs)  # the same operations in the same order


def result_metrics(result, names):
    """The evaluated metrics in the order asked (their canonical names carry rel when it is not 1)."""
    metrics = [c for c in result.per_query.columns if c != "query_id"]
    assert len(metrics) == len(names)
    return metrics


def test_oracle_names_are_canonical_names():
    from retrieval_eval import REGISTRY

    for name in measure_names(CUTOFFS):
        assert str(REGISTRY.parse(name)) == name
    assert isinstance(REGISTRY.parse("judged@3"), Metric)
