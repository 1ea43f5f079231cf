"""Intervals on paired differences: the t interval against scipy's, the bootstrap against bootstrap_ci and scipy's bootstrap."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats as scipy_stats

from retrieval_eval.errors import RetrievalEvalError
from retrieval_eval.sweep import intervals as module
from retrieval_eval.sweep.intervals import INTERVAL_COLUMNS, paired_difference_intervals
from retrieval_eval.sweep.stats import bootstrap_ci

matrices = st.tuples(st.integers(2, 5), st.integers(2, 15)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.integers(0, 64).map(lambda k: k / 64))
)


def _all_pairs(configurations: int) -> tuple[np.ndarray, np.ndarray]:
    first, second = np.triu_indices(configurations, 1)
    return first, second


@given(matrices, st.sampled_from([0.9, 0.95, 0.99]))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_the_t_interval_is_scipy_s(matrix, level):
    first, second = _all_pairs(matrix.shape[0])
    table = paired_difference_intervals(matrix, first, second, level=level, resamples=20)
    for row, (a, b) in enumerate(zip(first, second)):
        differences = matrix[a] - matrix[b]
        assert table["difference"][row] == differences.mean()
        if np.all(differences == differences[0]):
            # scipy gives NaN; here the interval has no width.
            assert table["t_low"][row] == table["t_high"][row] == table["difference"][row]
            continue
        expected = scipy_stats.ttest_rel(matrix[a], matrix[b]).confidence_interval(level)
        assert table["t_low"][row] == pytest.approx(expected.low, rel=1e-9, abs=1e-12)
        assert table["t_high"][row] == pytest.approx(expected.high, rel=1e-9, abs=1e-12)


@given(matrices, st.integers(0, 2**32))
def test_the_bootstrap_interval_is_bootstrap_ci_of_the_difference_to_the_bit(matrix, seed):
    first, second = _all_pairs(matrix.shape[0])
    table = paired_difference_intervals(matrix, first, second, resamples=200, seed=seed)
    for row, (a, b) in enumerate(zip(first, second)):
        low, high = bootstrap_ci(matrix[a] - matrix[b], resamples=200, seed=seed)
        assert (table["bootstrap_low"][row], table["bootstrap_high"][row]) == (low, high)


def test_the_intervals_cover_the_mean_and_agree_with_scipy_s_bootstrap():
    rng = np.random.default_rng(3)
    matrix = np.clip(rng.normal(0.5, 0.2, (3, 40)) + np.array([[0.0], [0.05], [0.1]]), 0, 1)
    first, second = np.array([1, 2, 2]), np.array([0, 0, 1])
    table = paired_difference_intervals(matrix, first, second, resamples=40_000, seed=5)
    assert (table["bootstrap_low"] < table["difference"]).all() and (table["difference"] < table["bootstrap_high"]).all()
    assert (table["t_low"] < table["difference"]).all() and (table["difference"] < table["t_high"]).all()
    for row, (a, b) in enumerate(zip(first, second)):
        # Another generator: the endpoints agree within their Monte Carlo error (about 1% of the width
        # at 40 000 resamples each), far below the difference of a wrong statistic or level.
        theirs = scipy_stats.bootstrap(
            (matrix[a] - matrix[b],), np.mean, n_resamples=40_000, method="percentile", random_state=np.random.default_rng(9)
        ).confidence_interval
        width = theirs.high - theirs.low
        assert abs(table["bootstrap_low"][row] - theirs.low) < 0.03 * width
        assert abs(table["bootstrap_high"][row] - theirs.high) < 0.03 * width


def test_a_constant_difference_has_a_zero_wide_t_interval():
    # The mean of seven differences of 0.1 rounds to 0.09999999999999999, so their standard deviation is not 0 but 1.5e-17.
    base = np.arange(7) / 8
    table = paired_difference_intervals(np.vstack([np.full(7, 0.1), np.zeros(7), base, base]), np.array([0, 2]), np.array([1, 3]),
                                        resamples=50)
    assert (table["t_low"] == table["t_high"]).all() and (table["t_low"] == table["difference"]).all()
    assert table.loc[1, ["difference", "t_low", "t_high", "bootstrap_low", "bootstrap_high"]].tolist() == [0.0] * 5


def test_chunks_of_pairs_see_the_same_draws(monkeypatch):
    rng = np.random.default_rng(4)
    matrix = rng.random((6, 25))
    first, second = _all_pairs(6)
    whole = paired_difference_intervals(matrix, first, second, resamples=300, seed=2)
    calls = []
    # Chunks of 2 pairs by the bound on differences (8 chunks), then of 3 by the bound on bootstrap means (5).
    monkeypatch.setattr(module, "_PAIR_CELLS", 2 * 25)
    pd.testing.assert_frame_equal(
        paired_difference_intervals(matrix, first, second, resamples=300, seed=2, progress=lambda *call: calls.append(call)), whole,
        check_exact=True,
    )
    assert calls[-1] == (8 * 300, 8 * 300) and [done for done, _ in calls] == sorted(done for done, _ in calls)
    monkeypatch.setattr(module, "_PAIR_CELLS", 2**30)
    monkeypatch.setattr(module, "MAX_BOOTSTRAP_BYTES", 3 * 300 * 8)
    pd.testing.assert_frame_equal(paired_difference_intervals(matrix, first, second, resamples=300, seed=2), whole, check_exact=True)
    # A pair's intervals do not depend on the other pairs asked for, nor on their order.
    alone = paired_difference_intervals(matrix, first[[9, 3]], second[[9, 3]], resamples=300, seed=2)
    pd.testing.assert_frame_equal(alone, whole.iloc[[9, 3]].reset_index(drop=True), check_exact=True)


def test_no_pairs_give_an_empty_table():
    table = paired_difference_intervals(np.zeros((2, 3)), np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    assert list(table.columns) == list(INTERVAL_COLUMNS) and len(table) == 0


@pytest.mark.parametrize(
    ("matrix", "first", "second", "message"),
    [
        (np.zeros((3, 4)), np.array([0, 3]), np.array([1, 1]), r"first\[1\] = 3 is not a row of the matrix \(0 to 2\)"),
        (np.zeros((3, 4)), np.array([0]), np.array([-1]), r"second\[0\] = -1 is not a row"),
        (np.zeros((3, 4)), np.array([0.0]), np.array([1]), r"first must be a 1-d array of configuration row numbers, got float64"),
        (np.zeros((3, 4)), np.array([0, 1]), np.array([1]), r"as long \(one entry per pair\), got 2 and 1"),
        (np.zeros((3, 1)), np.array([0]), np.array([1]), r"at least 1 configuration and 2 queries, got shape \(3, 1\)"),
        (np.array([[0.0, np.nan]]), np.array([0]), np.array([0]), r"configuration 0, query 1 is nan"),
    ],
)
def test_bad_pairs_or_scores_are_refused(matrix, first, second, message):
    # The library's errors (ValueErrors too), which the command line shows as one line.
    with pytest.raises(RetrievalEvalError, match=message):
        paired_difference_intervals(matrix, first, second, resamples=10)


def test_settings_are_checked():
    with pytest.raises(RetrievalEvalError, match=r"level must be a number in \(0, 1\)"):
        paired_difference_intervals(np.zeros((2, 3)), np.array([0]), np.array([1]), level=95)
