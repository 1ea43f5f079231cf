"""The peers' names mean what the peers compute: each spelling's registry metric against ir_measures and ranx on random data.

ir_measures' values come from its own default providers (pytrec_eval for most measures, ``judged``
for Judged, ``msmarco`` for RR@k, ranx for nDCG(dcg='exp-log2'), gdeval for it at a cutoff).
pytrec_eval 0.5.11 keeps scores as 32-bit floats, so the scores here are exact in float32 (its
ties are then trec_eval's); ``judged`` and ``msmarco`` order equal scores by ascending document
id, ranx by input order, where trec_eval's order is descending: their measures are compared on
rankings without equal scores. Queries are compared where both sides score them (ir_measures
gives a judged query the run lacks its measure's default, 0; see the provider's tests).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import REGISTRY, evaluate
from retrieval_eval.metrics.spellings.peers import parse_peer
from tests.peer_collections import DOCS, GRID, collections
from tests.peer_collections import frames as nested_frames

irm = pytest.importorskip("ir_measures")
ranx = pytest.importorskip("ranx")



# ir_measures measures (built from its objects) computed by pytrec_eval, at a relevance level. Those with
# judged_only=True and those with a gain map are asked apart: ir_measures 0.4.3 computes NumRet, NumQ and plain
# nDCG in whichever pytrec_eval invocation it built first (its measures come as a set, in no set order).
def _pytrec_eval_measures(rel: int) -> list:
    at = {"rel": rel}
    return [
        irm.AP(**at), irm.AP(**at) @ 3, irm.Bpref(**at), irm.infAP(**at), irm.nDCG, irm.nDCG @ 5, irm.NumRel, irm.NumRet, irm.NumRet(**at),
        irm.NumRelRet, irm.P(**at) @ 5, irm.R(**at) @ 3, irm.RR(**at), irm.Rprec(**at), irm.SetAP(**at),
        irm.SetF(**at), irm.SetF(beta=0.5, **at), irm.SetP(**at), irm.SetRelP(**at), irm.SetR(**at),
        irm.Success(**at) @ 2,
    ]


def frames(qrels: dict, run: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The collections as ir_measures' frames (object columns: ranx's readers refuse pandas' string dtype)."""
    ids = {"query_id": object, "doc_id": object}
    qrels_frame, run_frame = nested_frames(qrels, run)
    return qrels_frame.astype(ids), run_frame.astype(ids)


def metric_of(name: str):
    """The registry metric a name means: a peer's spelling, else the registry's own."""
    return parse_peer(name, rel_level=1, default_k=None) or REGISTRY.parse(name)


def ir_measures_values(measures: list, qrels: pd.DataFrame, run: pd.DataFrame) -> dict:
    """{(measure, query): value} from ir_measures' own default providers."""
    return {(m.measure, m.query_id): m.value for m in irm.iter_calc(measures, qrels, run)}


def agree(measures: list, qrels: dict, run: dict, *, judged_only: bool = False, abs_tol: float = 1e-12) -> None:
    """Every measure's value per query from ir_measures equals that of the registry metric its name means.

    The measures are given to ``evaluate`` as ir_measures' objects; judged_only=True is an option
    of the evaluation here, so those measures are given without it and the evaluation takes it.
    """
    qrels_frame, run_frame = frames(qrels, run)
    if run_frame.empty:
        return
    expected = ir_measures_values(measures, qrels_frame, run_frame)
    asked = [m(judged_only=False) if judged_only else m for m in measures]
    result = evaluate(qrels_frame, run_frame, asked, query_set="both", judged_only=judged_only)
    for measure, name in zip(measures, asked):
        metric = metric_of(str(name))
        for query, value in zip(result.query_ids.to_pylist(), result.values(metric)):
            want = expected[(measure, query)]
            assert math.isclose(value, want, rel_tol=0, abs_tol=abs_tol), (str(measure), str(metric), query, value, want)


@given(data=collections(always_judged=True, distinct=False), rel=st.integers(1, 3))
def test_the_measures_of_pytrec_eval_equal_their_registry_metrics(data, rel):
    agree(_pytrec_eval_measures(rel), *data)


@given(data=collections(always_judged=True, distinct=False), gains=st.dictionaries(st.integers(0, 4), st.integers(0, 6), max_size=4))
def test_ndcg_with_a_gain_map_equals_ndcg_with_gains(data, gains):
    # Alone: ir_measures 0.4.3 mixes up nDCG and nDCG(gains=...) asked together (the provider's tests show it).
    agree([irm.nDCG(gains=gains)], *data)


@given(data=collections(always_judged=True, distinct=False), rel=st.integers(1, 3))
def test_judged_only_is_trec_eval_s_minus_j(data, rel):
    at = {"rel": rel, "judged_only": True}
    measures = [irm.AP(**at), irm.P(**at) @ 5, irm.RR(**at), irm.nDCG(judged_only=True) @ 5, irm.SetF(**at), irm.Success(**at) @ 3]
    agree(measures, *data, judged_only=True)


@given(data=collections(always_judged=True, distinct=True), cutoff=st.integers(1, 12))
def test_judged_and_msmarco_s_rr_at_k_equal_their_registry_metrics(data, cutoff):
    # Negative labels are judged (in the qrels) for Judged, as for judged@k.
    agree([irm.Judged @ cutoff, irm.RR @ cutoff, irm.RR(rel=2) @ cutoff], *data)


