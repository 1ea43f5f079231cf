"""The ragas drop-ins: against ragas 0.4.3's recorded values (every sample's value equal to the bit), and without ragas.

``tests/data/ragas_golden.jsonl`` is produced by ``tests/golden/make_ragas_vectors.py`` (its docstring says
what the cases are); tests/ragas_dropins/test_ragas_vs_ragas.py compares with ragas live where it is
installed, on cases hypothesis draws the same way. Each recorded table is scored column-wise by
``evaluate_samples`` and one sample at a time by the drop-ins' ``single_turn_score`` and
``single_turn_ascore``; where ragas raises (max() of an empty sequence), the definition gives its value
(:func:`test_empty_sides_where_ragas_raises`). The other tests here need no ragas values: the summations,
bad input, integer ids, the samples as qrels and run.
"""

from __future__ import annotations

import asyncio
import json
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("rapidfuzz")

from retrieval_eval.errors import InputError  # noqa: E402
from retrieval_eval.ragas import (  # noqa: E402
    DistanceMeasure,
    IDBasedContextPrecision,
    IDBasedContextRecall,
    NonLLMContextPrecisionWithReference,
    NonLLMContextRecall,
    NonLLMStringSimilarity,
    average_precision,
    evaluate_samples,
)
from retrieval_eval.ragas.verdict_precision import COMPENSATED_SUM  # noqa: E402

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "ragas_golden.jsonl"

ids = st.one_of(st.integers(-3, 12), st.integers(-3, 12).map(str), st.sampled_from(["a", "b", "07"]))
id_lists = st.lists(ids, max_size=8)
verdict_lists = st.lists(st.lists(st.integers(0, 1), max_size=40), min_size=1, max_size=8)


@cache
def cases(kind: str) -> list[dict]:
    with GOLDEN.open(encoding="utf-8") as lines:
        return [case for case in map(json.loads, lines) if case["kind"] == kind]


def _same(ours: float, recorded: object) -> bool:
    theirs = float.fromhex(recorded)
    return (math.isnan(ours) and math.isnan(theirs)) or ours == theirs


def test_the_vectors_are_complete():
    assert [len(cases(kind)) for kind in ("ids", "strings", "verdicts")] == [300, 304, 200]
    assert {case["ragas_version"] for kind in ("ids", "strings", "verdicts") for case in cases(kind)} == {"0.4.3"}
    assert {(case["distance"], case["threshold"]) for case in cases("strings")} == {
        (measure.value, threshold) for measure in DistanceMeasure for threshold in (0.3, 0.5, 0.75)}  # fmt: skip


def test_id_based_equals_ragas():
    for case in cases("ids"):
        # One column per field: the file form holds one kind of id per column, so the ints are written as text
        # (ragas compares str(id) anyway); the drop-ins take the mix as it is.
        rows = [{field: [str(i) for i in ids] for field, ids in sample.items()} for sample in case["samples"]]
        table = evaluate_samples(rows)
        for sample, (_, row), expected in zip(case["samples"], table.iterrows(), case["expected"]):
            for ours, column in ((IDBasedContextPrecision(), "id_based_context_precision"),
                                 (IDBasedContextRecall(), "id_based_context_recall")):  # fmt: skip
                assert _same(row[column], expected[column]), (case["case_id"], column)
                assert _same(asyncio.run(ours.single_turn_ascore(sample)), expected[column]), (case["case_id"], column)


def test_non_llm_equal_ragas():
    for case in cases("strings"):
        measure, threshold = DistanceMeasure(case["distance"]), case["threshold"]
        rows = case["samples"]
        precision = NonLLMContextPrecisionWithReference(
            distance_measure=NonLLMStringSimilarity(distance_measure=measure), threshold=threshold)  # fmt: skip
        recall = NonLLMContextRecall(threshold=threshold)
        recall.distance_measure = measure
        answered = [i for i, expected in enumerate(case["expected"]) if not any(isinstance(v, dict) for v in expected.values())]
        if not answered:
            continue  # ragas raised: the definition's value is tested where ragas' exception is
        table = evaluate_samples(rows, distance=measure.value, precision_threshold=threshold, recall_threshold=threshold)
        for i in answered:
            expected, scores = case["expected"][i], table.iloc[i]
            for column in ("non_llm_context_precision_with_reference", "non_llm_context_recall"):
                assert _same(scores[column], expected[column]), (case["case_id"], i, column)
            assert _same(precision.single_turn_score(rows[i]), expected["non_llm_context_precision_with_reference"])
            assert _same(asyncio.run(recall.single_turn_ascore(rows[i])), expected["non_llm_context_recall"])


def test_ragas_raises_where_a_side_is_empty():
    # Recorded: ragas raises max() of an empty sequence (ValueError) for precision without a reference and for
    # recall with nothing retrieved, and answers the other side.
    raised = {(tuple(map(bool, (s["retrieved_contexts"], s["reference_contexts"]))), column): value
              for case in cases("strings") for s, expected in zip(case["samples"], case["expected"])
              for column, value in expected.items() if isinstance(value, dict)}  # fmt: skip
    assert raised == {((True, False), "non_llm_context_precision_with_reference"): {"raises": "ValueError"},
                      ((False, True), "non_llm_context_recall"): {"raises": "ValueError"}}  # fmt: skip


