"""evaluate(): inputs of every kind, policies, thresholds, results and bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from retrieval_eval import ConfigError, InputError, OutputError, Qrels, Run, UnknownMetricError, evaluate
from retrieval_eval.azure import DocumentRetrievalEvaluator

DATA = Path(__file__).resolve().parents[2] / "data"


def frames():
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["a", "b", "c", "a"], "relevance": [3, 1, 0, 2]})
    run = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q3"], "doc_id": ["b", "x", "a", "a"], "score": [1.0, 2.0, 1.0, 5.0]})
    return qrels, run


def test_every_sample_format_gives_the_same_numbers():
    trec = evaluate(DATA / "qrels.trec", DATA / "run.trec")
    parquet = evaluate(DATA / "qrels.parquet", DATA / "run.parquet")
    pd.testing.assert_frame_equal(trec.per_query, parquet.per_query)
    pd.testing.assert_frame_equal(trec.summary, parquet.summary)
    assert trec.query_counts == {"evaluated": 25, "judged_only": 0, "retrieved_only": 0, "both": 25}


def test_sample_matches_the_azure_drop_in_row_by_row():
    ours = evaluate(DATA / "qrels.parquet", DATA / "run.parquet").per_query.set_index("query_id")
    rows = [json.loads(line) for line in (DATA / "azure_rows.jsonl").read_text().splitlines()]
    evaluator = DocumentRetrievalEvaluator()
    for row in rows:
        properties = evaluator(retrieval_ground_truth=row["retrieval_ground_truth"],
                               retrieved_documents=row["retrieved_documents"])["document_retrieval_properties"]
        for ours_name, azure_name in [("ndcg_exp@3", "ndcg@3"), ("xdcg@3", "xdcg@3"), ("fidelity", "fidelity"), ("holes", "holes"),
                                      ("max_relevance@3", "top3_max_relevance")]:
            assert ours.loc[row["query_id"], ours_name] == properties[azure_name]


def test_dataframes_are_not_mutated():
    qrels, run = frames()
    before = (qrels.copy(), run.copy())
    evaluate(qrels, run)
    pd.testing.assert_frame_equal(qrels, before[0])
    pd.testing.assert_frame_equal(run, before[1])


def test_one_qrels_scores_many_runs():
    qrels_frame, run = frames()
    qrels = Qrels.read(qrels_frame)
    other = run.assign(score=-run["score"])
    for candidate in (run, other, run):
        reused = evaluate(qrels, candidate).per_query
        fresh = evaluate(qrels_frame, candidate).per_query
        pd.testing.assert_frame_equal(reused, fresh)


def test_query_sets():
    qrels, run = frames()
    default = evaluate(qrels, run)
    assert list(default.per_query["query_id"]) == ["q1", "q2"]
    assert default.query_counts == {"evaluated": 2, "judged_only": 1, "retrieved_only": 1, "both": 1}
    assert default.per_query.set_index("query_id").loc["q2", "total_retrieved_documents"] == 0
    assert list(evaluate(qrels, run, query_set="both").per_query["query_id"]) == ["q1"]
    union = evaluate(qrels, run, query_set="union").per_query.set_index("query_id")
    assert list(union.index) == ["q1", "q2", "q3"]
    assert union.loc["q3", "holes"] == 1 and union.loc["q3", "ndcg_exp@3"] == 0.0
    with pytest.raises(ConfigError, match="query_set"):
        evaluate(qrels, run, query_set="all")


def test_thresholds_give_pass_columns_and_a_verdict():
    qrels, run = frames()
    result = evaluate(qrels, run, ["ndcg_exp@3"], thresholds={"ndcg_exp@3": 0.5, "holes": 0})
    assert list(result.per_query.columns) == ["query_id", "ndcg_exp@3", "holes", "ndcg_exp@3_passed", "holes_passed"]
    assert result.per_query["holes_passed"].tolist() == [False, True]
    summary = result.summary
    assert summary.loc["ndcg_exp@3", "passed"] == (summary.loc["ndcg_exp@3", "mean"] >= 0.5)
    assert not summary.loc["holes", "higher_is_better"] and not summary.loc["holes", "passed"]
    assert summary.loc["holes", "pass_rate"] == 0.5
    assert result.passed is False
    assert evaluate(qrels, run, ["holes"], thresholds={"holes": 1}).passed is True
    assert evaluate(qrels, run).passed is None


@pytest.mark.parametrize("value", [math.nan, math.inf, "0.5", None, True])
def test_bad_threshold_values(value):
    qrels, run = frames()
    with pytest.raises(ConfigError, match="threshold"):
        evaluate(qrels, run, thresholds={"fidelity": value})


def test_duplicate_policies():
    qrels = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "a", "b"], "relevance": [1, 4, 2]})
    run = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["b", "a", "a", "c"], "score": [2.0, 1.0, 3.0, 0.0]})
    def top1(**options):
        return evaluate(qrels, run, ["top1_relevance", "total_retrieved_documents"], **options).per_query.iloc[0].tolist()[1:]
    assert top1() == [4, 4]  # a takes its last score 3.0 and the last label 4
    assert top1(run_duplicates="first") == [2, 4]  # a keeps 1.0: b leads
    assert top1(run_duplicates="max") == [4, 4]
    assert top1(qrels_duplicates="first") == [1, 4]
    assert top1(qrels_duplicates="max") == [4, 4]
    with pytest.raises(InputError, match="retrieved more than once") as raised:
        evaluate(qrels, run, run_duplicates="raise")
    assert raised.value.row == 3 and "'a'" in str(raised.value)
    with pytest.raises(InputError, match="judged more than once") as raised:
        evaluate(qrels, run, qrels_duplicates="raise")
    assert raised.value.row == 2
    with pytest.raises(ConfigError, match="duplicates"):
        evaluate(qrels, run, run_duplicates="mean")


def test_integer_ids_and_kind_mismatch():
    qrels = pd.DataFrame({"query_id": [1, 1], "doc_id": [10, 11], "relevance": [2, 0]})
    run = pd.DataFrame({"query_id": [1, 1], "doc_id": [11, 10], "score": [2.0, 1.0]})
    assert evaluate(qrels, run, ["max_relevance@1"]).per_query.iloc[0, 1] == 0
    with pytest.raises(InputError, match="strings or both integers"):
        evaluate(qrels, run.assign(doc_id=["11", "10"]))
    with pytest.raises(InputError, match="query ids"):
        evaluate(qrels, run.assign(query_id=["1", "1"]))


def test_infinite_scores_are_ranked_and_nan_is_an_error():
    qrels, run = frames()
    ranked = evaluate(qrels, run.assign(score=[-math.inf, math.inf, 0.0, 1.0]), ["top1_relevance"])
    assert ranked.per_query.iloc[0, 1] == 0  # x (+inf) is unjudged
    with pytest.raises(InputError, match="NaN") as raised:
        evaluate(qrels, run.assign(score=[1.0, np.nan, 2.0, 3.0]))
    assert raised.value.row == 2 and raised.value.field == "score" and "'x'" in str(raised.value)


def test_labels_outside_the_range():
    qrels, run = frames()
    with pytest.raises(InputError, match=r"outside the label range .* \[0, 2\]") as raised:
        evaluate(qrels, run, label_max=2)
    assert raised.value.row == 1 and raised.value.field == "relevance"
    with pytest.raises(InputError, match="too large"):
        evaluate(qrels.assign(relevance=[2000, 1, 0, 1]), run, label_max=5000)
    with pytest.raises(ConfigError, match="label_max"):
        evaluate(qrels, run, label_min=3, label_max=3)
    # A fraction is a label of the measures whose definition allows it; the default set has some that count whole grades.
    with pytest.raises(InputError, match=r"row 1, field 'relevance': fidelity needs integer relevance labels, got 2.5"):
        evaluate(qrels.assign(relevance=[2.5, 1.0, 0.0, 1.0]), run)
    assert evaluate(qrels.assign(relevance=[2.5, 1.0, 0.0, 1.0]), run, ["ndcg_exp@3"]).means["ndcg_exp@3"] > 0


@pytest.mark.parametrize("k", [0, -3, "x", 2.5])
def test_bad_k(k):
    qrels, run = frames()
    with pytest.raises(ConfigError, match="positive integer"):
        evaluate(qrels, run, k=k)


def test_unknown_metric():
    qrels, run = frames()
    with pytest.raises(UnknownMetricError, match="did you mean"):
        evaluate(qrels, run, ["ndcg_exp@3", "xdgc@3"])


def test_missing_file_and_missing_columns(tmp_path):
    qrels, run = frames()
    with pytest.raises(InputError, match="not found") as raised:
        evaluate(tmp_path / "nope.trec", run)
    assert "nope.trec" in str(raised.value)
    with pytest.raises(InputError, match="score"):
        evaluate(qrels, run.drop(columns="score"))


def test_writers(tmp_path):
    qrels, run = frames()
    result = evaluate(qrels, run, thresholds={"fidelity": 0.1})
    for name in ("per_query.parquet", "per_query.csv", "per_query.json", "per_query.jsonl"):
        result.write(tmp_path / name)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "per_query.parquet"), result.per_query, check_dtype=False)
    assert len(pd.read_csv(tmp_path / "per_query.csv")) == 2
    result.write_summary(tmp_path / "summary.json")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["metrics"]["fidelity"]["threshold"] == 0.1 and summary["queries"]["evaluated"] == 2
    result.write_summary(tmp_path / "summary.csv")
    assert "fidelity" in (tmp_path / "summary.csv").read_text()


def test_unwritable_output_leaves_nothing(tmp_path):
    qrels, run = frames()
    result = evaluate(qrels, run)
    target = tmp_path / "missing_dir" / "out.parquet"
    with pytest.raises(OutputError, match="out.parquet"):
        result.write(target)
    assert not target.parent.exists()
    assert list(tmp_path.iterdir()) == []


def test_run_and_qrels_repr_and_reuse_of_objects():
    qrels, run = frames()
    q, r = Qrels.read(qrels), Run.read(run, name="bm25")
    assert "queries=2" in repr(q) and "bm25" in repr(r)
    assert Qrels.read(q) is q and Run.read(r) is r
    assert evaluate(q, r).run == "bm25"


def test_in_memory_inputs_are_named_alike_by_every_layer():
    """The reader and the data layer name a list of dicts the same way in their errors."""
    rows = [{"query_id": "q", "doc_id": "a", "score": float("nan")}]
    with pytest.raises(InputError) as raised:
        Run.read(rows)
    assert str(raised.value).startswith("<list of dicts>, row 1")
    with pytest.raises(InputError) as raised:
        Run.read([{"query_id": "q", "doc_id": "a"}])
    assert str(raised.value).startswith("<list of dicts>")


def test_values_take_any_name_of_an_evaluated_metric():
    result = evaluate(DATA / "qrels.trec", DATA / "run.trec", ["P.5", "map"])
    assert (result.values("P_5") == result.values("precision@5")).all()
    assert (result.values("AP") == result.values("map")).all()
    with pytest.raises(KeyError, match="P_10 was not evaluated"):
        result.values("P_10")
