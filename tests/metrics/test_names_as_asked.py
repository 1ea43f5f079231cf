"""Results go by the names the user asked for; each distinct metric is computed once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import ConfigError, Evaluator, evaluate
from retrieval_eval.metrics.registry import REGISTRY

DATA = Path(__file__).resolve().parents[2] / "data"
QRELS, RUN = str(DATA / "qrels.trec"), str(DATA / "run.trec")

# Spellings of one metric, from the registry, trec_eval, ir_measures and ranx.
SPELLINGS = {
    "precision@5": ["P@5", "precision@5", "P_5", "p.5", "P(rel=1)@5"],
    "ndcg@10": ["nDCG@10", "ndcg@10", "ndcg_cut.10", "ndcg_cut_10"],
    "map": ["map", "AP", "ap"],
    "recip_rank": ["RR", "recip_rank", "mrr"],
}


def test_columns_and_summary_rows_carry_the_names_written():
    asked = ["P@5", "nDCG@10", "ndcg_cut.10", "map"]
    result = evaluate(QRELS, RUN, asked)
    assert list(result.per_query.columns) == ["query_id", *asked]
    assert list(result.summary.index) == asked and list(result.means) == asked
    assert result.canonical_names == {"P@5": "precision@5", "nDCG@10": "ndcg@10", "ndcg_cut.10": "ndcg@10", "map": "map"}
    # Two names of one metric: one computation, two columns of the same values.
    assert result.values("nDCG@10") is result.values("ndcg_cut.10")
    assert len(result.columns) == 3
    np.testing.assert_array_equal(result.per_query["P@5"], result.values("precision@5"))


def test_a_name_of_several_metrics_goes_by_trec_evals_printed_names():
    result = evaluate(QRELS, RUN, ["P.5,10", "ndcg_cut"])
    assert list(result.means) == ["P_5", "P_10", *(f"ndcg_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000))]


def test_space_separated_names_are_a_list_as_ir_measures_writes_one():
    result = evaluate(QRELS, RUN, "nDCG@10 P@5 AP")
    assert list(result.means) == ["nDCG@10", "P@5", "AP"]
    assert result.means["AP"] == evaluate(QRELS, RUN, ["map"]).means["map"]


def test_ir_measures_objects_go_by_ir_measures_names():
    ir_measures = pytest.importorskip("ir_measures")
    measures = [ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5, ir_measures.AP]
    result = evaluate(QRELS, RUN, measures)
    assert list(result.means) == ["nDCG@10", "P(rel=2)@5", "AP"]
    assert result.canonical_names["P(rel=2)@5"] == "precision(rel=2)@5"
    assert result.means == evaluate(QRELS, RUN, ["nDCG@10", "P(rel=2)@5", "AP"]).means


def test_a_name_that_took_the_default_cutoff_shows_it():
    result = evaluate(QRELS, RUN, ["xdcg", "precision", "ndcg"], k=5)
    assert list(result.means) == ["xdcg@5", "precision@5", "ndcg"]


def test_a_threshold_names_its_passed_column_as_written():
    result = evaluate(QRELS, RUN, ["P@5"], thresholds={"precision@5": 0.2, "RR": 0.5})
    assert list(result.per_query.columns) == ["query_id", "P@5", "RR", "precision@5_passed", "RR_passed"]
    summary = result.summary
    assert summary.loc["P@5", "threshold"] == 0.2 and summary.loc["RR", "threshold"] == 0.5
    with pytest.raises(ConfigError, match="has two thresholds"):
        evaluate(QRELS, RUN, ["P@5"], thresholds={"precision@5": 0.2, "P_5": 0.3})


def test_the_evaluator_and_its_repr_use_the_names():
    evaluator = Evaluator(QRELS, ["P@5", "AP"])
    assert [name for name, _ in evaluator.names] == ["P@5", "AP"]
    assert "metrics=[P@5, AP]" in repr(evaluator)


@given(st.lists(st.sampled_from(sorted(SPELLINGS)), min_size=1, max_size=4, unique=True), st.data())
def test_every_spelling_gives_its_canonical_metrics_values(canonical, data):
    asked = [data.draw(st.sampled_from(SPELLINGS[name])) for name in canonical]
    ours = evaluate(QRELS, RUN, asked, k=5)
    reference = evaluate(QRELS, RUN, canonical, k=5)
    assert list(ours.means) == asked
    for name, spelled in zip(canonical, asked):
        assert str(REGISTRY.parse(ours.canonical_names[spelled])) == name
        np.testing.assert_array_equal(ours.values(spelled), reference.values(name))


def test_a_peers_name_with_its_own_cutoff_takes_no_default_one():
    result = evaluate(QRELS, RUN, ["precision@3-l2", "Precision", "nDCG@5"], k=4)
    assert list(result.means) == ["precision@3-l2", "Precision@4", "nDCG@5"]
