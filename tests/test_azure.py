"""The Azure drop-in against golden vectors recorded from azure-ai-evaluation 1.18.10.

Where the SDK is right, output dicts are equal to the SDK's: keys, key order, value types and
values, bit for bit. Where a tagged SDK bug interferes, values equal the oracle (the right
thing) and the rest still equals the SDK. Error cases raise the SDK's message.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from retrieval_eval.azure import DocumentRetrievalEvaluator, EvaluationException
from tests.reference.azure_docret import reference_docret
from tests.reference.test_oracle_vs_golden import CASES, KEY_MAP, oracle_args, same

SDK_KEY_TO_ORACLE = {sdk: oracle for oracle, sdk in KEY_MAP.items()}
# Inputs the SDK mishandles silently, which this library treats differently on purpose.
BY_DESIGN = {
    "non_list_retrieved": "a tuple of retrieved rows is scored (the SDK silently scores it as nothing retrieved)",
    "score_big_int": "an int score that float64 cannot hold exactly is an error (scores are float64)",
}
SUCCESS = [c for c in CASES if c["output"] is not None and not c["bugs"] and c["category"] not in BY_DESIGN]


def call(case: dict[str, Any]) -> dict[str, Any]:
    return DocumentRetrievalEvaluator(**case["init"])(**case["call"])


def assert_identical(ours: Any, theirs: Any, path: str = "") -> None:
    """Equal values of the same type, dict keys in the same order; NaN equals NaN."""
    assert type(ours) is type(theirs), (path, ours, theirs)
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs), path
        for key in theirs:
            assert_identical(ours[key], theirs[key], f"{path}.{key}")
    elif isinstance(theirs, float):
        assert same(ours, theirs), (path, ours, theirs)
    else:
        assert ours == theirs, (path, ours, theirs)


@pytest.mark.parametrize("case", SUCCESS, ids=[c["case_id"] for c in SUCCESS])
def test_output_dict_identical_to_sdk(case):
    assert_identical(call(case), case["output"])


ERRORS = [c for c in CASES if c["error"] is not None and c["error"]["type"] == "EvaluationException"]


@pytest.mark.parametrize("case", ERRORS, ids=[c["case_id"] for c in ERRORS])
def test_errors_carry_the_sdk_message(case):
    with pytest.raises(EvaluationException) as raised:
        evaluator = DocumentRetrievalEvaluator(**case["init"])
        evaluator(**case["call"])
    assert raised.value.detail == case["error"]["message"]
    assert isinstance(raised.value, ValueError)


BUGGY = [c for c in CASES if c["bugs"] and "threshold_type" not in c["bugs"] and "nan_score" not in c["bugs"]]


@pytest.mark.parametrize("case", BUGGY, ids=[c["case_id"] for c in BUGGY])
def test_sdk_bugs_give_the_right_values(case):
    """Metrics equal the oracle's right-thing values; fields untouched by the bug equal the SDK's."""
    args = oracle_args(case)
    expected = reference_docret(**args)
    properties = call(case)["document_retrieval_properties"]
    # Fidelity weights 2^(v+1) - 1 stop being exact float64 integers past v = 52: allow rounding there.
    inexact = max(label for _, label in args["ground_truth"]) > 40
    for sdk_key, oracle_key in SDK_KEY_TO_ORACLE.items():
        ours, right = float(properties[sdk_key]), expected[oracle_key]
        close = inexact and sdk_key == "fidelity" and math.isclose(ours, right, rel_tol=1e-15)
        assert same(ours, right) or close, (sdk_key, ours, right)
    if case["output"] is not None:
        untouched = {"fidelity"} if "fidelity_misalignment" in case["bugs"] else set()
        untouched |= {"top1_relevance", "top3_max_relevance"} if "bool_label" in case["bugs"] else set()
        for key, value in case["output"]["document_retrieval_properties"].items():
            if not any(key == metric or key.startswith(metric + "_") for metric in untouched):
                assert_identical(properties[key], value, key)


NAN = [c for c in CASES if "nan_score" in c["bugs"]]


@pytest.mark.parametrize("case", NAN, ids=[c["case_id"] for c in NAN])
def test_nan_scores_are_an_error(case):
    with pytest.raises(EvaluationException, match="NaN"):
        call(case)


def test_none_threshold_means_the_default():
    gt = [{"document_id": "a", "query_relevance_label": 2}]
    ret = [{"document_id": "a", "relevance_score": 1.0}]
    with_none = DocumentRetrievalEvaluator(ndcg_threshold=None, fidelity_threshold=None)(retrieval_ground_truth=gt, retrieved_documents=ret)
    default = DocumentRetrievalEvaluator()(retrieval_ground_truth=gt, retrieved_documents=ret)
    assert_identical(with_none, default)


def test_string_threshold_is_rejected_at_construction():
    with pytest.raises(EvaluationException, match="xdcg@3"):
        DocumentRetrievalEvaluator(xdcg_threshold="50")


THRESHOLD_ARGUMENTS = ["ndcg_threshold", "xdcg_threshold", "fidelity_threshold", "top1_relevance_threshold",
                       "top3_max_relevance_threshold", "total_retrieved_documents_threshold",
                       "total_ground_truth_documents_threshold"]


@pytest.mark.parametrize("argument", THRESHOLD_ARGUMENTS)
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, np.float64("nan"), True, "0.5"], ids=repr)
def test_a_threshold_that_is_not_a_finite_number_is_rejected_at_construction(argument, value):
    # F1ScoreEvaluator's rule. A NaN threshold failed every query silently; an infinite one passed or failed them all.
    with pytest.raises(EvaluationException, match="must be a finite number or None"):
        DocumentRetrievalEvaluator(**{argument: value})
    assert DocumentRetrievalEvaluator(**{argument: np.float32(0.25)})._thresholds  # numpy numbers are numbers


@pytest.mark.parametrize("container", [{"document_id": "a"}, "abc", 3])
def test_non_list_containers_are_an_error(container):
    evaluator = DocumentRetrievalEvaluator()
    with pytest.raises(EvaluationException, match="list of dicts"):
        evaluator(retrieval_ground_truth=[{"document_id": "a", "query_relevance_label": 1}], retrieved_documents=container)
    with pytest.raises(EvaluationException, match="must be a dict"):
        evaluator(retrieval_ground_truth=[{"document_id": "a", "query_relevance_label": 1}], retrieved_documents=["a"])


def test_tuple_of_rows_is_scored_like_a_list():
    gt = [{"document_id": "a", "query_relevance_label": 3}]
    ret = [{"document_id": "a", "relevance_score": 1.0}]
    evaluator = DocumentRetrievalEvaluator()
    assert_identical(evaluator(retrieval_ground_truth=gt, retrieved_documents=tuple(ret)),
                     evaluator(retrieval_ground_truth=gt, retrieved_documents=ret))


def test_big_int_score_is_an_error():
    with pytest.raises(EvaluationException, match="float64"):
        DocumentRetrievalEvaluator()(
            retrieval_ground_truth=[{"document_id": "a", "query_relevance_label": 1}],
            retrieved_documents=[{"document_id": "a", "relevance_score": 10**20 + 1}],
        )


def test_numpy_labels_and_scores_are_accepted():
    import numpy as np

    gt = [{"document_id": "a", "query_relevance_label": np.int64(3)}, {"document_id": "b", "query_relevance_label": 1}]
    ret = [{"document_id": "b", "relevance_score": np.float32(2.0)}, {"document_id": "a", "relevance_score": np.int64(1)}]
    plain_gt = [{"document_id": "a", "query_relevance_label": 3}, {"document_id": "b", "query_relevance_label": 1}]
    plain_ret = [{"document_id": "b", "relevance_score": 2.0}, {"document_id": "a", "relevance_score": 1}]
    evaluator = DocumentRetrievalEvaluator()
    assert_identical(evaluator(retrieval_ground_truth=gt, retrieved_documents=ret),
                     evaluator(retrieval_ground_truth=plain_gt, retrieved_documents=plain_ret))


def test_batch_rows_equal_single_calls():
    """One columnar pass over every golden success with default settings equals calling once per row."""
    cases = [c for c in SUCCESS if not c["init"] and isinstance(c["call"].get("retrieved_documents"), list)
             and all(isinstance(r["document_id"], str) for r in c["call"]["retrieval_ground_truth"] + c["call"]["retrieved_documents"])]
    rows = [{"query_id": c["case_id"], **c["call"]} for c in cases]
    evaluator = DocumentRetrievalEvaluator()
    batch = list(evaluator.evaluate_rows(rows))
    assert len(batch) == len(cases) > 50
    for case, output in zip(cases, batch):
        assert_identical(output, case["output"])
    table = evaluator.evaluate_table(rows).set_index("query_id")
    for case in cases:
        for key, value in case["output"]["document_retrieval_properties"].items():
            if key in table.columns:
                assert same(float(table.loc[case["case_id"], key]), float(value)), (case["case_id"], key)


def test_an_evaluator_pickles_and_scores_the_same_after():
    import pickle

    evaluator = DocumentRetrievalEvaluator(ground_truth_label_max=5)
    call = {"retrieval_ground_truth": [{"document_id": "a", "query_relevance_label": 5}],
            "retrieved_documents": [{"document_id": "a", "relevance_score": 1.0}]}
    assert pickle.loads(pickle.dumps(evaluator))(**call) == evaluator(**call)


def test_the_batch_path_scores_float_labels():
    rows = [{"query_id": "a", "retrieval_ground_truth": [{"document_id": "x", "query_relevance_label": 1.5},
                                                         {"document_id": "y", "query_relevance_label": 3}],
             "retrieved_documents": [{"document_id": "x", "relevance_score": 2.0}, {"document_id": "z", "relevance_score": 1.0}]}]
    table = DocumentRetrievalEvaluator().evaluate_table(rows)
    assert table["holes"].tolist() == [1] and table["total_ground_truth_documents"].tolist() == [2]
    assert 0.0 < table["fidelity"][0] < 1.0
