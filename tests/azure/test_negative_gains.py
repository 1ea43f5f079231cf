"""The drop-in keeps the SDK's ndcg@3 where negative labels take it outside [0, 1], with one warning a call."""

from __future__ import annotations

import warnings

import pytest

from retrieval_eval.azure import DocumentRetrievalEvaluator, NdcgOutsideUnitIntervalWarning
from tests.reference.test_oracle_vs_golden import CASES

SUCCESS = [c for c in CASES if c["output"] is not None and not c["bugs"] and c["init"].get("ground_truth_label_min", 0) < 0]


def sdk_ndcg(case: dict) -> float:
    return case["output"]["document_retrieval_properties"]["ndcg@3"]


def scored(case: dict) -> tuple[float, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = DocumentRetrievalEvaluator(**case["init"])(**case["call"])["document_retrieval_properties"]["ndcg@3"]
    return value, [w for w in caught if issubclass(w.category, NdcgOutsideUnitIntervalWarning)]


@pytest.mark.parametrize("case", SUCCESS, ids=[c["case_id"] for c in SUCCESS])
def test_negative_labels_keep_the_sdk_s_number_and_warn_when_it_leaves_the_unit_interval(case):
    value, caught = scored(case)
    assert value == sdk_ndcg(case)
    outside = not 0.0 <= value <= 1.0
    assert len(caught) == (1 if outside else 0)
    if outside:
        message = str(caught[0].message)
        assert "\n" not in message and message.startswith("ndcg@3 is outside [0, 1] for 1 query:")
        assert caught[0].filename == __file__  # it points at the caller's line


def test_the_issue_s_labels_give_the_sdk_s_1_1316_with_one_warning():
    evaluator = DocumentRetrievalEvaluator(ground_truth_label_min=-3, ground_truth_label_max=4)
    ground_truth = [{"document_id": "a", "query_relevance_label": -1}, {"document_id": "b", "query_relevance_label": -3}]
    retrieved = [{"document_id": "b", "relevance_score": 2.0}, {"document_id": "a", "relevance_score": 1.0}]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = evaluator(retrieval_ground_truth=ground_truth, retrieved_documents=retrieved)
        rows = [{"query_id": f"q{i}", "retrieval_ground_truth": ground_truth, "retrieved_documents": retrieved} for i in range(5)]
        table = evaluator.evaluate_table(rows)
    assert round(out["document_retrieval_properties"]["ndcg@3"], 4) == 1.1316
    assert table["ndcg@3"].tolist() == [out["document_retrieval_properties"]["ndcg@3"]] * 5
    assert [str(w.message).split(":")[0] for w in caught] == ["ndcg@3 is outside [0, 1] for 1 query",
                                                              "ndcg@3 is outside [0, 1] for 5 queries"]  # fmt: skip
    assert all(w.filename == __file__ for w in caught)
