"""A leaderboard's progress through its statistics, and means that do not depend on the order of the queries."""

from __future__ import annotations

import functools
import math

import pandas as pd
import pytest

from retrieval_eval import Evaluator
from retrieval_eval.sweep import leaderboard, stats, sweep
from retrieval_eval.sweep.progress import PHASES, takes_phase
from tests.sweep.test_leaderboard import FAST, qrels, run

RUNS = {"b": run(good=0.5, seed=7), "a": run(good=0.7, seed=8), "c": run(good=0.2, seed=9)}


def _phases(calls: list[tuple]) -> list[str]:
    return list(dict.fromkeys(phase for *_, phase in calls))


def test_a_callback_that_takes_a_phase_hears_every_phase_in_order_with_what_is_computed(monkeypatch):
    monkeypatch.setattr(stats, "_BATCH_CELLS", 30 * 100)  # 30 queries: batches of 100 draws
    calls = []
    leaderboard(qrels(), RUNS, ["ndcg@5", "map"], all_pairs=True, progress=lambda d, t, n, phase: calls.append((d, t, n, phase)), **FAST)
    assert _phases(calls) == list(PHASES)
    assert [call for call in calls if call[3] == "runs"] == [(1, 3, "a", "runs"), (2, 3, "b", "runs"), (3, 3, "c", "runs")]
    labels = {phase: {name for _, _, name, p in calls if p == phase} for phase in PHASES[1:]}
    assert labels == {
        "alignment": {"aligning per-query scores: 2 metrics x 3 configurations"},
        "bootstrap": {"bootstrap intervals: 300 resamples x 3 configurations"},
        "randomization": {"randomization tests: 300 rounds x 2 against the best"},
        "pairs": {"all pairs: 300 randomization rounds x 3 pairs"},
    }
    for phase in PHASES:
        steps = [(done, total) for done, total, _, p in calls if p == phase]
        assert [done for done, _ in steps] == sorted({done for done, _ in steps})  # counts advance
        assert len({total for _, total in steps}) == 1 and steps[-1][0] == steps[-1][1]  # and end at the total
    assert [done for done, _, _, p in calls if p == "bootstrap"] == [100, 200, 300]


def test_an_old_callback_hears_only_the_runs_and_no_phase_without_all_pairs():
    old, new = [], []
    sweep(qrels(), RUNS, ["ndcg@5"], progress=lambda *args: old.append(args), **FAST)
    assert old == [(1, 3, "a"), (2, 3, "b"), (3, 3, "c")]
    leaderboard(qrels(), RUNS, ["ndcg@5"], progress=lambda *args, **keywords: new.append(keywords["phase"]), **FAST)
    assert _phases([(phase,) for phase in new]) == ["runs", "alignment", "bootstrap", "randomization"]


def test_one_configuration_runs_no_test_and_reports_none():
    calls = []
    leaderboard(qrels(), {"a": RUNS["a"]}, ["ndcg@5"], all_pairs=True, progress=lambda d, t, n, phase="runs": calls.append(phase), **FAST)
    assert _phases([(phase,) for phase in calls]) == ["runs", "alignment", "bootstrap"]


class _Callable:
    def __call__(self, done, total, name, *, phase="runs"):
        pass


@pytest.mark.parametrize(
    ("callback", "expected"),
    [(lambda d, t, n: None, False), (lambda d, t, n, phase: None, True), (lambda *a, **k: None, True),
     (_Callable(), True), (functools.partial(lambda x, d, t, n, phase: None, 1), True), (print, False), (len, False)],
    ids=["three", "phase", "keywords", "object", "partial", "print", "builtin"],
)  # fmt: skip
def test_which_callbacks_take_a_phase(callback, expected):
    assert takes_phase(callback) is expected


def test_equal_means_are_equal_whatever_the_queries_order_and_rank_by_name():
    # The same per-query values on different queries: one mean, exactly, as an evaluation's summary has it.
    judged = qrels()
    first_half = {f"q{q:02d}" for q in range(15)}
    def ranked(good_queries: set[str]) -> pd.DataFrame:
        rows = [(f"q{q:02d}", f"d{d}", (10 if (d < 3) == (f"q{q:02d}" in good_queries) else 0) - d * 0.1)
                for q in range(30) for d in range(6)]  # fmt: skip
        return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])

    runs = {"z": ranked(first_half), "y": ranked({f"q{q:02d}" for q in range(15, 30)}), "x": ranked({f"q{q:02d}" for q in range(0, 30, 2)})}
    board = leaderboard(judged, runs, ["ndcg@5", "map"], **FAST)
    assert list(board.table.index) == ["x", "y", "z"] and board.table["ndcg@5"].nunique() == 1
    for name, table in runs.items():
        summary = Evaluator(judged, ["ndcg@5", "map"]).evaluate(table).means
        assert board.table.loc[name, ["ndcg@5", "map"]].tolist() == [summary["ndcg@5"], summary["map"]]
        assert board.table.loc[name, "ndcg@5"] == math.fsum(board.per_query.loc[name]) / 30
