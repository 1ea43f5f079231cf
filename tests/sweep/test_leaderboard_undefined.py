"""A metric undefined on some queries: each mean of a leaderboard is evaluate's mean of the same metric."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import EvaluationOptions, evaluate
from retrieval_eval.sweep import leaderboard

FAST = {"resamples": 50, "rounds": 50}
METRICS = ["fidelity", "ndcg_exp@5", "xdcg@5"]


def frame(rows: list[tuple], value: str) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query_id", "doc_id", value])


def evaluated_means(qrels: pd.DataFrame, run: pd.DataFrame, label_min: int) -> dict[str, float]:
    records = evaluate(qrels, run, METRICS, label_min=label_min).summary_records()
    return {record["metric"]: record["mean"] for record in records}


def test_an_objective_undefined_on_a_query_of_one_run_leaves_it_out_of_that_metric_alone():
    # q2's only judgment is at label_min: fidelity is undefined there for a run that retrieves it (r1).
    qrels = frame([("q1", "a", 2), ("q1", "b", 0), ("q2", "c", -1), ("q3", "e", 1)], "relevance")
    r1 = frame([("q1", "b", 2.0), ("q1", "a", 1.0), ("q2", "c", 1.0), ("q3", "e", 1.0)], "score")
    r2 = frame([("q1", "a", 2.0), ("q1", "b", 1.0), ("q2", "d", 1.0), ("q3", "x", 1.0)], "score")
    board = leaderboard(qrels, {"r1": r1, "r2": r2}, METRICS, options=EvaluationOptions(label_min=-1), **FAST)
    for name, run in (("r1", r1), ("r2", r2)):
        assert board.table.loc[name, METRICS].to_dict() == evaluated_means(qrels, run, -1)
    assert board.table["queries_lost"].tolist() == [0, 0]
    assert board.per_query.columns.tolist() == ["q1", "q3"]  # the tests pair where fidelity is defined for both
    # Every metric's scores on the three compared queries, NaN where undefined, as evaluate's per-query table has them.
    for name, run in (("r1", r1), ("r2", r2)):
        per_query = evaluate(qrels, run, METRICS, label_min=-1).per_query.set_index("query_id")
        for metric in METRICS:
            scores = board.metric_scores[metric]
            assert scores.columns.tolist() == ["q1", "q2", "q3"] and scores.index.tolist() == board.table.index.tolist()
            assert scores.loc[name].to_numpy().tolist() == pytest.approx(
                per_query[metric].reindex(scores.columns).tolist(), nan_ok=True, rel=0, abs=0)
    assert board.notes == [
        "fidelity is undefined on some of the 3 queries compared (1 for r1): each mean of fidelity is over the "
        "queries where it is defined, as evaluate's; the tests and intervals pair the 2 queries where it is "
        "defined for every run"
    ]


queries = st.lists(st.integers(-1, 2), min_size=1, max_size=4)


@settings(max_examples=25, deadline=None)
@given(st.lists(queries, min_size=2, max_size=4), st.integers(1, 3), st.integers(0, 10**6))
def test_every_mean_of_a_leaderboard_is_evaluate_s_mean_on_the_same_run(judged, n_runs, seed):
    # q0's anchor, judged 2 and retrieved by every run, keeps fidelity defined on one query at least.
    judgments = [(f"q{q}", f"d{d}", label) for q, docs in enumerate(judged) for d, label in enumerate(docs)]
    qrels = frame([*judgments, ("q0", "anchor", 2)], "relevance")
    rng = np.random.default_rng(seed)
    runs = {}
    for r in range(n_runs):
        rows = [(f"q{q}", f"d{d}", float(rng.random())) for q, docs in enumerate(judged) for d in range(len(docs))
                if rng.random() < 0.7]  # fmt: skip
        runs[f"run{r}"] = frame(rows + [("q0", "unjudged", 0.5), ("q0", "anchor", 0.25)], "score")
    board = leaderboard(qrels, runs, METRICS, options=EvaluationOptions(label_min=-1), **FAST)
    undefined = {metric: [] for metric in METRICS}
    for name, run in runs.items():
        expected = evaluated_means(qrels, run, -1)
        got = board.table.loc[name, METRICS].to_dict()
        assert got.keys() == expected.keys()
        for metric in METRICS:
            assert got[metric] == expected[metric] or (np.isnan(got[metric]) and np.isnan(expected[metric]))
            per_query = evaluate(qrels, run, [metric], label_min=-1).per_query[metric]
            if per_query.isna().any():
                undefined[metric].append(f"{int(per_query.isna().sum())} for {name}")
    named = {metric: next((note for note in board.notes if note.startswith(f"{metric} is undefined")), None)
             for metric in METRICS}  # fmt: skip
    for metric, concerned in undefined.items():
        if not concerned:
            assert named[metric] is None
        else:
            assert named[metric] is not None
            assert sorted(named[metric].split("(")[1].split(")")[0].split(", ")) == sorted(concerned)


def test_the_header_and_the_report_say_how_many_queries_the_means_and_the_tests_are_over():
    from retrieval_eval.report.legend import reading_guide
    from retrieval_eval.report.sweep_text import sweep_text
    from retrieval_eval.sweep import sweep

    qrels = frame([("q1", "a", 2), ("q1", "b", 0), ("q2", "c", -1), ("q3", "e", 1)], "relevance")
    r1 = frame([("q1", "b", 2.0), ("q1", "a", 1.0), ("q2", "c", 1.0), ("q3", "e", 1.0)], "score")
    r2 = frame([("q1", "a", 2.0), ("q1", "b", 1.0), ("q2", "d", 1.0), ("q3", "x", 1.0)], "score")
    result = sweep(qrels, {"r1": r1, "r2": r2}, METRICS, options=EvaluationOptions(label_min=-1), **FAST)
    said = "3 queries in common (the tests pair the 2 where fidelity is defined for every configuration)"
    assert result.leaderboard.queries_text("in common") == said
    assert " ".join(sweep_text(result, width=400).splitlines()[1:3]).startswith(f"2 configurations ranked by their mean over {said}")
    assert "over the 3 queries compared (the tests pair the 2 where" in reading_guide(result)[0][1]
