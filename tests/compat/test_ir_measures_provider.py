"""The ir_measures provider against ir_measures' own providers, on random data and on the cases where they differ.

ir_measures' values come from its default pipeline without this provider: pytrec_eval for most
measures, ``judged`` for Judged, ``msmarco`` for RR@k. pytrec_eval 0.5.11 keeps scores as 32-bit
floats, so the random scores are exact in float32 (with ties: trec_eval's order is then both
sides'); ``judged`` and ``msmarco`` order equal scores by ascending document id, so their
measures are compared on rankings without equal scores. Each documented difference has a test.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import ConfigError, InputError

irm = pytest.importorskip("ir_measures")
from ir_measures import (  # noqa: E402  (after the skip)
    AP,
    ERR,
    MAP,
    NDCG,
    RR,
    SDCG,
    Bpref,
    IPrec,
    Judged,
    NumQ,
    NumRel,
    NumRelRet,
    NumRet,
    P,
    R,
    Rprec,
    SetAP,
    SetF,
    SetP,
    SetR,
    SetRelP,
    Success,
    infAP,
    nDCG,
)

from retrieval_eval.compat import ir_measures_provider  # noqa: E402
from retrieval_eval.compat.ir_measures_provider import RetrievalEvalEvaluator, provider, register, unregister  # noqa: E402
from tests.peer_collections import collections, frames  # noqa: E402


def pytrec_eval_measures(rel: int) -> list:
    """Measures ir_measures gives to pytrec_eval, where pytrec_eval agrees with trec_eval 10.

    Those with judged_only=True are asked apart (see the test of NumRet beside them).
    """
    at = {"rel": rel}
    return [
        AP(**at), AP(**at) @ 3, MAP @ 10, Bpref(**at), infAP(**at), nDCG, NDCG @ 5, NumRel, NumRet, NumRet(**at), NumRelRet, NumQ,
        P(**at) @ 5, R(**at) @ 3, RR(**at),
        Rprec(**at), SetAP(**at), SetF(**at), SetF(beta=0.5, **at), SetP(**at), SetRelP(**at), SetR(**at),
        Success(**at) @ 2, IPrec(**at) @ 0.0, IPrec(**at) @ 1.0,
    ]


def judged_only_measures(rel: int) -> list:
    ranked = {"rel": rel, "judged_only": True}
    return [AP(**ranked), P(**ranked) @ 5, RR(**ranked), nDCG(judged_only=True) @ 5, SetF(**ranked), Success(**ranked) @ 3]


def per_query(metrics) -> dict:
    values = {}
    for metric in metrics:
        key = (metric.measure, metric.query_id)
        assert key not in values, key  # each measure once per query
        values[key] = metric.value
    return values


def assert_same(ours: dict, theirs: dict) -> None:
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        assert math.isclose(ours[key], value, rel_tol=0, abs_tol=1e-12), (str(key[0]), key[1], ours[key], value)


def agree(measures: list, qrels: dict, run: dict) -> None:
    """Per query and aggregated, this provider's values are ir_measures' own (its pipeline without this provider)."""
    qrels_frame, run_frame = frames(qrels, run)
    if run_frame.empty or qrels_frame.empty:
        return
    assert all(provider.supports(measure) for measure in measures)
    assert_same(per_query(provider.iter_calc(measures, qrels_frame, run_frame)),
                per_query(irm.iter_calc(measures, qrels_frame, run_frame)))
    ours = provider.calc_aggregate(measures, qrels_frame, run_frame)
    theirs = irm.calc_aggregate(measures, qrels_frame, run_frame)
    assert set(ours) == set(theirs)
    for measure, value in theirs.items():
        # ir_measures adds in its order; ours is exactly rounded.
        assert math.isclose(ours[measure], value, rel_tol=1e-14, abs_tol=1e-15), (str(measure), ours[measure], value)


@given(data=collections(distinct=False), rel=st.integers(1, 3))
def test_the_measures_of_pytrec_eval_are_ir_measures_own_values(data, rel):
    agree(pytrec_eval_measures(rel), *data)


@given(data=collections(distinct=False), rel=st.integers(1, 3))
def test_judged_only_is_ir_measures_own(data, rel):
    agree(judged_only_measures(rel), *data)


@given(data=collections(distinct=False), gains=st.dictionaries(st.integers(0, 4), st.integers(0, 6), max_size=4))
def test_ndcg_with_a_gain_map_is_ir_measures_own_value(data, gains):
    # Alone: ir_measures computes nDCG and nDCG(gains=...) asked together wrongly (see the test of that case).
    agree([nDCG(gains=gains)], *data)


@given(data=collections(distinct=True), cutoff=st.integers(1, 12))
def test_judged_and_rr_at_k_are_ir_measures_own_values_without_equal_scores(data, cutoff):
    agree([Judged @ cutoff, RR @ cutoff, RR(rel=2) @ cutoff], *data)


@given(data=collections(distinct=False))
def test_every_input_form_of_ir_measures_gives_the_same_values(data):
    qrels, run = data
    qrels_frame, run_frame = frames(qrels, run)
    if run_frame.empty:
        return
    measures = [nDCG @ 5, AP(rel=2), NumQ, NumRet]
    forms = [
        (qrels, run),
        (qrels_frame, run_frame),
        ([irm.Qrel(*row) for row in qrels_frame.itertuples(index=False)],
         [irm.ScoredDoc(*row) for row in run_frame.itertuples(index=False)]),
        # Generators: ir_measures peeks at the first item and tees them.
        ((irm.Qrel(*row) for row in qrels_frame.itertuples(index=False)),
         (irm.ScoredDoc(*row) for row in run_frame.itertuples(index=False))),
    ]
    results = [per_query(provider.iter_calc(measures, q, r)) for q, r in forms]
    for result in results[1:]:
        assert result == results[0]


def test_the_evaluator_indexes_the_qrels_once_for_any_number_of_runs():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    evaluator = provider.evaluator([P @ 1, NumQ], qrels)
    assert isinstance(evaluator, RetrievalEvalEvaluator)
    assert evaluator.calc_aggregate({"q1": {"a": 2.0, "b": 1.0}}) == {P @ 1: 0.5, NumQ: 1.0}
    assert evaluator.calc_aggregate({"q1": {"a": 1.0, "b": 2.0}, "q2": {"c": 1.0}}) == {P @ 1: 0.5, NumQ: 2.0}


def test_a_judged_query_the_run_lacks_takes_the_default_and_an_unjudged_one_is_left_out():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}, "q3": {"x": 1.0}}
    values = per_query(provider.iter_calc([P @ 1, NumQ, NumRel], qrels, run))
    assert values == {(P @ 1, "q1"): 1.0, (P @ 1, "q2"): 0.0, (NumQ, "q1"): 1.0, (NumQ, "q2"): 0.0,
                      (NumRel, "q1"): 1.0, (NumRel, "q2"): 0.0}
    assert values == per_query(irm.iter_calc([P @ 1, NumQ, NumRel], qrels, run))


def test_empty_qrels_or_run_score_only_defaults():
    assert provider.calc_aggregate([P @ 5, NumQ], {"q": {"a": 1}}, pd.DataFrame([], columns=["query_id", "doc_id", "score"])) == {
        P @ 5: 0.0, NumQ: 0.0}
    aggregated = provider.calc_aggregate([P @ 5, NumQ], pd.DataFrame([], columns=["query_id", "doc_id", "relevance"]), {"q": {"a": 1.0}})
    assert math.isnan(aggregated[P @ 5]) and aggregated[NumQ] == 0.0
    assert math.isnan(irm.calc_aggregate([P @ 5], {}, {"q": {"a": 1.0}})[P @ 5])


def test_it_supports_exactly_the_measures_with_a_registry_metric():
    for measure in pytrec_eval_measures(2) + [Judged @ 5, RR @ 10, nDCG(dcg="exp-log2") @ 10, NumRel(rel=2), IPrec @ 0.3,
                                                 irm.Compat, irm.Accuracy @ 5, ERR @ 10, irm.RBP, irm.alpha_nDCG @ 20,
                                                 SDCG(max_rel=3) @ 10]:
        assert provider.supports(measure), measure
    for measure in [nDCG(gains={1: 2}) @ 10, nDCG(gains={1: 2}, dcg="exp-log2"), Judged, irm.RBP @ 5]:
        assert not provider.supports(measure), measure


# The documented differences.

def test_scores_are_64_bit_where_pytrec_eval_rounds_them_to_32_bits():
    qrels = {"q": {"a": 0, "z": 1}}
    run = {"q": {"a": 1.0 + 1e-9, "z": 1.0}}  # equal in float32: a tie, and trec_eval's order puts z first
    assert irm.calc_aggregate([RR], qrels, run)[RR] == 1.0
    assert provider.calc_aggregate([RR], qrels, run)[RR] == 0.5


def test_iprec_is_trec_eval_10_s_where_pytrec_eval_has_trec_eval_9_s():
    # num_rel = 2, ranking x1 r0 x0. IPrec@0.6 is the best precision at or after the c-th relevant document:
    # trec_eval 10's c = round(0.6 * 2) = 1 (rank 2: 1/2); trec_eval 9's c = (long)(0.6 * 2 + 0.9) = 2, never retrieved: 0.
    qrels = {"q": {"r0": 1, "r1": 1}}
    run = {"q": {"x1": 3.0, "r0": 2.0, "x0": 1.0}}
    assert provider.calc_aggregate([IPrec @ 0.6], qrels, run) == {IPrec @ 0.6: 0.5}
    assert irm.calc_aggregate([IPrec @ 0.6], qrels, run) == {IPrec @ 0.6: 0.0}
    # At recall 0 and 1 both are the same c (0 and num_rel): the random tests compare them.


def test_equal_scores_are_ordered_by_descending_document_id_where_judged_and_msmarco_order_them_ascending():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.0}}
    # trec_eval: b before a. ir_measures' msmarco provider: a before b.
    assert irm.calc_aggregate([RR @ 5], qrels, run)[RR @ 5] == 1.0
    assert provider.calc_aggregate([RR @ 5], qrels, run)[RR @ 5] == 0.5
    assert provider.calc_aggregate([RR], qrels, run)[RR] == irm.calc_aggregate([RR], qrels, run)[RR] == 0.5
    run = {"q": {"a": 1.0, "x": 1.0}}
    assert irm.calc_aggregate([Judged @ 1], qrels, run)[Judged @ 1] == 1.0
    assert provider.calc_aggregate([Judged @ 1], qrels, run)[Judged @ 1] == 0.0


def test_exponential_ndcg_at_k_is_unrounded_where_gdeval_prints_five_decimals():
    if not irm.gdeval.is_available():
        pytest.skip("gdeval needs perl")
    qrels = {"1": {"a": 1, "b": 2, "c": 3}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    ours, theirs = (provider.calc_aggregate([nDCG(dcg="exp-log2") @ 3], qrels, run),
                    irm.calc_aggregate([nDCG(dcg="exp-log2") @ 3], qrels, run))
    value = ours[nDCG(dcg="exp-log2") @ 3]
    # DCG = 1/1 + 3/log2(3) + 7/2, ideal = 7 + 3/log2(3) + 1/2.
    assert value == (1 + 3 / math.log2(3) + 7 / 2) / (7 + 3 / math.log2(3) + 1 / 2)
    assert theirs[nDCG(dcg="exp-log2") @ 3] == round(value, 5) != value


def test_a_repeated_document_is_an_error_or_the_policy_asked_for():
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "relevance": [0, 1]})
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(InputError, match="row 2.*judged more than once"):
        provider.calc_aggregate([P @ 1], qrels, run)
    last = ir_measures_provider.RetrievalEvalProvider(duplicates="last")
    assert last.calc_aggregate([P @ 1], qrels, run) == irm.calc_aggregate([P @ 1], qrels, run) == {P @ 1: 1.0}
    with pytest.raises(ConfigError, match="duplicates must be one of"):
        ir_measures_provider.RetrievalEvalProvider(duplicates="mean")


def test_ndcg_asked_with_and_without_a_gain_map_is_each_its_own():
    # ir_measures 0.4.3's pytrec_eval provider puts plain nDCG into the invocation of the gain map asked first,
    # and reports each under the other's name.
    qrels, run = {"q": {"d": 0}}, {"q": {"d": 1.0}}
    both = [nDCG(gains={0: 1}), nDCG]
    assert provider.calc_aggregate(both, qrels, run) == {nDCG(gains={0: 1}): 1.0, nDCG: 0.0}
    assert irm.pytrec_eval.calc_aggregate(both, qrels, run) == {nDCG(gains={0: 1}): 0.0, nDCG: 1.0}
    assert irm.pytrec_eval.calc_aggregate(both[:1], qrels, run) == {nDCG(gains={0: 1}): 1.0}


def test_numret_and_numq_beside_a_judged_only_measure_count_every_retrieved_document():
    # ir_measures 0.4.3's pytrec_eval provider computes NumRet and NumQ in the first invocation it built, which is
    # judged_only's when such a measure came first (ir_measures' pipeline orders measures as a set: by chance).
    qrels, run = {"q": {"a": 0}}, {"q": {"x": 2.0, "a": 1.0}}
    measures = [P(judged_only=True) @ 5, NumRet]
    assert provider.calc_aggregate(measures, qrels, run) == {P(judged_only=True) @ 5: 0.0, NumRet: 2.0}
    assert irm.pytrec_eval.calc_aggregate(measures, qrels, run) == {P(judged_only=True) @ 5: 0.0, NumRet: 1.0}
    assert irm.pytrec_eval.calc_aggregate([NumRet], qrels, run) == {NumRet: 2.0}


def test_a_query_whose_labels_are_all_negative_is_scored():
    # pytrec_eval 0.5.11 crashes or loops on this query; trec_eval 10 scores it: nothing relevant, every measure 0.
    values = provider.calc_aggregate([AP, P @ 2, NumRel, Bpref], {"q": {"a": -1, "b": -2}}, {"q": {"a": 1.0, "c": 0.5}})
    assert values == {AP: 0.0, P @ 2: 0.0, NumRel: 0.0, Bpref: 0.0}


def test_an_input_ir_measures_cannot_read_is_its_own_error():
    with pytest.raises(ValueError, match="unknown run format"):
        provider.calc_aggregate([P @ 5], {"q": {"a": 1}}, 42)
    with pytest.raises(ValueError, match="unknown qrels format"):
        provider.calc_aggregate([P @ 5], pd.DataFrame({"qid": ["q"], "docno": ["a"], "label": [1]}), {"q": {"a": 1.0}})


# Selecting the provider.

@pytest.fixture
def registered():
    before = list(irm.DefaultPipeline.providers)
    register()
    try:
        yield
    finally:
        unregister()
        assert irm.DefaultPipeline.providers == before and "retrieval_eval" not in irm.providers.registry


def test_importing_the_module_registers_nothing():
    code = (
        "import ir_measures; before = [p.NAME for p in ir_measures.DefaultPipeline.providers]; "
        "import retrieval_eval.compat.ir_measures_provider; "
        "print(before == [p.NAME for p in ir_measures.DefaultPipeline.providers], 'retrieval_eval' in ir_measures.providers.registry)"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split() == ["True", "False"]


def test_importing_retrieval_eval_does_not_import_ir_measures():
    code = "import sys, retrieval_eval, retrieval_eval.compat; print('ir_measures' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


def test_registered_it_is_ir_measures_default_and_the_others_take_the_rest(registered):
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    assert irm.providers.registry["retrieval_eval"] is provider
    assert isinstance(irm.evaluator([P @ 1, NumRel(rel=2)], qrels), RetrievalEvalEvaluator)
    # NumRel(rel=2) has no other provider in ir_measures.
    assert irm.calc_aggregate([NumRel(rel=2)], qrels, run) == {NumRel(rel=2): 0.0}
    values = dict(irm.calc_aggregate([P @ 1, nDCG(gains={1: 2}) @ 2], qrels, run))
    # P@1 is ours (a first: 1.0 + 1e-9 is above 1.0 here); nDCG with gains and a cutoff is pytrec_eval's, whose
    # 32-bit scores tie a and b and rank b (the larger id) first: DCG 2 / log2(3) against 2.
    assert values == {P @ 1: 1.0, nDCG(gains={1: 2}) @ 2: 1 / math.log2(3)}
    assert [m.value for m in irm.iter_calc([P @ 1], qrels, run)] == [1.0]
    register()  # a second time changes nothing
    assert [p.NAME for p in irm.DefaultPipeline.providers].count("retrieval_eval") == 1


def test_register_without_default_only_names_it():
    before = list(irm.DefaultPipeline.providers)
    try:
        register(default=False)
        assert irm.providers.registry["retrieval_eval"] is provider and irm.DefaultPipeline.providers == before
    finally:
        unregister()


def test_pyterrier_s_experiment_scores_with_it(registered):
    pt = pytest.importorskip("pyterrier")
    results = pd.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["a", "b", "c", "d"], "score": [2.0, 1.0, 1.0, 0.5]})
    qrels = pd.DataFrame({"qid": ["1", "1", "2", "3"], "docno": ["a", "b", "c", "z"], "label": [1, 0, 2, 1]})
    topics = pd.DataFrame({"qid": ["1", "2", "3"], "query": ["x", "y", "z"]})

    def both(systems, topics, **options):
        """pt.Experiment with this provider registered, and with ir_measures' own providers."""
        ours = pt.Experiment(systems, topics, qrels, names=["run"], **options)
        unregister()
        try:
            theirs = pt.Experiment(systems, topics, qrels, names=["run"], **options)
        finally:
            register()
        return ours, theirs

    measures = [nDCG @ 10, P @ 5, "map", AP(rel=2), NumQ]
    table, expected = both([results], topics, eval_metrics=measures)
    pd.testing.assert_frame_equal(table[sorted(table.columns)], expected[sorted(expected.columns)])
    assert table.loc[0, "AP(rel=2)"] == pytest.approx(1 / 3) and table.loc[0, "NumQ"] == 2
    # A transformer, per query, in batches (pyterrier scores each batch's queries apart).
    by_query, expected = both([pt.Transformer.from_df(results)], topics[:2], eval_metrics=[nDCG @ 10, P @ 1],
                              perquery=True, batch_size=1)
    assert sorted(by_query.itertuples(index=False, name=None)) == sorted(expected.itertuples(index=False, name=None)) == [
        ("run", "1", "P@1", 1.0), ("run", "1", "nDCG@10", 1.0), ("run", "2", "P@1", 1.0), ("run", "2", "nDCG@10", 1.0),
    ]


def test_a_measure_object_keeps_its_name_in_the_results():
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0}}
    assert set(provider.calc_aggregate([MAP, AP, NDCG @ 3, nDCG @ 3], qrels, run)) == {AP, nDCG @ 3}
    assert np.isfinite(list(provider.calc_aggregate([SetR, SetRelP], qrels, run).values())).all()