# ir_measures' ranx provider fails unless the run has every judged query, and the run only those.
@pytest.mark.filterwarnings("ignore::numba.NumbaPerformanceWarning")
@settings(max_examples=40)
@given(data=collections(always_judged=True, distinct=True, one_sided=False))
def test_exponential_ndcg_equals_ndcg_burges(data):
    # ranx computes nDCG(dcg='exp-log2') without a cutoff; gdeval (perl) with one, printing 5 decimals.
    agree([irm.nDCG(dcg="exp-log2")], *data)


needs_perl = pytest.mark.skipif(not irm.gdeval.is_available(), reason="gdeval needs perl")


@needs_perl
@settings(max_examples=40)
@given(data=collections(always_judged=True, distinct=True, numeric_ids=True, labels=st.integers(-1, 4)), cutoff=st.integers(1, 12))
def test_gdeval_s_ndcg_at_k_equals_ndcg_burges_at_k_to_its_five_decimals(data, cutoff):
    agree([irm.nDCG(dcg="exp-log2") @ cutoff], *data, abs_tol=5e-6)


@needs_perl
@settings(max_examples=30)
@given(data=collections(always_judged=True, distinct=True, numeric_ids=True, labels=st.integers(-1, 4)), cutoff=st.integers(1, 12))
def test_gdeval_s_err_at_k_is_ir_measures_err_at_k_and_err_at_k_where_a_query_has_a_label_above_0(data, cutoff):
    # ir_measures gives a judged query gdeval skips (no label above 0) its default 0, as ERR@k (err(skip=false)@k)
    # does here; err@k is NaN there, as gdeval.
    qrels_frame, run_frame = frames(*data)
    if run_frame.empty:
        return
    expected = ir_measures_values([irm.ERR @ cutoff], qrels_frame, run_frame)
    result = evaluate(qrels_frame, run_frame, [f"ERR@{cutoff}", f"err@{cutoff}"], query_set="both")
    positive = {query for query, labels in data[0].items() if max(labels.values()) > 0}
    named, gdeval = result.values(f"ERR@{cutoff}"), result.values(f"err@{cutoff}")
    for query, value, skipped in zip(result.query_ids.to_pylist(), named, gdeval):
        want = expected[(irm.ERR @ cutoff, query)]
        assert abs(value - want) <= 5e-6 + 1e-12, (query, value, want)  # gdeval prints 5 decimals
        assert math.isnan(skipped) if query not in positive else skipped == value


# ranx's names: each spelling and the registry metric it means, where the registry reads it itself too.
RANX = [
    "precision@5", "precision@3-l2", "recall@5", "recall@4-l2", "f1@5", "f1@3-l2", "hits", "hits-l2", "hit_rate@3",
    "hit_rate@2-l3", "mrr", "mrr@3", "mrr-l2", "map", "map@5", "map@4-l2", "ndcg", "ndcg@5", "ndcg-l1", "ndcg_burges",
    "ndcg_burges@5", "dcg", "r-precision", "r-precision-l2",
]


def ranx_collections():
    """ranx's Qrels and Run of the same queries (ranx refuses others), without equal scores, labels >= 0."""

    @st.composite
    def draw_collection(draw):
        queries = [f"q{i}" for i in range(draw(st.integers(1, 6)))]
        qrels = {q: draw(st.dictionaries(st.sampled_from(DOCS), st.integers(0, 4), min_size=1, max_size=10)) for q in queries}
        run = {}
        for query in queries:
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=12, unique=True))
            run[query] = dict(zip(docs, draw(st.permutations(GRID))[: len(docs)]))
        return qrels, run

    return draw_collection()


def ranx_values(names: list[str], qrels: dict, run: dict) -> dict[str, dict[str, float]]:
    """{name: {query: value}} from ranx.evaluate."""
    ranx_run = ranx.Run(run)
    # A second metric keeps ranx's result a dict (its single-metric path loses names with -l).
    scores = ranx.evaluate(ranx.Qrels(qrels), ranx_run, [*names, "hits@1"], return_mean=False, save_results_in_run=False)
    return {name: dict(zip(run, np.asarray(scores[name], dtype=float))) for name in names}


@pytest.mark.filterwarnings("ignore::numba.NumbaPerformanceWarning")
@settings(max_examples=40)
@given(data=ranx_collections())
def test_ranx_names_equal_ranx(data):
    qrels, run = data
    expected = ranx_values(RANX, qrels, run)
    qrels_frame, run_frame = frames(qrels, run)
    result = evaluate(qrels_frame, run_frame, RANX, query_set="qrels")
    for name in RANX:
        for query, value in zip(result.query_ids.to_pylist(), result.values(metric_of(name))):
            assert math.isclose(value, expected[name][query], rel_tol=0, abs_tol=1e-12), (name, query, value, expected[name][query])


@pytest.mark.filterwarnings("ignore::numba.NumbaPerformanceWarning")
@settings(max_examples=40)
@given(data=ranx_collections())
def test_ranx_whole_ranking_names_are_the_set_measures(data):
    """What the error for ranx's ``precision-l2`` advises: set_precision(rel=2) and the others are ranx's whole-ranking values."""
    qrels, run = data
    pairs = {"precision-l2": "set_precision(rel=2)", "recall": "set_recall", "f1-l2": "set_f(rel=2)",
             "ndcg-l2": "ndcg(gains=1:0)", "dcg-l3": "dcg(gains=1:0;2:0)"}
    expected = ranx_values(list(pairs), qrels, run)
    qrels_frame, run_frame = frames(qrels, run)
    result = evaluate(qrels_frame, run_frame, list(pairs.values()), query_set="qrels")
    for name, ours in pairs.items():
        for query, value in zip(result.query_ids.to_pylist(), result.values(REGISTRY.parse(ours))):
            assert math.isclose(value, expected[name][query], rel_tol=0, abs_tol=1e-12), (name, query, value, expected[name][query])