def test_empty_sides_where_ragas_raises():
    """ragas raises max() of an empty sequence (recorded); the definition gives 0 (nothing useful, nothing found)."""
    no_reference = {"retrieved_contexts": ["a", "b"], "reference_contexts": []}
    no_retrieved = {"retrieved_contexts": [], "reference_contexts": ["a"]}
    table = evaluate_samples([no_reference, no_retrieved, {"retrieved_contexts": [], "reference_contexts": []}])
    assert table["non_llm_context_precision_with_reference"].tolist() == [0.0, 0.0, 0.0]
    recall = table["non_llm_context_recall"].tolist()
    assert math.isnan(recall[0]) and recall[1] == 0.0 and math.isnan(recall[2])
    # Where ragas does answer (nothing retrieved: precision 0; no reference: recall NaN), the same.
    recorded = {json.dumps(case["samples"][0]): case["expected"][0] for case in cases("strings") if len(case["samples"]) == 1}
    assert recorded[json.dumps(no_retrieved)]["non_llm_context_precision_with_reference"] == (0.0).hex()
    assert recorded[json.dumps(no_reference)]["non_llm_context_recall"] == "nan"


def test_verdict_precision_equals_ragas():
    for case in cases("verdicts"):
        lists = case["verdicts"]
        offsets = np.concatenate(([0], np.cumsum([len(v) for v in lists])))
        flat = np.array([v for verdicts in lists for v in verdicts], dtype=np.int64)
        ours = average_precision(flat, offsets)
        for value, expected in zip(ours, case["expected"]):
            assert _same(value, expected["non_llm"]) and _same(value, expected["llm"]), case["case_id"]
        table = evaluate_samples([{"verdicts": v} for v in lists])
        assert table["context_precision"].tolist() == ours.tolist()


def test_integer_ids_are_their_text():
    table = evaluate_samples([{"retrieved_context_ids": [1, 2, 2, 30], "reference_context_ids": [30, 4]}])
    assert table["id_based_context_precision"].tolist() == [1 / 3]
    assert table["id_based_context_recall"].tolist() == [0.5]


def _neumaier(terms: list[float]) -> float:
    """Python 3.12's sum of floats (Neumaier's compensation), for the build this Python does not run."""
    total = compensation = 0.0
    for x in terms:
        t = total + x
        compensation += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
        total = t
    return total + compensation if compensation and math.isfinite(compensation) else total


@given(verdict_lists)
def test_both_summations(lists):
    offsets = np.concatenate(([0], np.cumsum([len(v) for v in lists])))
    flat = np.array([v for verdicts in lists for v in verdicts], dtype=np.int64)
    for compensated in (False, True):
        total = _neumaier if compensated else sum
        expected = [total([(sum(v[: i + 1]) / (i + 1)) * v[i] for i in range(len(v))]) / (sum(v) + 1e-10) for v in lists]
        assert average_precision(flat, offsets, compensated=compensated).tolist() == expected
    assert COMPENSATED_SUM == (_neumaier([0.1] * 10) == sum([0.1] * 10))


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"verdicts": [1, 2]}, "row 1, field 'verdicts': a verdict is 0 or 1, got 2"),
        ({"retrieved_contexts": ["a", 3], "reference_contexts": ["a"]}, "field 'retrieved_contexts': mixed"),
        ({"retrieved_contexts": "abc", "reference_contexts": ["a"]}, "field 'retrieved_contexts': expected a list"),
        ({"retrieved_context_ids": [1.5], "reference_context_ids": [1]}, "field 'retrieved_context_ids'"),
        ({"retrieved_contexts": [None], "reference_contexts": ["a"]}, "field 'retrieved_contexts': 1 missing (null)"),
    ],
)
def test_bad_input_is_one_line_naming_the_field(row, message):
    with pytest.raises(InputError) as caught:
        evaluate_samples([row])
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_metric_without_its_field_is_named():
    with pytest.raises(InputError, match="non_llm_context_recall needs the field 'retrieved_contexts'"):
        evaluate_samples([{"retrieved_context_ids": [1], "reference_context_ids": [1]}], ["non_llm_context_recall"])
    with pytest.raises(InputError, match="needs the sample's 'reference_context_ids'"):
        IDBasedContextRecall().single_turn_score({"retrieved_context_ids": [1]})


@pytest.mark.filterwarnings("ignore:no judged query")  # samples that share no id: every score is 0, as intended
@given(st.lists(st.tuples(id_lists, id_lists), min_size=1, max_size=6))
def test_id_based_as_qrels_and_run_gives_set_precision_and_recall(samples):
    from retrieval_eval import evaluate
    from retrieval_eval.ragas import samples_as_qrels_run

    rows = [{"id": f"q{i}", "retrieved_context_ids": [str(v) for v in r], "reference_context_ids": [str(v) for v in f]}
            for i, (r, f) in enumerate(samples)]  # fmt: skip
    expected = evaluate_samples(rows).set_index("id")
    both = [row["id"] for row in rows if row["retrieved_context_ids"] and row["reference_context_ids"]]
    if not any(row["reference_context_ids"] for row in rows):
        return  # no qrels at all: nothing to evaluate against
    qrels, run = samples_as_qrels_run(rows)
    per_query = evaluate(qrels, run, ["set_precision", "set_recall"]).per_query.set_index("query_id")
    assert sorted(per_query.index) == sorted(both)
    for query in both:
        assert per_query.loc[query, "set_precision"] == expected.loc[query, "id_based_context_precision"]
        assert per_query.loc[query, "set_recall"] == expected.loc[query, "id_based_context_recall"]
