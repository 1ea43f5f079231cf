"""The leaderboard: ranking, paired comparisons with the best, query alignment, order invariance."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import EvaluationOptions
from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.sweep import leaderboard

FAST = {"resamples": 300, "rounds": 300}


def qrels(n_queries: int = 30) -> pd.DataFrame:
    rows = [(f"q{q:02d}", f"d{d}", 1 if d < 3 else 0) for q in range(n_queries) for d in range(6)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def run(n_queries: int = 30, *, good: float, seed: int) -> pd.DataFrame:
    """Each query ranks its 3 relevant documents first with probability ``good``, else last."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        first_relevant = rng.random() < good
        for d in range(6):
            relevant = d < 3
            score = (10 if relevant == first_relevant else 0) - d * 0.1
            rows.append((f"q{q:02d}", f"d{d}", score))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def test_identical_runs_are_all_tied_with_the_best():
    same = run(good=0.5, seed=1)
    board = leaderboard(qrels(), {"b": same, "a": same.copy()}, ["ndcg@5", "map"], **FAST)
    table = board.table
    assert list(table.index) == ["a", "b"]  # equal means: by name
    assert table.loc["b", "p_randomization"] == 1.0 and table.loc["b", "p_t"] == 1.0
    assert table["tied_with_best"].all() and table.loc["b", "ties"] == 30


def test_a_run_better_on_every_query_wins_and_the_other_is_significantly_worse():
    perfect, poor = run(good=1.0, seed=2), run(good=0.0, seed=3)
    board = leaderboard(qrels(), {"poor": poor, "perfect": perfect}, ["ndcg@5"], **FAST)
    table = board.table
    assert list(table.index) == ["perfect", "poor"] and table.loc["perfect", "ndcg@5"] == 1.0
    assert table.loc["poor", "losses"] == 30 and table.loc["poor", "wins"] == 0
    assert table.loc["poor", "p_randomization_holm"] == pytest.approx(1 / 301)
    assert not table.loc["poor", "tied_with_best"]
    assert table.loc["poor", "effect_size"] < 0
    assert table.loc["perfect", "ci_low"] <= table.loc["perfect", "ndcg@5"] <= table.loc["perfect", "ci_high"]


def test_a_lower_is_better_objective_ranks_ascending():
    judged = qrels()
    # One run retrieves an unjudged document at the top of every query: more holes, worse.
    holey = run(good=1.0, seed=2)
    holey.loc[holey["doc_id"] == "d5", "doc_id"] = "unjudged"
    holey.loc[holey["doc_id"] == "unjudged", "score"] = 100.0
    board = leaderboard(judged, {"holey": holey, "clean": run(good=1.0, seed=2)}, ["holes@3"], **FAST)
    assert board.objective == "holes@3"
    assert list(board.table.index) == ["clean", "holey"]
    assert board.table.loc["holey", "holes@3"] > board.table.loc["clean", "holes@3"]
    assert board.table.loc["holey", "losses"] == 30 and not board.table.loc["holey", "tied_with_best"]
    assert board.table.loc["holey", "effect_size"] < 0


def test_queries_missing_from_a_run_are_left_out_or_scored_zero():
    full, partial = run(good=0.5, seed=4), run(good=0.5, seed=4)
    partial = partial[~partial["query_id"].isin(["q00", "q01"])]
    # Azure's query set scores every judged query (0 where nothing was retrieved): nothing is lost.
    board = leaderboard(qrels(), {"full": full, "partial": partial}, ["ndcg@5"], options=EvaluationOptions(query_set="qrels"), **FAST)
    assert board.per_query.shape == (2, 30) and board.table["queries_lost"].tolist() == [0, 0]
    kept = leaderboard(qrels(), {"full": full, "partial": partial}, ["ndcg@5"], options=EvaluationOptions(query_set="both"), **FAST)
    assert kept.table.loc["partial", "queries_lost"] == 2 and kept.table.loc["full", "queries_lost"] == 0
    assert kept.per_query.shape == (2, 28)
    assert kept.notes == ["partial has no score for 2 queries the other runs have; they are left out of the comparison",
                          "ranks 1-2 (full, partial) are identical on every query compared on ndcg@5: ordered by name"]
    zero = leaderboard(
        qrels(), {"full": full, "partial": partial}, ["ndcg@5"], options=EvaluationOptions(query_set="both"), query_policy="zero", **FAST
    )
    assert zero.per_query.shape == (2, 30) and zero.per_query.loc["partial", ["q00", "q01"]].tolist() == [0.0, 0.0]


def test_one_configuration_gets_a_leaderboard_and_a_note():
    board = leaderboard(qrels(), {"only": run(good=0.5, seed=5)}, ["ndcg@5"], **FAST)
    assert board.table.loc["only", "rank"] == 1 and np.isnan(board.table.loc["only", "p_t"])
    assert board.notes == ["one configuration: nothing to compare, no test was run"]


