"""What the API does with inputs that measure nothing, and where the definitions say NaN or 0."""

from __future__ import annotations

import math
import warnings

import pytest

from retrieval_eval import REGISTRY, Evaluator, evaluate
from retrieval_eval.metrics import NoSharedQueriesWarning

QRELS = [{"query_id": "q1", "doc_id": "a", "relevance": 2}, {"query_id": "q2", "doc_id": "b", "relevance": 1}]
ELSEWHERE = [{"query_id": "x1", "doc_id": "a", "score": 1.0}]


def test_a_run_that_shares_no_query_is_scored_with_a_warning():
    with pytest.warns(NoSharedQueriesWarning, match="has a document in the run"):
        trec = evaluate(QRELS, ELSEWHERE, ["P@5", "map"])
    # trec_eval's query set leaves nothing to average.
    assert trec.query_counts["both"] == 0 and all(math.isnan(v) for v in trec.means.values())
    with pytest.warns(NoSharedQueriesWarning):
        azure = evaluate(QRELS, ELSEWHERE, thresholds={"holes": 0})
    # Azure's scores every judged query as retrieving nothing: zeros, and a holes threshold that passes.
    assert azure.means["ndcg_exp@3"] == 0.0 and azure.passed is True


def test_a_run_that_shares_a_query_gives_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoSharedQueriesWarning)
        Evaluator(QRELS, ["P@5"]).evaluate([{"query_id": "q2", "doc_id": "z", "score": 1.0}])


def scores(qrels_labels, retrieved, **options):
    qrels = [{"query_id": "q", "doc_id": d, "relevance": label} for d, label in qrels_labels.items()]
    run = [{"query_id": "q", "doc_id": d, "score": float(-rank)} for rank, d in enumerate(retrieved)]
    return evaluate(qrels, run, ["ndcg_exp@1", "fidelity", "xdcg@1", "top1_relevance"], **options).per_query.iloc[0]


def test_all_zero_labels_give_0_as_the_definitions_say():
    row = scores({"a": 0, "b": 0}, ["a", "c"])
    assert (row["ndcg_exp@1"], row["fidelity"], row["xdcg@1"], row["top1_relevance"]) == (0.0, 0.0, 0.0, 0)
    for name in ("ndcg_exp", "fidelity"):
        assert "0 when no retrieved document has a nonzero label" in REGISTRY.definition(REGISTRY.parse(name, default_k=1)).definition


def test_nan_arises_only_where_the_definitions_say():
    # ndcg_exp never: a label below 0 has gain 0, and an ideal sum of 0 (no judged label above 0) gives 0.
    assert scores({"a": -1, "b": 0}, ["a"], label_min=-1)["ndcg_exp@1"] == 0.0
    # fidelity: a nonzero label retrieved, no judged label above label_min.
    assert math.isnan(scores({"a": 1}, ["a"], label_min=1, label_max=4)["fidelity"])
