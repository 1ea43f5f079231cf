"""The plain-Python oracle against golden vectors recorded from azure-ai-evaluation 1.18.10.

``tests/data/azure_golden.jsonl`` is produced by ``tests/golden/make_azure_vectors.py`` (format documented there).
For every case whose inputs the oracle can express (both call arguments are lists of complete rows):

* the SDK succeeded: each oracle metric at k=3 equals the SDK's exactly (``==``, NaN equal to NaN), except fields
  hit by a tagged SDK bug; a skipped fidelity is instead checked against a direct exact computation;
* the SDK rejected the input (``EvaluationException``) or a NaN score is present: the oracle raises ``ValueError``;
* the SDK crashed on a tagged bug: the oracle returns values, its fidelity equals the direct computation and,
  for ``zero_division``, its ndcg is NaN.
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tests.reference.azure_docret import reference_docret

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "azure_golden.jsonl"

# oracle key at k=3 -> SDK key in document_retrieval_properties
KEY_MAP = {
    "ndcg_exp@3": "ndcg@3",
    "xdcg@3": "xdcg@3",
    "fidelity": "fidelity",
    "top1_relevance": "top1_relevance",
    "max_relevance@3": "top3_max_relevance",
    "holes": "holes",
    "holes_ratio": "holes_ratio",
    "total_retrieved_documents": "total_retrieved_documents",
    "total_ground_truth_documents": "total_ground_truth_documents",
}
ORACLE_KEYS = [*list(KEY_MAP)[:7], "holes@3", *list(KEY_MAP)[7:]]
# oracle keys whose SDK value is wrong when the SDK succeeds despite the bug
BUGGY_KEYS = {"fidelity_misalignment": {"fidelity"}}
NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def decode_input(value: Any) -> Any:
    """Invert the generator's input encoding (``{"float": token}`` and ``{"tuple": [...]}``)."""
    if isinstance(value, dict):
        if value.keys() == {"float"}:
            return NON_FINITE[value["float"]]
        if value.keys() == {"tuple"}:
            return tuple(decode_input(v) for v in value["tuple"])
        return {key: decode_input(v) for key, v in value.items()}
    if isinstance(value, list):
        return [decode_input(v) for v in value]
    return value


def decode_typed(pair: list[Any]) -> Any:
    """Invert the generator's ``[type_name, value]`` output encoding, checking the recorded type."""
    type_name, value = pair
    if type_name == "dict":
        return {key: decode_typed(v) for key, v in value.items()}
    if type_name == "float":
        value = NON_FINITE[value] if isinstance(value, str) else float(value)
    assert type(value).__name__ == type_name, pair
    return value


def load_cases() -> list[dict[str, Any]]:
    """All golden records, with inputs and outputs decoded."""
    cases = []
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record["call"] = decode_input(record["call"])
        if record["output"] is not None:
            record["output"] = decode_typed(["dict", record["output"]])
        cases.append(record)
    return cases


def oracle_args(case: dict[str, Any]) -> dict[str, Any] | None:
    """``reference_docret`` keyword arguments for the case, or None if the oracle cannot express its inputs."""
    call = case["call"]
    gt = call.get("retrieval_ground_truth")
    ret = call.get("retrieved_documents")
    if not isinstance(gt, list) or not isinstance(ret, list):
        return None
    rows = [(row, "query_relevance_label") for row in gt] + [(row, "relevance_score") for row in ret]
    if any(row.get("document_id") is None or row.get(value_key) is None for row, value_key in rows):
        return None
    return {
        "ground_truth": [(row["document_id"], row["query_relevance_label"]) for row in gt],
        "retrieved": [(row["document_id"], row["relevance_score"]) for row in ret],
        "k": 3,
        "label_min": case["init"].get("ground_truth_label_min", 0),
        "label_max": case["init"].get("ground_truth_label_max", 4),
    }


def same(a: float, b: float) -> bool:
    """Exact equality, with NaN equal to NaN."""
    return a == b or (math.isnan(a) and math.isnan(b))


def direct_fidelity(
    ground_truth: list[tuple[Hashable, int]], retrieved: list[tuple[Hashable, float]], label_min: int
) -> float:
    """Fidelity computed exactly with ``Fraction``: sum of w(label) over distinct retrieved docs over the same sum
    over distinct judged docs, ``w(v) = 2^(v+1) - 1``, only labels ``>= label_min + 1``; unjudged label 0;
    0 when nothing is retrieved or every retrieved label is 0; NaN when the denominator is 0."""
    qrels = {doc_id: int(label) for doc_id, label in ground_truth}
    labels = [qrels.get(doc_id, 0) for doc_id in dict.fromkeys(doc_id for doc_id, _ in retrieved)]
    if not any(labels):
        return 0.0

    def weight_sum(values: list[int]) -> Fraction:
        return sum((Fraction(2) ** (v + 1) - 1 for v in values if v >= label_min + 1), Fraction(0))

    denominator = weight_sum(list(qrels.values()))
    return math.nan if denominator == 0 else float(weight_sum(labels) / denominator)


CASES = load_cases()
EXPRESSIBLE = [(case, args) for case in CASES if (args := oracle_args(case)) is not None]


def test_golden_file() -> None:
    """The vectors exist, come from one SDK version and have unique ids."""
    assert len(CASES) >= 250
    assert {case["sdk_version"] for case in CASES} == {"1.18.10"}
    assert len({case["case_id"] for case in CASES}) == len(CASES)
    assert all((case["output"] is None) != (case["error"] is None) for case in CASES)


@pytest.mark.parametrize(("case", "args"), EXPRESSIBLE, ids=[case["case_id"] for case, _ in EXPRESSIBLE])
def test_oracle_vs_sdk(case: dict[str, Any], args: dict[str, Any]) -> None:
    """Oracle equals SDK where the SDK is right; equals a direct computation where a tagged bug interferes."""
    bugs = set(case["bugs"])
    error = case["error"]
    if "nan_score" in bugs or (error is not None and error["type"] == "EvaluationException"):
        with pytest.raises(ValueError):
            reference_docret(**args)
        return

    result = reference_docret(**args)
    assert list(result) == ORACLE_KEYS
    expected_fidelity = direct_fidelity(args["ground_truth"], args["retrieved"], args["label_min"])
    if error is not None:
        assert bugs, f"untagged SDK crash: {error}"
        assert same(result["fidelity"], expected_fidelity)
        if "zero_division" in bugs:
            assert math.isnan(result["ndcg_exp@3"])
        return

    skipped = set().union(*(BUGGY_KEYS.get(bug, set()) for bug in bugs))
    properties = case["output"]["document_retrieval_properties"]
    for oracle_key, sdk_key in KEY_MAP.items():
        if oracle_key not in skipped:
            assert same(result[oracle_key], properties[sdk_key]), (oracle_key, result[oracle_key], properties[sdk_key])
    if "fidelity" in skipped:
        assert same(result["fidelity"], expected_fidelity)
