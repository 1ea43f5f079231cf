"""Paired statistics: against scipy, exact enumeration, plain-Python oracles and textbook cases."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats as scipy_stats

from retrieval_eval.sweep import bootstrap_ci, holm, paired_effect_size, paired_t_test, randomization_test
from retrieval_eval.sweep import stats as module

scores_strategy = st.integers(2, 12).flatmap(
    lambda n: st.tuples(
        arrays(np.float64, (3, n), elements=st.floats(0, 1, allow_nan=False)),
        arrays(np.float64, n, elements=st.floats(0, 1, allow_nan=False)),
    )
)


@given(scores_strategy)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_t_test_is_scipy_s_where_defined(pair):
    scores, baseline = pair
    t, p = paired_t_test(scores, baseline)
    for row in range(scores.shape[0]):
        differences = scores[row] - baseline
        if np.all(differences == differences[0]):
            continue  # undefined for scipy; our convention is tested below
        expected = scipy_stats.ttest_rel(scores[row], baseline)
        # NaN where scipy gives NaN (differences so small that their variance underflows).
        np.testing.assert_allclose(t[row], expected.statistic, rtol=1e-9, atol=1e-12, equal_nan=True)
        np.testing.assert_allclose(p[row], expected.pvalue, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_identical_runs_are_never_significant():
    rng = np.random.default_rng(1)
    baseline = rng.random(30)
    scores = np.vstack([baseline, baseline])
    t, p = paired_t_test(scores, baseline)
    assert t.tolist() == [0.0, 0.0] and p.tolist() == [1.0, 1.0]
    assert randomization_test(scores, baseline, rounds=500).tolist() == [1.0, 1.0]
    assert paired_effect_size(scores, baseline).tolist() == [0.0, 0.0]


def test_a_run_that_wins_on_every_query_is_significant():
    rng = np.random.default_rng(2)
    baseline = rng.random(20) * 0.5
    better = baseline + 0.05 + rng.random(20) * 0.1
    _, p = paired_t_test(better, baseline)
    assert p[0] < 1e-6
    # Only the all-plus and all-minus flips (2 of 2^20) reach the observed difference.
    assert randomization_test(better, baseline, rounds=2_000)[0] == 1 / 2_001
    assert paired_effect_size(better, baseline)[0] > 1


def test_a_constant_nonzero_difference_is_certain():
    baseline = np.arange(10) / 32  # exact in binary, so every difference is exactly 1/4
    t, p = paired_t_test(baseline + 0.25, baseline)
    assert t[0] == math.inf and p[0] == 0.0
    assert paired_effect_size(baseline - 0.25, baseline)[0] == -math.inf


def _exact_randomization_p(differences: np.ndarray) -> float:
    observed = abs(differences.sum())
    flips = [abs(np.dot(signs, differences)) for signs in itertools.product((-1, 1), repeat=len(differences))]
    return sum(value >= observed - 1e-12 for value in flips) / len(flips)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_randomization_estimates_the_exact_permutation_p_value(seed):
    rng = np.random.default_rng(seed)
    baseline = rng.random(10)
    scores = np.vstack([baseline + rng.normal(0, 0.1, 10), baseline + rng.normal(0.05, 0.1, 10)])
    rounds = 20_000
    estimated = randomization_test(scores, baseline, rounds=rounds, seed=seed)
    for row in range(2):
        exact = _exact_randomization_p(scores[row] - baseline)
        error = 4 * math.sqrt(exact * (1 - exact) / rounds) + 1 / rounds
        assert abs(estimated[row] - exact) <= error


def test_randomization_uses_the_same_flips_for_every_configuration():
    rng = np.random.default_rng(6)
    baseline, scores = rng.random(15), rng.random((4, 15))
    together = randomization_test(scores, baseline, rounds=3_000, seed=9)
    one_by_one = [randomization_test(row, baseline, rounds=3_000, seed=9)[0] for row in scores]
    assert together.tolist() == one_by_one
    assert randomization_test(scores[::-1], baseline, rounds=3_000, seed=9).tolist() == together[::-1].tolist()


def _oracle_bootstrap(scores: np.ndarray, resamples: int, level: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    picks = np.random.default_rng(seed).integers(0, scores.shape[1], size=(resamples, scores.shape[1]))
    means = np.array([[row[draw].mean() for row in scores] for draw in picks])
    return tuple(np.quantile(means, [(1 - level) / 2, (1 + level) / 2], axis=0))


@given(arrays(np.float64, (2, 7), elements=st.floats(0, 1, allow_nan=False)), st.sampled_from([0.9, 0.95]))
def test_bootstrap_is_the_percentile_interval_of_resampled_means(scores, level):
    low, high = bootstrap_ci(scores, resamples=300, level=level, seed=11)
    expected_low, expected_high = _oracle_bootstrap(scores, 300, level, 11)
    np.testing.assert_allclose(low, expected_low, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(high, expected_high, rtol=1e-12, atol=1e-12)
    assert np.all(low <= high)


def test_bootstrap_in_small_batches_still_covers_the_mean_with_the_textbook_width(monkeypatch):
    # In batches the draws differ from one big draw but stay a valid bootstrap: the interval
    # of a large sample still covers its mean and has the textbook width.
    monkeypatch.setattr(module, "_BATCH_CELLS", 1_000)
    rng = np.random.default_rng(12)
    scores = rng.normal(0.5, 0.2, size=(1, 400))
    low, high = bootstrap_ci(scores, resamples=2_000, seed=1)
    mean, error = scores.mean(), scores.std(ddof=1) / math.sqrt(400)
    assert low[0] < mean < high[0]
    assert (high[0] - low[0]) == pytest.approx(2 * 1.96 * error, rel=0.15)


def _oracle_holm(pvalues: list[float]) -> list[float]:
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[index]))
        adjusted[index] = running
    return adjusted


def test_holm_textbook_example():
    assert holm(np.array([0.01, 0.04, 0.03, 0.005])).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])


@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=20))
def test_holm_matches_the_step_down_definition(pvalues):
    adjusted = holm(np.array(pvalues))
    assert adjusted.tolist() == pytest.approx(_oracle_holm(pvalues))
    assert np.all(adjusted >= np.array(pvalues) - 1e-15)


def test_holm_leaves_nan_out():
    adjusted = holm(np.array([0.01, np.nan, 0.02]))
    assert math.isnan(adjusted[1]) and adjusted[[0, 2]].tolist() == pytest.approx([0.02, 0.02])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: paired_t_test(np.ones((2, 3)), np.ones(4)), "configurations x queries"),
        (lambda: paired_t_test(np.ones((2, 1)), np.ones(1)), "at least two queries"),
        (lambda: paired_t_test(np.array([[np.nan, 1.0]]), np.ones(2)), "must not be NaN"),
        (lambda: randomization_test(np.ones((1, 3)), np.ones(3), rounds=0), "rounds must be an integer from 1 to 1000000, got 0"),
        (lambda: bootstrap_ci(np.ones((1, 3)), level=1.0), r"level must be a number in \(0, 1\), got 1.0"),
        (lambda: bootstrap_ci(np.ones((1, 0))), "at least one query"),
    ],
)
def test_bad_input_is_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