def test_progress_is_reported_after_each_run():
    calls = []
    leaderboard(qrels(), {"b": run(good=0.5, seed=7), "a": run(good=0.5, seed=8)}, ["ndcg@5"],
                progress=lambda *args: calls.append(args), **FAST)  # fmt: skip
    assert calls == [(1, 2, "a"), (2, 2, "b")]


def test_runs_without_a_query_in_common_are_an_error():
    first = run(good=0.5, seed=9)
    second = run(good=0.5, seed=9).assign(query_id=lambda frame: frame["query_id"] + "x")
    judged = pd.concat([qrels(), qrels().assign(query_id=lambda frame: frame["query_id"] + "x")])
    with pytest.raises(InputError, match="the runs have no query with a ndcg@5 score in common"):
        leaderboard(judged, {"a": first, "b": second}, ["ndcg@5"], options=EvaluationOptions(query_set="both"), **FAST)


def test_bad_options():
    with pytest.raises(ConfigError, match="query_policy must be one of intersection, zero"):
        leaderboard(qrels(), {"a": run(good=0.5, seed=6)}, query_policy="union")
    with pytest.raises(ConfigError, match="at least one run"):
        leaderboard(qrels(), {})


@settings(max_examples=10, deadline=None)
@given(st.permutations(["a", "b", "c", "d"]), st.integers(0, 1000))
def test_the_leaderboard_does_not_depend_on_the_order_of_runs_or_rows(names, seed):
    runs = {name: run(good=0.2 * (i + 1), seed=i) for i, name in enumerate(["a", "b", "c", "d"])}
    reference = leaderboard(qrels(), runs, ["ndcg@5", "map"], **FAST).table
    shuffled = {name: runs[name].sample(frac=1.0, random_state=seed) for name in names}
    pd.testing.assert_frame_equal(
        leaderboard(qrels().sample(frac=1.0, random_state=seed), shuffled, ["ndcg@5", "map"], **FAST).table, reference
    )


def test_the_leaderboard_goes_by_the_names_asked_and_finds_the_objective_under_any_of_its_names():
    runs = {"poor": run(good=0.2, seed=3), "good": run(good=0.9, seed=2)}
    board = leaderboard(qrels(), runs, ["nDCG@5", "P@3"], objective="precision@3", **FAST)
    assert board.metrics == ["nDCG@5", "P@3"] and board.objective == "P@3"
    assert board.canonical == {"nDCG@5": "ndcg@5", "P@3": "precision@3"}
    expected = leaderboard(qrels(), runs, ["ndcg@5", "precision@3"], objective="precision@3", **FAST).table
    np.testing.assert_array_equal(board.table["P@3"], expected["precision@3"])
    assert list(board.table.index) == list(expected.index) == ["good", "poor"]
    # An objective not listed joins the metrics under its own name.
    assert leaderboard(qrels(), runs, ["P@3"], objective="RR", **FAST).metrics == ["P@3", "RR"]


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["k100", "k20", "k5"], ["k5", "k20", "k100"]),  # digit runs as numbers, not text ("k100" < "k20")
        (["b2_top10", "b10_top5", "b2_top5"], ["b2_top5", "b2_top10", "b10_top5"]),
        (["x", "X1", "x1", "x01"], ["X1", "x", "x01", "x1"]),  # text by code point; equal numbers by their text
    ],
)
def test_exactly_equal_means_go_by_the_natural_order_of_names_and_are_named_identical(names, expected):
    same = run(good=0.5, seed=6)
    board = leaderboard(qrels(), {name: same.copy() for name in names}, ["ndcg@5"], **FAST)
    assert list(board.table.index) == expected
    assert board.notes == [f"ranks 1-{len(names)} ({', '.join(expected)}) are identical on every query compared on ndcg@5: ordered by name"]


def test_only_runs_of_identical_ranks_are_named():
    same, other = run(good=0.9, seed=6), run(good=0.1, seed=7)
    board = leaderboard(qrels(), {"a": same, "b": same.copy(), "c": other}, ["ndcg@5"], **FAST)
    assert list(board.table.index) == ["a", "b", "c"]
    assert board.notes == ["ranks 1-2 (a, b) are identical on every query compared on ndcg@5: ordered by name"]


def test_the_leaderboard_keeps_the_evaluator_s_metric_of_each_column_and_of_the_objective():
    from retrieval_eval.metrics.names import Metric

    runs = {"poor": run(good=0.2, seed=3), "good": run(good=0.9, seed=2)}
    board = leaderboard(qrels(), runs, ["nDCG@5", "P@3"], objective="RR", **FAST)
    assert board.metric_of == {"nDCG@5": Metric("ndcg", 5), "P@3": Metric("precision", 3), "RR": Metric("recip_rank")}
    assert board.objective_metric == Metric("recip_rank") and board.higher_is_better
