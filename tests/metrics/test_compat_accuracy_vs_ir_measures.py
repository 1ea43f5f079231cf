"""Compat and Accuracy against ir_measures 0.4.3's own compat and accuracy providers, per query and as means.

Random runs with ties (Compat orders them by ascending id, Accuracy in input order), labels -1..4,
queries on one side only, judged documents not retrieved. ir_measures' accuracy provider divides
by zero on a query whose top k is all relevant: that query is asked alone, and NaN is expected.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import retrieval_eval as rx
from tests.peer_collections import collections, frames

irm = pytest.importorskip("ir_measures")
COMPAT = irm.providers.registry["compat"]
ACCURACY = irm.providers.registry["accuracy"]

pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")


def _close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


@settings(max_examples=min(40, settings().max_examples), deadline=None)
@given(data=collections(distinct=False, always_judged=True), p=st.sampled_from([0.95, 0.5, 0.8, 1.0]), normalize=st.booleans())
def test_compat_per_query_and_mean(data, p, normalize):
    qrels, run = data
    qrels_frame, run_frame = frames(qrels, run)
    if run_frame.empty:
        return
    measure = irm.Compat(p=p, normalize=normalize)
    expected = {m.query_id: m.value for m in COMPAT.iter_calc([measure], qrels_frame, run_frame)}
    name = f"compat(p={p},normalize={str(normalize).lower()})"
    result = rx.evaluate(qrels_frame, run_frame, [name], query_set="qrels")
    values = dict(zip(result.query_ids.to_pylist(), result.values(name).tolist()))
    # ir_measures scores the judged queries, one the run lacks at the default 0, as here under query_set="qrels".
    assert values.keys() == expected.keys()
    for query, want in expected.items():
        assert _close(values[query], want), (query, values[query], want)
    aggregate = COMPAT.calc_aggregate([measure], qrels_frame, run_frame)[measure]
    assert math.isclose(math.fsum(values.values()) / len(values), aggregate, rel_tol=1e-12, abs_tol=1e-12)


def _accuracy_of(measure, qrels_frame, run_frame, query):
    """ir_measures' value for one query, NaN where it reports none or divides by zero."""
    try:
        got = [m.value for m in ACCURACY.iter_calc([measure], qrels_frame, run_frame[run_frame.query_id == query])]
    except ZeroDivisionError:
        return math.nan
    return got[0] if got else math.nan


@settings(max_examples=min(40, settings().max_examples), deadline=None)
@given(data=collections(distinct=False, always_judged=True), rel=st.integers(0, 3), k=st.sampled_from([None, 1, 3, 6]))
def test_accuracy_per_query_and_mean(data, rel, k):
    qrels, run = data
    qrels_frame, run_frame = frames(qrels, run)
    if run_frame.empty:
        return
    measure = irm.Accuracy(rel=rel) if k is None else irm.Accuracy(rel=rel) @ k
    name = f"accuracy(rel={rel})" + ("" if k is None else f"@{k}")
    result = rx.evaluate(qrels_frame, run_frame, [name], query_set="union")
    values = dict(zip(result.query_ids.to_pylist(), result.values(name).tolist()))
    for query in set(qrels) | set(run):
        want = _accuracy_of(measure, qrels_frame, run_frame, query)
        assert _close(values[query], want), (query, values[query], want)
    reported = [v for v in values.values() if not math.isnan(v)]
    try:
        aggregate = ACCURACY.calc_aggregate([measure], qrels_frame, run_frame)[measure]
    except ZeroDivisionError:
        return
    mean = math.fsum(reported) / len(reported) if reported else math.nan
    assert _close(mean, aggregate)


@settings(max_examples=min(15, settings().max_examples), deadline=None)
@given(data=collections(distinct=False, always_judged=True))
def test_the_provider_gives_ir_measures_values(data):
    """Through retrieval_eval's ir_measures provider: Compat with ir_measures' defaults for queries the run lacks,
    Accuracy only where ir_measures reports one (and its mean over those)."""
    from retrieval_eval.compat.ir_measures_provider import provider

    qrels, run = data
    qrels_frame, run_frame = frames(qrels, run)
    if run_frame.empty:
        return
    measures = [irm.Compat, irm.Compat(p=0.8, normalize=False), irm.Accuracy, irm.Accuracy(rel=2) @ 4]
    ours = {(m.measure, m.query_id): m.value for m in provider.iter_calc(measures, qrels_frame, run_frame)}
    theirs = {(m.measure, m.query_id): m.value for m in COMPAT.iter_calc(measures[:2], qrels_frame, run_frame)}
    for measure in measures[2:]:
        for query in run:
            value = _accuracy_of(measure, qrels_frame, run_frame, query)
            if not math.isnan(value):
                theirs[(measure, query)] = value
    assert ours.keys() == theirs.keys()
    for key, want in theirs.items():
        assert _close(ours[key], want), (str(key[0]), key[1], ours[key], want)
    aggregate = provider.calc_aggregate(measures, qrels_frame, run_frame)
    for measure in measures:
        values = [v for (m, _), v in theirs.items() if m == measure]
        assert _close(aggregate[measure], math.fsum(values) / len(values) if values else math.nan), str(measure)
