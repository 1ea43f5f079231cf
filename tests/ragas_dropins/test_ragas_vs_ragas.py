"""The ragas drop-ins against ragas 0.4.3 itself: every sample's value equal to the bit, column-wise and one by one."""

from __future__ import annotations

import asyncio
import math
import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")  # ragas reports each evaluation over the network otherwise
pytest.importorskip("rapidfuzz")
cp = pytest.importorskip("ragas.metrics._context_precision")
cr = pytest.importorskip("ragas.metrics._context_recall")
rs = pytest.importorskip("ragas.metrics._string")
SingleTurnSample = pytest.importorskip("ragas.dataset_schema").SingleTurnSample

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


def _same(ours: float, theirs: float) -> bool:
    return (math.isnan(ours) and math.isnan(theirs)) or ours == theirs


def _ragas(metric, sample: dict) -> float:
    return asyncio.run(metric.single_turn_ascore(SingleTurnSample(**sample)))


ids = st.one_of(st.integers(-3, 12), st.integers(-3, 12).map(str), st.sampled_from(["a", "b", "07"]))
id_lists = st.lists(ids, max_size=8)


@given(st.lists(st.tuples(id_lists, id_lists), min_size=1, max_size=6))
def test_id_based_equals_ragas(samples):
    # One column per field: the file form holds one kind of id per column, so the ints are written as text
    # where a column mixes them (ragas compares str(id) anyway); the drop-in takes the mix as it is.
    rows = [{"retrieved_context_ids": [str(i) for i in r], "reference_context_ids": [str(i) for i in f]} for r, f in samples]
    table = evaluate_samples(rows)
    for (retrieved, reference), (_, row) in zip(samples, table.iterrows()):
        sample = {"retrieved_context_ids": retrieved, "reference_context_ids": reference}
        for ours, theirs, column in ((IDBasedContextPrecision(), cp.IDBasedContextPrecision(), "id_based_context_precision"),
                                     (IDBasedContextRecall(), cr.IDBasedContextRecall(), "id_based_context_recall")):  # fmt: skip
            expected = _ragas(theirs, sample)
            assert _same(row[column], expected), (sample, column)
            assert _same(asyncio.run(ours.single_turn_ascore(sample)), expected), (sample, column)


def test_integer_ids_are_their_text():
    table = evaluate_samples([{"retrieved_context_ids": [1, 2, 2, 30], "reference_context_ids": [30, 4]}])
    assert table["id_based_context_precision"].tolist() == [1 / 3]
    assert table["id_based_context_recall"].tolist() == [0.5]


# Near matches: texts from a small alphabet, so that edits, transpositions and common prefixes are frequent.
texts = st.text(alphabet="abcé ", max_size=7)
measures = st.sampled_from(list(DistanceMeasure))


@given(st.lists(st.tuples(st.lists(texts, min_size=1, max_size=4), st.lists(texts, min_size=1, max_size=4)),
                min_size=1, max_size=5), measures, st.sampled_from([0.5, 0.3, 0.75]))  # fmt: skip
def test_non_llm_equal_ragas(samples, measure, threshold):
    rows = [{"retrieved_contexts": r, "reference_contexts": f} for r, f in samples]
    table = evaluate_samples(rows, distance=measure.value, precision_threshold=threshold, recall_threshold=threshold)
    theirs_measure = rs.DistanceMeasure(measure.value)
    precision = cp.NonLLMContextPrecisionWithReference(
        distance_measure=rs.NonLLMStringSimilarity(distance_measure=theirs_measure), threshold=threshold)  # fmt: skip
    recall = cr.NonLLMContextRecall(threshold=threshold)
    recall.distance_measure = theirs_measure
    ours_precision = NonLLMContextPrecisionWithReference(
        distance_measure=NonLLMStringSimilarity(distance_measure=measure), threshold=threshold)  # fmt: skip
    ours_recall = NonLLMContextRecall(threshold=threshold)
    ours_recall.distance_measure = measure
    for row, (_, scores) in zip(rows, table.iterrows()):
        expected_precision, expected_recall = _ragas(precision, row), _ragas(recall, row)
        assert scores["non_llm_context_precision_with_reference"] == expected_precision, row
        assert scores["non_llm_context_recall"] == expected_recall, row
    # The drop-ins one sample at a time, with ragas' own measure objects too.
    row = rows[0]
    assert ours_precision.single_turn_score(row) == _ragas(precision, row)
    assert NonLLMContextPrecisionWithReference(distance_measure=precision.distance_measure,
                                               threshold=threshold).single_turn_score(row) == _ragas(precision, row)  # fmt: skip
    assert asyncio.run(ours_recall.single_turn_ascore(row)) == _ragas(recall, row)


def test_thresholds_are_ragas_comparisons():
    # "ab" against "ac": Levenshtein similarity exactly 0.5: useful for precision (>=), not found for recall (>).
    row = {"retrieved_contexts": ["ab"], "reference_contexts": ["ac"]}
    assert NonLLMContextPrecisionWithReference().single_turn_score(row) == _ragas(cp.NonLLMContextPrecisionWithReference(), row) > 0
    assert NonLLMContextRecall().single_turn_score(row) == _ragas(cr.NonLLMContextRecall(), row) == 0.0


def test_empty_sides_where_ragas_raises():
    """ragas raises max() of an empty sequence; the definition gives 0 (nothing useful, nothing found)."""
    no_reference = {"retrieved_contexts": ["a", "b"], "reference_contexts": []}
    no_retrieved = {"retrieved_contexts": [], "reference_contexts": ["a"]}
    with pytest.raises(ValueError):
        _ragas(cp.NonLLMContextPrecisionWithReference(), no_reference)
    with pytest.raises(ValueError):
        _ragas(cr.NonLLMContextRecall(), no_retrieved)
    table = evaluate_samples([no_reference, no_retrieved, {"retrieved_contexts": [], "reference_contexts": []}])
    assert table["non_llm_context_precision_with_reference"].tolist() == [0.0, 0.0, 0.0]
    recall = table["non_llm_context_recall"].tolist()
    assert math.isnan(recall[0]) and recall[1] == 0.0 and math.isnan(recall[2])
    # Where ragas does answer (nothing retrieved: precision 0; no reference: recall NaN), the same.
    assert _ragas(cp.NonLLMContextPrecisionWithReference(), no_retrieved) == 0.0
    assert math.isnan(_ragas(cr.NonLLMContextRecall(), no_reference))


verdict_lists = st.lists(st.lists(st.integers(0, 1), max_size=40), min_size=1, max_size=8)


@given(verdict_lists)
def test_verdict_precision_equals_ragas(lists):
    offsets = np.concatenate(([0], np.cumsum([len(v) for v in lists])))
    flat = np.array([v for verdicts in lists for v in verdicts], dtype=np.int64)
    ours = average_precision(flat, offsets)
    llm = cp.LLMContextPrecisionWithReference()
    for value, verdicts in zip(ours, lists):
        assert value == cp.NonLLMContextPrecisionWithReference()._calculate_average_precision(verdicts)
        assert value == llm._calculate_average_precision([cp.Verification(reason="", verdict=v) for v in verdicts])
    table = evaluate_samples([{"verdicts": v} for v in lists])
    assert table["context_precision"].tolist() == ours.tolist()


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
