"""The ragas drop-ins against ragas 0.4.3 itself: every sample's value equal to the bit, column-wise and one by one.

Runs where ragas is installed: tests/ragas_dropins/test_dropins.py replays its recorded values without
ragas (tests/golden/make_ragas_vectors.py records them), and holds the tests that need no ragas.
"""

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
from tests.ragas_dropins.test_dropins import id_lists, verdict_lists  # noqa: E402


def _same(ours: float, theirs: float) -> bool:
    return (math.isnan(ours) and math.isnan(theirs)) or ours == theirs


def _ragas(metric, sample: dict) -> float:
    return asyncio.run(metric.single_turn_ascore(SingleTurnSample(**sample)))




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
