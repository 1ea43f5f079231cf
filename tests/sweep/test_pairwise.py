"""All pairs and head to head: against scipy's paired t-test, a plain-Python randomization test and Holm's step-down."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from retrieval_eval.errors import ConfigError
from retrieval_eval.sweep import leaderboard
from retrieval_eval.sweep import pairwise as module
from tests.sweep.test_leaderboard import FAST, qrels, run
from tests.sweep.test_stats import _oracle_holm

ROUNDS = FAST["rounds"]


@pytest.fixture(scope="module")
def board():
    # Two identical configurations (a pair with nothing to tell apart) and a spread of others.
    runs = {f"c{index}": run(good=good, seed=index) for index, good in enumerate([0.2, 0.5, 0.55, 0.9])}
    runs["same_as_c3"] = runs["c3"].copy()
    return leaderboard(qrels(), runs, ["ndcg@5", "map"], all_pairs=True, seed=5, **FAST)


def _randomization_oracle(a: list[float], b: list[float], signs: np.ndarray) -> float:
    """The two-sided paired randomization p-value with the given flips, from its definition, in plain Python."""
    differences = [y - x for x, y in zip(a, b)]
    observed = abs(sum(differences))
    threshold = observed - 1e-12 * max(observed, 1.0)
    reached = sum(abs(sum(int(s) * d for s, d in zip(flips, differences))) >= threshold for flips in signs)
    return (1 + reached) / (1 + len(signs))


def test_every_pair_once_in_rank_order(board):
    pairs = board.pairwise
    names = list(board.table.index)
    assert list(pairs.columns) == list(module.PAIR_COLUMNS)
    assert list(zip(pairs["a"], pairs["b"])) == list(itertools.combinations(names, 2))
    means = board.table[board.objective]
    assert pairs["mean_a"].tolist() == [means[name] for name in pairs["a"]]
    assert pairs["mean_b"].tolist() == [means[name] for name in pairs["b"]]
    assert pairs["difference"].tolist() == (pairs["mean_a"] - pairs["mean_b"]).tolist()


def test_the_t_test_is_scipy_s_and_the_randomization_test_its_definition(board):
    per_query = board.per_query
    # The flips: one batch of ROUNDS rounds over the queries, from the leaderboard's seed.
    signs = np.random.default_rng(5).integers(0, 2, size=(ROUNDS, per_query.shape[1]), dtype=np.int8) * 2 - 1
    for row in board.pairwise.itertuples():
        a, b = per_query.loc[row.a].tolist(), per_query.loc[row.b].tolist()
        if a == b:
            assert (row.p_t, row.p_randomization) == (1.0, 1.0)  # nothing to tell apart (scipy: NaN)
            continue
        assert row.p_t == pytest.approx(scipy_stats.ttest_rel(a, b).pvalue, rel=1e-12, abs=1e-300)
        assert row.p_randomization == _randomization_oracle(a, b, signs)


def test_holm_runs_over_every_pair_and_significance_follows_it(board):
    pairs = board.pairwise
    for column in ("p_t", "p_randomization"):
        assert pairs[f"{column}_holm"].tolist() == pytest.approx(_oracle_holm(pairs[column].tolist()), rel=1e-15)
    assert pairs["significant"].tolist() == (pairs["p_randomization_holm"] <= board.alpha).tolist()
    assert pairs["significant"].any() and not pairs["significant"].all()


def test_the_pairs_with_the_best_are_the_leaderboard_s_comparisons(board):
    best = board.table.index[0]
    with_best = board.pairwise[board.pairwise["a"] == best].set_index("b")
    others = board.table.iloc[1:]
    assert with_best["p_t"].tolist() == others["p_t"].tolist()
    assert with_best["p_randomization"].tolist() == others["p_randomization"].tolist()
    # Adjusted over more comparisons, never below the leaderboard's own adjustment.
    assert (with_best["p_randomization_holm"] >= others["p_randomization_holm"]).all()


def test_pairs_tested_in_chunks_see_the_same_flips(board, monkeypatch):
    monkeypatch.setattr(module, "_PAIR_CELLS", 2 * board.per_query.shape[1])  # two pairs a chunk
    runs = {f"c{index}": run(good=good, seed=index) for index, good in enumerate([0.2, 0.5, 0.55, 0.9])}
    runs["same_as_c3"] = runs["c3"].copy()
    calls = []
    chunked = leaderboard(qrels(), runs, ["ndcg@5", "map"], all_pairs=True, seed=5,
                          progress=lambda done, total, name, phase: calls.append((phase, done, total)), **FAST)  # fmt: skip
    pd.testing.assert_frame_equal(chunked.pairwise, board.pairwise)
    # 10 pairs in 5 chunks: one phase counting the rounds of them all.
    assert [(done, total) for phase, done, total in calls if phase == "pairs"] == [(ROUNDS * k, 5 * ROUNDS) for k in range(1, 6)]


def test_no_pairs_unless_asked_and_none_to_compare_with_one_configuration():
    runs = {"a": run(good=0.5, seed=1), "b": run(good=0.6, seed=2)}
    assert leaderboard(qrels(), runs, ["ndcg@5"], **FAST).pairwise is None
    alone = leaderboard(qrels(), {"a": runs["a"]}, ["ndcg@5"], all_pairs=True, **FAST)
    assert alone.pairwise is not None and alone.pairwise.empty and list(alone.pairwise.columns) == list(module.PAIR_COLUMNS)
    assert alone.head_to_head is None
    with pytest.raises(ConfigError, match="^all_pairs must be True or False, got 'yes'$"):
        leaderboard(qrels(), runs, all_pairs="yes")


def test_head_to_head_is_the_best_against_the_runner_up_query_by_query(board):
    duel = board.head_to_head
    best, runner_up = board.table.index[:2]
    assert list(duel.columns) == list(module.HEAD_TO_HEAD_COLUMNS)
    by_query = duel.set_index("query_id")
    assert by_query["best"].to_dict() == board.per_query.loc[best].to_dict()
    assert by_query["runner_up"].to_dict() == board.per_query.loc[runner_up].to_dict()
    assert (duel["difference"] == duel["best"] - duel["runner_up"]).all()
    assert duel["difference"].is_monotonic_decreasing
    expected = np.where(duel["difference"] > 0, "win", np.where(duel["difference"] < 0, "loss", "tie"))
    assert duel["outcome"].tolist() == expected.tolist()
    # The runner-up's row counts the same queries from its side.
    counts = duel["outcome"].value_counts()
    row = board.table.loc[runner_up]
    assert (counts.get("win", 0), counts.get("tie", 0), counts.get("loss", 0)) == (row["losses"], row["ties"], row["wins"])


def test_head_to_head_of_a_lower_is_better_objective_wins_where_the_best_is_lower():
    holey = run(good=1.0, seed=2)
    holey.loc[holey["doc_id"] == "d5", ["doc_id", "score"]] = ["unjudged", 100.0]
    clean = run(good=1.0, seed=2)
    board = leaderboard(qrels(), {"holey": holey, "clean": clean}, ["holes@3"], **FAST)
    duel = board.head_to_head
    assert (duel["difference"] < 0).all() and set(duel["outcome"]) == {"win"}


def test_equal_ties_in_head_to_head_keep_query_order():
    same = run(good=0.5, seed=3)
    duel = leaderboard(qrels(), {"a": same, "b": same.copy()}, ["ndcg@5"], **FAST).head_to_head
    assert duel["query_id"].tolist() == sorted(duel["query_id"]) and set(duel["outcome"]) == {"tie"}
