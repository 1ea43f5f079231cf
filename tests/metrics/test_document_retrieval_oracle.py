"""The columnar core against the plain-Python oracle, on random multi-query inputs.

Each example builds several queries at once (so grouping, alignment and the join are exercised
together), with ties, repeated documents on both sides, unjudged documents, queries that
retrieved nothing, random label scales and random k; rows may be shuffled across queries.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import evaluate
from tests.reference.azure_docret import reference_docret
from tests.strategies import collection, label_scale, tables

# Generated collections include runs that share no query with the qrels: scoring them is the point here.
pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")

def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@given(
    data=st.data(),
    label_scale=label_scale(),
    k=st.integers(1, 12),
    int_ids=st.booleans(),
    shuffle_seed=st.one_of(st.none(), st.integers(0, 2**16)),
)
def test_every_metric_equals_the_oracle(data, label_scale, k, int_ids, shuffle_seed):
    label_min, label_max = label_scale
    queries = data.draw(collection(label_min, label_max, int_ids))
    qrels, run = tables(queries, shuffle_seed)
    metrics = [f"ndcg_exp@{k}", f"xdcg@{k}", "fidelity", "top1_relevance", f"max_relevance@{k}",
               "holes", "holes_ratio", f"holes@{k}", "total_retrieved_documents", "total_ground_truth_documents"]
    result = evaluate(qrels, run, metrics, label_min=label_min, label_max=label_max)
    table = result.per_query.set_index("query_id")
    assert sorted(table.index) == sorted(queries)
    for query, (gt, ret) in queries.items():
        expected = reference_docret(gt, ret, k=k, label_min=label_min, label_max=label_max, azure_gains=False)
        for name, value in expected.items():
            got = float(table.loc[query, name])
            assert same(got, value), (query, name, got, value)


@given(seed=st.integers(0, 2**16), n=st.integers(100, 400))
def test_long_result_lists_equal_the_oracle(seed, n):
    """Lists longer than the insertion-sort limit take the merge-sort path: ties must stay stable there too."""
    import random

    rng = random.Random(seed)
    docs = [f"d{rng.randrange(n)}" for _ in range(n)]
    queries = {"q": ([(d, rng.randrange(5)) for d in docs[: n // 3]], [(d, float(rng.randrange(20))) for d in docs])}
    qrels, run = tables(queries, None)
    k = 10
    table = evaluate(qrels, run, [f"ndcg_exp@{k}", f"xdcg@{k}", "fidelity", f"max_relevance@{k}", f"holes@{k}"]).per_query
    expected = reference_docret(*queries["q"], k=k, azure_gains=False)
    for name in table.columns[1:]:
        assert same(float(table.loc[0, name]), expected[name]), name
