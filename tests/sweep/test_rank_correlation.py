"""Rank correlation of two evaluations of the same runs: Kendall's tau-b against scipy, RBO_ext and
tau_AP against the paper's definition (tests/reference/rank_correlation.py), the verdicts
against scipy's ttest_rel and statsmodels' Holm; two metrics and two query subsets of a leaderboard; the
properties (order of the runs, identical evaluations) and one-line errors."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.sweep import leaderboard
from retrieval_eval.sweep.rank_correlation import (
    compare_rankings,
    metric_correlation,
    pair_verdicts,
    subset_correlation,
)  # fmt: skip
from tests.reference import rank_correlation as reference

NAMES = [f"run{index}" for index in range(7)]


def _ranking(means: pd.Series, higher: bool) -> list[str]:
    """Best first, equal means by name: from the definition."""
    return sorted(means.index, key=lambda name: ((-means[name] if higher else means[name]), str(name)))


def _check_against_oracles(first: pd.Series, second: pd.Series, higher: tuple[bool, bool], p: float) -> None:
    result = compare_rankings(first, second, higher_is_better=higher, rbo_p=p)
    one, two = _ranking(first, higher[0]), _ranking(second, higher[1])
    goods = [side if up else -side for side, up in zip((first, second.reindex(first.index)), higher)]
    assert result.tau_b == pytest.approx(stats.kendalltau(goods[0], goods[1]).statistic, abs=1e-12, nan_ok=True)
    assert result.tau_ap == pytest.approx(reference.tau_ap(one, two), abs=1e-12)
    assert result.tau_ap_reverse == pytest.approx(reference.tau_ap(two, one), abs=1e-12)
    assert result.tau_ap_symmetric == pytest.approx((result.tau_ap + result.tau_ap_reverse) / 2, abs=1e-15)
    # The rbo package (its rbo_ext is eq. 32 too, checked equal) pins numpy below 2: not a test tool here.
    assert result.rbo == pytest.approx(reference.rbo_ext(one, two, p), abs=1e-12)
    frame = result.rankings
    assert frame["run"].tolist() == one
    assert frame["mean_first"].tolist() == first[one].tolist() and frame["mean_second"].tolist() == second[one].tolist()
    assert frame["rank_first"].tolist() == list(range(1, len(one) + 1))
    assert frame["rank_second"].tolist() == [two.index(name) + 1 for name in one]
    sign = [1 if up else -1 for up in higher]
    swapped = [(a, b) for a, b in combinations(one, 2)
               if (first[a] - first[b]) * sign[0] * (second[a] - second[b]) * sign[1] < 0]  # fmt: skip
    assert list(zip(result.swapped["a"], result.swapped["b"])) == swapped
    assert result.swapped["difference_second"].tolist() == [second[a] - second[b] for a, b in swapped]


means = st.lists(st.integers(0, 6), min_size=7, max_size=7).map(lambda values: [value / 6 for value in values])


@given(means, means, st.booleans(), st.booleans(), st.floats(0.05, 0.95))
def test_every_statistic_is_its_oracle(first, second, higher_first, higher_second, p):
    _check_against_oracles(pd.Series(first, index=NAMES), pd.Series(second, index=NAMES), (higher_first, higher_second), p)


def test_a_fixed_example_with_a_tie_and_a_swap():
    first = pd.Series([0.5, 0.45, 0.4, 0.1], index=["d", "c", "b", "a"])
    second = pd.Series([0.1, 0.3, 0.2, 0.3], index=["a", "b", "c", "d"])
    result = compare_rankings(first, second, rbo_p=0.8)
    assert result.rankings["run"].tolist() == ["d", "c", "b", "a"]
    assert result.rankings["rank_second"].tolist() == [2, 3, 1, 4]  # b before d: equal means by name
    # (d, b) is tied in the second evaluation: not a swap.
    assert list(zip(result.swapped["a"], result.swapped["b"])) == [("c", "b")]
    assert result.swapped[["difference_first", "difference_second"]].values.tolist() == [[0.45 - 0.4, 0.2 - 0.3]]
    _check_against_oracles(first, second, (True, True), 0.8)


@given(means, st.permutations(range(7)), st.booleans())
def test_the_order_of_the_runs_changes_nothing(values, permutation, higher):
    first = pd.Series(values, index=NAMES)
    second = pd.Series(values[::-1], index=NAMES)
    base = compare_rankings(first, second, higher_is_better=higher)
    shuffled = compare_rankings(first.iloc[permutation], second.iloc[permutation[::-1]], higher_is_better=higher)
    for field in ("tau_b", "tau_ap", "tau_ap_reverse", "rbo"):
        assert getattr(shuffled, field) == pytest.approx(getattr(base, field), abs=1e-15, nan_ok=True)
    pd.testing.assert_frame_equal(shuffled.rankings, base.rankings)
    pd.testing.assert_frame_equal(shuffled.swapped, base.swapped)


@given(means, st.booleans(), st.floats(0.05, 0.95))
def test_identical_evaluations_agree_everywhere(values, higher, p):
    first = pd.Series(values, index=NAMES)
    result = compare_rankings(first, first.copy(), higher_is_better=higher, rbo_p=p)
    assert result.tau_ap == result.tau_ap_reverse == result.tau_ap_symmetric == 1.0
    assert result.rbo == pytest.approx(1.0, abs=1e-12) and result.swapped.empty
    if len(set(values)) > 1:
        assert result.tau_b == 1.0
    else:
        assert np.isnan(result.tau_b)  # every mean the same: tau-b is undefined
    # Opposite directions on negated means are the same two preferences.
    mirrored = compare_rankings(first, -first, higher_is_better=(higher, not higher), rbo_p=p)
    assert (mirrored.tau_ap, mirrored.rbo, len(mirrored.swapped)) == (result.tau_ap, result.rbo, 0)


# -- the verdicts -----------------------------------------------------------------------------


def _tables(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    level = np.linspace(0.2, 0.5, 5)[:, None]
    first = pd.DataFrame(np.clip(level + rng.normal(0, 0.1, (5, 20)), 0, 1), index=NAMES[:5])
    # The second evaluation scores other queries, with the order of the middle runs reversed.
    second = pd.DataFrame(np.clip(level[[0, 3, 2, 1, 4]] + rng.normal(0, 0.1, (5, 15)), 0, 1), index=NAMES[:5])
    return first, second.iloc[::-1]


@pytest.mark.parametrize("higher", [True, False, (True, False)])
def test_the_verdicts_are_scipys_t_tests_holm_adjusted(higher):
    first, second = _tables(3)
    alpha = 0.1
    frame = pair_verdicts(first, second, higher_is_better=higher, alpha=alpha)
    directions = (higher, higher) if isinstance(higher, bool) else higher
    order = _ranking(first.mean(axis=1), directions[0])
    assert list(zip(frame["a"], frame["b"])) == list(combinations(order, 2))
    flips = []
    for label, table, up in zip(("first", "second"), (first, second), directions):
        p = [stats.ttest_rel(table.loc[a], table.loc[b]).pvalue for a, b in zip(frame["a"], frame["b"])]
        assert frame[f"p_{label}"].tolist() == pytest.approx(p, abs=1e-12)
        assert frame[f"p_{label}_holm"].tolist() == pytest.approx(multipletests(p, method="holm")[1].tolist(), abs=1e-12)
        difference = [table.loc[a].mean() - table.loc[b].mean() for a, b in zip(frame["a"], frame["b"])]
        assert frame[f"difference_{label}"].tolist() == pytest.approx(difference, abs=1e-12)
        verdict = ["not significant" if q > alpha else ("a better" if (d > 0) == up else "b better")
                   for q, d in zip(frame[f"p_{label}_holm"], difference)]  # fmt: skip
        assert frame[f"verdict_{label}"].tolist() == verdict
        flips.append(verdict)
    assert frame["flipped"].tolist() == [one != two for one, two in zip(*flips)]
    assert frame["flipped"].any() and (frame["verdict_first"] != "not significant").any()
    swapped = compare_rankings(first.mean(axis=1), second.mean(axis=1), higher_is_better=higher).swapped
    assert frame.loc[frame["swapped"], ["a", "b"]].values.tolist() == swapped[["a", "b"]].values.tolist()


def test_identical_evaluations_flip_nothing():
    first, _ = _tables(5)
    frame = pair_verdicts(first, first.iloc[::-1])
    assert not frame["flipped"].any() and not frame["swapped"].any()
    assert frame["p_first"].tolist() == frame["p_second"].tolist()


# -- a leaderboard's metrics and query subsets ---------------------------------------------------

QUERIES = [f"q{index:02d}" for index in range(16)]


def _board():
    rng = np.random.default_rng(11)
    qrels = pd.DataFrame([(q, f"d{d}", int(rng.integers(0, 3))) for q in QUERIES for d in range(8)],
                         columns=["query_id", "doc_id", "relevance"])  # fmt: skip
    runs = {}
    for index in range(5):
        rows = [(q, f"d{d}", float(8 - rank)) for q in QUERIES for rank, d in enumerate(rng.permutation(10)[:6])]
        runs[f"config{index}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return leaderboard(qrels, runs, ["ndcg@5", "P@3", "holes@5"], resamples=20, rounds=20)


BOARD = _board()


def test_two_metrics_of_a_leaderboard_rank_each_in_its_own_direction():
    result = metric_correlation(BOARD, "ndcg@5", "holes@5", rbo_p=0.7)
    assert result.higher_is_better == (True, False)
    _check_against_oracles(BOARD.table["ndcg@5"], BOARD.table["holes@5"], (True, False), 0.7)
    assert result.rankings["mean_first"].tolist() == BOARD.table["ndcg@5"].tolist()  # the leaderboard's order
    same = metric_correlation(BOARD, "P@3", "P@3")
    assert same.tau_ap == 1.0 and same.swapped.empty


def test_two_query_subsets_rank_by_the_means_over_each():
    scores = BOARD.metric_scores["ndcg@5"]
    one, two = QUERIES[:8], QUERIES[8:][::-1]
    result = subset_correlation(BOARD, one, two)
    for queries, column in ((one, "mean_first"), (two, "mean_second")):
        expected = scores[queries].mean(axis=1)
        assert result.rankings.set_index("run")[column].to_dict() == pytest.approx(expected.to_dict(), abs=1e-12)
    _check_against_oracles(scores[one].mean(axis=1), scores[two].mean(axis=1), (True, True), 0.9)
    holes = subset_correlation(BOARD, one, QUERIES, "holes@5")
    assert holes.higher_is_better == (False, False)


def _error(call, error, message):
    with pytest.raises(error, match=message) as raised:
        call()
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("first", "second", "options", "error", "message"),
    [
        (pd.Series([1.0, 2.0], ["a", "b"]), pd.Series([1.0, 2.0], ["a", "c"]), {}, ConfigError,
         r"must rank the same runs: 2 run\(s\) in one only, first 'b' \(missing from second\)"),
        (pd.Series([1.0, 2.0], ["a", "a"]), pd.Series([1.0, 2.0], ["a", "a"]), {}, ConfigError, "first names run 'a' more than once"),
        (pd.Series([1.0], ["a"]), pd.Series([1.0], ["a"]), {}, ConfigError, "two or more runs, got 1"),
        (pd.Series([1.0, np.nan], ["a", "b"]), pd.Series([1.0, 2.0], ["a", "b"]), {}, InputError,
         r"first's mean is undefined \(NaN\) for 1 run\(s\), first 'b'"),
        ([1.0, 2.0], pd.Series([1.0, 2.0], ["a", "b"]), {}, ConfigError, "first must be a pandas Series"),
        (pd.Series([1.0, 2.0], ["a", "b"]), pd.Series([1.0, 2.0], ["a", "b"]), {"rbo_p": 1}, ConfigError,
         r"rbo_p must be a number in \(0, 1\)"),
        (pd.Series([1.0, 2.0], ["a", "b"]), pd.Series([1.0, 2.0], ["a", "b"]), {"higher_is_better": "yes"}, ConfigError,
         "higher_is_better must be True, False or one of them for each evaluation"),
    ],
)
def test_bad_rankings_fail_in_one_line(first, second, options, error, message):
    _error(lambda: compare_rankings(first, second, **options), error, message)


def test_bad_tables_subsets_and_metrics_fail_in_one_line():
    first, second = _tables(1)
    holed = first.copy()
    holed.iloc[2, 4] = np.nan
    _error(lambda: pair_verdicts(holed, second), InputError,
           r"first has 1 undefined \(NaN\) score\(s\), first run 'run2' query 4: .* \(take table.dropna\(axis=1\)\)")
    _error(lambda: pair_verdicts(first, second.iloc[:, :1]), InputError, "second has 1 query: a paired test needs two or more")
    _error(lambda: pair_verdicts(first, second, alpha=1.5), ConfigError, r"alpha must be a number in \(0, 1\)")
    _error(lambda: subset_correlation(BOARD, ["q00", "zz"], QUERIES), ConfigError,
           r"queries_a names 1 query id\(s\) the leaderboard does not compare, first 'zz'")
    _error(lambda: subset_correlation(BOARD, QUERIES, []), ConfigError, "queries_b is empty")
    _error(lambda: subset_correlation(BOARD, ["q01", "q01"], QUERIES), ConfigError, "queries_a names query 'q01' more than once")
    _error(lambda: subset_correlation(BOARD, "q01", QUERIES), ConfigError, "queries_a must be a list of query ids")
    _error(lambda: metric_correlation(BOARD, "ndcg@5", "map"), ConfigError,
           r"metric must be one of the leaderboard's metrics \(ndcg@5, P@3, holes@5\), got 'map'")
