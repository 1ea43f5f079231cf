"""Power and topic-set size: against statsmodels' TTestPower and FTestAnovaPower, brute force and simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats as scipy_stats
from statsmodels.stats.power import FTestAnovaPower, TTestPower

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.sweep.anova import two_way_anova
from retrieval_eval.sweep.power import (
    SIZE_COLUMNS,
    anova_power,
    anova_topic_set_size,
    t_test_power,
    t_test_topic_set_size,
    topic_set_sizes,
    within_system_variance,
)

alphas = st.sampled_from([0.01, 0.05, 0.1])
variances = st.floats(0.001, 0.2)
differences = st.floats(0.005, 0.5)


def _t_effect(min_difference: float, variance: float) -> float:
    return min_difference / math.sqrt(2 * variance)  # sigma_d^2 = 2 sigma^2


def _anova_effect(min_range: float, variance: float, systems: int) -> float:
    return math.sqrt(min_range**2 / (2 * variance) / systems)  # Cohen's f with f^2 * m n = n * Delta


@given(st.integers(2, 2000), differences, variances, alphas)
def test_t_test_power_is_statsmodels(queries, min_difference, variance, alpha):
    effect = _t_effect(min_difference, variance)
    expected = TTestPower().power(effect, nobs=queries, alpha=alpha, alternative="two-sided")
    power = t_test_power(queries, min_difference, variance, alpha=alpha)
    if math.isnan(expected):
        # statsmodels adds scipy's nct.cdf of the lower tail, NaN far out in it (df 155, nc 8.8):
        # there the power is the upper tail and a lower one within [0, alpha / 2].
        upper = scipy_stats.nct.sf(scipy_stats.t.isf(alpha / 2, queries - 1), queries - 1, effect * math.sqrt(queries))
        assert upper <= power <= upper + alpha / 2
    else:
        assert power == pytest.approx(expected, rel=1e-10, abs=1e-12)


@given(st.integers(2, 2000), st.integers(2, 50), differences, variances, alphas)
def test_anova_power_is_statsmodels(queries, systems, min_range, variance, alpha):
    effect = _anova_effect(min_range, variance, systems)
    expected = FTestAnovaPower().power(effect, nobs=systems * queries, alpha=alpha, k_groups=systems)
    power = anova_power(queries, systems, min_range, variance, alpha=alpha)
    if math.isnan(expected):
        # statsmodels takes 1 - scipy's ncf.cdf, NaN where the power is 1 to double precision (lambda 1500).
        assert power == scipy_stats.ncf.sf(scipy_stats.f.isf(alpha, systems - 1, systems * (queries - 1)),
                                           systems - 1, systems * (queries - 1), queries * effect**2 * systems)  # fmt: skip
    else:
        assert power == pytest.approx(expected, rel=1e-10, abs=1e-12)


@given(st.floats(0.02, 0.5), variances, alphas, st.sampled_from([0.5, 0.8, 0.9]))
@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.ConvergenceWarning")
def test_the_t_test_topic_set_size_is_the_smallest_with_enough_power(min_difference, variance, alpha, power):
    size = t_test_topic_set_size(min_difference, variance, alpha=alpha, power=power)
    assert size >= 2 and t_test_power(size, min_difference, variance, alpha=alpha) >= power
    assert size == 2 or t_test_power(size - 1, min_difference, variance, alpha=alpha) < power
    effect = _t_effect(min_difference, variance)
    solved = TTestPower().solve_power(effect, nobs=None, alpha=alpha, power=power)
    # Its root finder can fail at a few queries: NaN, its lower bound 2.0, or a number whose power
    # is not the target (power 0.23 at 2.54 queries for a target of 0.5). Where its answer is a root:
    if abs(TTestPower().power(effect, nobs=solved, alpha=alpha) - power) < 1e-6:
        assert size == max(2, math.ceil(solved - 1e-6))  # solve_power's root, to its tolerance


@given(st.floats(0.02, 0.5), variances, st.integers(2, 30), alphas, st.sampled_from([0.5, 0.8, 0.9]))
@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.ConvergenceWarning")
def test_the_anova_topic_set_size_is_the_smallest_with_enough_power(min_range, variance, systems, alpha, power):
    size = anova_topic_set_size(min_range, variance, systems, alpha=alpha, power=power)
    assert size >= 2 and anova_power(size, systems, min_range, variance, alpha=alpha) >= power
    assert size == 2 or anova_power(size - 1, systems, min_range, variance, alpha=alpha) < power
    effect = _anova_effect(min_range, variance, systems)
    solved = FTestAnovaPower().solve_power(effect, nobs=None, alpha=alpha, power=power, k_groups=systems)
    # As for the t-test, where its answer is a root (in total observations, m per query):
    if abs(FTestAnovaPower().power(effect, nobs=solved, alpha=alpha, k_groups=systems) - power) < 1e-6:
        assert size == max(2, math.ceil(solved / systems - 1e-6))


def test_topic_set_sizes_by_brute_force():
    for min_difference, variance in [(0.05, 0.01), (0.1, 0.02), (0.3, 0.005)]:
        brute = next(n for n in range(2, 10_000) if t_test_power(n, min_difference, variance) >= 0.8)
        assert t_test_topic_set_size(min_difference, variance) == brute
        brute = next(n for n in range(2, 10_000) if anova_power(n, 10, min_difference, variance) >= 0.8)
        assert anova_topic_set_size(min_difference, variance, 10) == brute


def test_no_difference_is_detected_as_often_as_alpha():
    assert t_test_power(30, 0.0, 0.01, alpha=0.05) == pytest.approx(0.05, abs=1e-12)
    assert anova_power(30, 5, 0.0, 0.01, alpha=0.05) == pytest.approx(0.05, abs=1e-12)


def test_power_grows_with_queries_and_the_difference_and_sizes_shrink():
    queries = [2, 5, 10, 50, 200]
    assert np.all(np.diff([t_test_power(n, 0.05, 0.02) for n in queries]) > 0)
    assert np.all(np.diff([anova_power(n, 8, 0.05, 0.02) for n in queries]) > 0)
    sizes = [t_test_topic_set_size(d, 0.02) for d in (0.02, 0.05, 0.1, 0.2)]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]
    # More configurations to tell apart need more queries for the same range.
    assert anova_topic_set_size(0.1, 0.02, 20) > anova_topic_set_size(0.1, 0.02, 2)


def test_the_anova_power_is_the_rejection_rate_of_the_least_favourable_means():
    # m configurations whose true means span min_range, the others at the midpoint (the smallest
    # spread of means with that range): a one-way ANOVA rejects as often as anova_power says.
    rng = np.random.default_rng(8)
    m, n, variance, min_range, samples = 4, 12, 0.02, 0.15, 4000
    means = np.array([0.0, 0.5, 0.5, 1.0]) * min_range
    scores = means[None, :, None] + rng.normal(0, math.sqrt(variance), (samples, m, n))
    p = scipy_stats.f_oneway(*(scores[:, i, :] for i in range(m)), axis=1).pvalue
    expected = anova_power(n, m, min_range, variance)
    assert abs(np.mean(p <= 0.05) - expected) < 4 * math.sqrt(expected * (1 - expected) / samples)


def test_a_sweep_s_table_uses_its_residual_variance_and_query_count():
    rng = np.random.default_rng(6)
    matrix = np.clip(rng.random(30)[None, :] + rng.normal(0, 0.1, (5, 30)), 0, 1)
    table = topic_set_sizes(matrix, min_differences=[0.05, 0.1, 0.2], alpha=0.05, power=0.8)
    variance = two_way_anova(matrix).residual_variance
    assert list(table.columns) == list(SIZE_COLUMNS) and table["min_difference"].tolist() == [0.05, 0.1, 0.2]
    assert table["t_test_topics"].dtype == np.int64 and table["anova_topics"].dtype == np.int64
    for row, d in enumerate([0.05, 0.1, 0.2]):
        assert table["t_test_topics"][row] == t_test_topic_set_size(d, variance)
        assert table["t_test_power"][row] == t_test_power(30, d, variance)
        assert table["anova_topics"][row] == anova_topic_set_size(d, variance, 5)
        assert table["anova_power"][row] == anova_power(30, 5, d, variance)
    assert topic_set_sizes(matrix, min_differences=[]).shape == (0, len(SIZE_COLUMNS))


@given(st.tuples(st.integers(2, 6), st.integers(2, 12)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.integers(0, 64).map(lambda k: k / 64))
))  # fmt: skip
def test_the_within_system_variance_is_the_one_way_residual(matrix):
    m, n = matrix.shape
    rows = [list(map(float, row)) for row in matrix]
    expected = sum(sum((value - sum(row) / n) ** 2 for value in row) for row in rows) / (m * (n - 1))
    assert within_system_variance(matrix) == pytest.approx(expected, rel=1e-9, abs=1e-12)
    # What the one-way ANOVA leaves unexplained is what the two-way ANOVA puts on the queries and the residual.
    anova = two_way_anova(matrix)
    assert within_system_variance(matrix) == pytest.approx((anova.ss_topics + anova.ss_residual) / (m * (n - 1)), rel=1e-9, abs=1e-12)


def test_a_sweep_s_table_takes_another_variance_estimate():
    rng = np.random.default_rng(6)
    matrix = np.clip(rng.random(30)[None, :] + rng.normal(0, 0.1, (5, 30)), 0, 1)
    within = within_system_variance(matrix)
    table = topic_set_sizes(matrix, min_differences=[0.1], variance=within)
    assert table["t_test_topics"][0] == t_test_topic_set_size(0.1, within)
    assert table["anova_power"][0] == anova_power(30, 5, 0.1, within)
    # The queries' own variation kept in: more queries needed than with the two-way V_E.
    assert table["t_test_topics"][0] > topic_set_sizes(matrix, min_differences=[0.1])["t_test_topics"][0]
    with pytest.raises(ConfigError, match="variance must be a finite number > 0"):
        topic_set_sizes(matrix, min_differences=[0.1], variance=0.0)


def test_a_sweep_without_residual_variance_has_no_size_to_design():
    additive = np.array([0.0, 0.25])[:, None] + np.array([0.0, 0.5, 0.25, 0.125])[None, :]
    with pytest.raises(InputError, match="residual variance V_E of the scores is 0"):
        topic_set_sizes(additive, min_differences=[0.1])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: t_test_power(1, 0.1, 0.01), "queries must be an integer >= 2, got 1"),
        (lambda: t_test_power(True, 0.1, 0.01), "queries must be an integer >= 2, got True"),
        (lambda: t_test_power(10.0, 0.1, 0.01), r"queries must be an integer >= 2, got 10\.0"),
        (lambda: anova_power(10, 1, 0.1, 0.01), "systems must be an integer >= 2, got 1"),
        (lambda: t_test_power(10, 0.1, 0.0), r"variance must be a finite number > 0 \(sigma\^2"),
        (lambda: anova_power(10, 3, 0.1, math.nan), "variance must be a finite number > 0"),
        (lambda: t_test_power(10, -0.1, 0.01), "min_difference must be a finite number >= 0"),
        (lambda: t_test_topic_set_size(0.0, 0.01), r"min_difference must be a finite number > 0 \(in units of the scores\), got 0\.0"),
        (lambda: anova_topic_set_size(0.0, 0.01, 3), "min_range must be a finite number > 0"),
        (lambda: topic_set_sizes(np.eye(3), min_differences=[0.1, None]), "min_difference must be a finite number > 0 .* got None"),
        (lambda: t_test_power(10, True, 0.01), "min_difference must be a finite number >= 0 .* got True"),
        (lambda: t_test_power(np.int64(10), 0.1, np.float64(-1)), r"variance must be a finite number > 0 .* got -1\.0"),
        (lambda: t_test_power(10, 0.1, 0.01, alpha=1.5), r"alpha must be a number in \(0, 1\)"),
        (lambda: t_test_topic_set_size(0.1, 0.01, power=1.0), r"power must be a number in \(0, 1\)"),
    ],
)
def test_bad_settings_are_refused(call, message):
    with pytest.raises(ConfigError, match=message):
        call()
