"""Two-way ANOVA without replication: against statsmodels' AnovaRM, the definitions in plain Python, and its invariances."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats as scipy_stats
from statsmodels.stats.anova import AnovaRM
from statsmodels.stats.libqsturng import qsturng

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.sweep.anova import TABLE_COLUMNS, TABLE_ROWS, sakai_effect_sizes, tukey_margin_of_error, two_way_anova

# Scores on a grid of 1/64 in [0, 1]: ties and repeated values are common, as in real per-query scores.
matrices = st.tuples(st.integers(2, 6), st.integers(2, 12)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.integers(0, 64).map(lambda k: k / 64))
)


def _reference(matrix: np.ndarray) -> dict[str, float]:
    """The sums of squares from their definitions, one score at a time."""
    rows = [list(map(float, row)) for row in matrix]
    m, n = len(rows), len(rows[0])
    grand = sum(sum(row) for row in rows) / (m * n)
    row_means = [sum(row) / n for row in rows]
    column_means = [sum(rows[i][j] for i in range(m)) / m for j in range(n)]
    return {
        "ss_systems": n * sum((mean - grand) ** 2 for mean in row_means),
        "ss_topics": m * sum((mean - grand) ** 2 for mean in column_means),
        "ss_residual": sum((rows[i][j] - row_means[i] - column_means[j] + grand) ** 2 for i in range(m) for j in range(n)),
        "ss_total": sum((value - grand) ** 2 for row in rows for value in row),
    }


def _long(matrix: np.ndarray) -> pd.DataFrame:
    m, n = matrix.shape
    return pd.DataFrame({"score": matrix.ravel(), "system": np.repeat(np.arange(m), n), "query": np.tile(np.arange(n), m)})


@given(matrices)
def test_sums_of_squares_are_the_definitions(matrix):
    anova = two_way_anova(matrix)
    for name, expected in _reference(matrix).items():
        assert getattr(anova, name) == pytest.approx(expected, rel=1e-9, abs=1e-12), name
    m, n = matrix.shape
    assert (anova.systems, anova.topics) == (m, n)
    assert (anova.df_systems, anova.df_topics, anova.df_residual) == (m - 1, n - 1, (m - 1) * (n - 1))
    assert anova.ss_total == pytest.approx(anova.ss_systems + anova.ss_topics + anova.ss_residual, rel=1e-9, abs=1e-12)
    assert anova.residual_variance == anova.ss_residual / anova.df_residual


@given(matrices)
def test_f_and_p_of_the_systems_are_anova_rm_s(matrix):
    anova = two_way_anova(matrix)
    if anova.ss_residual < 1e-9:
        return  # AnovaRM divides rounding noise by rounding noise there; the exact case is tested below
    row = AnovaRM(_long(matrix), "score", "query", within=["system"]).fit().anova_table.loc["system"]
    assert anova.f_systems == pytest.approx(row["F Value"], rel=1e-9, abs=1e-12)
    assert anova.p_systems == pytest.approx(row["Pr > F"], rel=1e-9, abs=1e-12)
    assert (row["Num DF"], row["Den DF"]) == (anova.df_systems, anova.df_residual)


@given(matrices)
def test_p_values_are_the_f_distribution_s_tail(matrix):
    anova = two_way_anova(matrix)
    if anova.ms_residual == 0:
        return
    assert anova.f_systems == anova.ms_systems / anova.ms_residual
    assert anova.p_systems == scipy_stats.f.sf(anova.f_systems, anova.df_systems, anova.df_residual)
    assert anova.p_topics == scipy_stats.f.sf(anova.f_topics, anova.df_topics, anova.df_residual)


@given(matrices, st.data())
def test_a_constant_added_to_a_configuration_moves_only_the_systems(matrix, data):
    row = data.draw(st.integers(0, matrix.shape[0] - 1))
    shift = data.draw(st.integers(1, 64)) / 64
    shifted = matrix.copy()
    shifted[row] += shift
    before, after = two_way_anova(matrix), two_way_anova(shifted)
    assert after.ss_residual == pytest.approx(before.ss_residual, rel=1e-9, abs=1e-12)
    assert after.ss_topics == pytest.approx(before.ss_topics, rel=1e-9, abs=1e-12)
    # The systems' sum is the definition's on the shifted means (it need not change: a shift can mirror them).
    means = shifted.mean(axis=1)
    expected = shifted.shape[1] * float(np.sum((means - means.mean()) ** 2))
    assert after.ss_systems == pytest.approx(expected, rel=1e-9, abs=1e-12)


@given(matrices, st.randoms(use_true_random=False))
def test_the_table_does_not_depend_on_the_order_of_configurations_or_queries(matrix, random):
    rows, columns = list(range(matrix.shape[0])), list(range(matrix.shape[1]))
    random.shuffle(rows)
    random.shuffle(columns)
    expected = two_way_anova(matrix).table()
    permuted = two_way_anova(matrix[np.ix_(rows, columns)]).table()
    pd.testing.assert_frame_equal(permuted, expected, rtol=1e-9, atol=1e-12)


def test_the_table_lays_out_the_anova():
    matrix = np.array([[0.5, 0.25, 0.75, 1.0], [0.25, 0.25, 0.5, 0.75], [0.0, 0.5, 0.25, 0.5]])
    anova = two_way_anova(matrix)
    table = anova.table()
    assert list(table.index) == list(TABLE_ROWS) and list(table.columns) == list(TABLE_COLUMNS)
    assert table["df"].tolist() == [2, 3, 6, 11]
    assert table.loc["residual", "ms"] == anova.residual_variance
    assert table.loc["systems", ["ss", "ms", "F", "p"]].tolist() == [anova.ss_systems, anova.ms_systems, anova.f_systems, anova.p_systems]
    assert table.loc[["residual", "total"], ["F", "p"]].isna().all().all() and math.isnan(table.loc["total", "ms"])


def test_no_residual_gives_an_infinite_f_where_an_effect_exists():
    # Scores that are a configuration effect plus a query effect, with every mean exact in binary:
    # the residual is exactly 0.
    systems = np.array([0.0, 0.25, 0.5, 0.125])
    topics = np.array([0.0, 0.5, 0.25, 0.125, 0.0, 0.375, 0.25, 0.0])
    anova = two_way_anova(systems[:, None] + topics[None, :])
    assert anova.ss_residual == 0 and anova.residual_variance == 0
    assert (anova.f_systems, anova.p_systems, anova.f_topics, anova.p_topics) == (math.inf, 0.0, math.inf, 0.0)
    flat = two_way_anova(np.tile(systems[:, None], (1, 4)))  # no query effect either
    assert flat.f_systems == math.inf and flat.p_systems == 0.0
    assert math.isnan(flat.f_topics) and math.isnan(flat.p_topics)
    constant = two_way_anova(np.full((3, 4), 0.5))
    assert all(math.isnan(value) for value in (constant.f_systems, constant.p_systems, constant.f_topics, constant.p_topics))
    assert tukey_margin_of_error(anova) == 0.0


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.zeros(5), r"configurations x queries matrix .* got shape \(5,\)"),
        (np.zeros((1, 5)), r"at least 2 configurations and 2 queries, got shape \(1, 5\)"),
        (np.zeros((3, 1)), r"got shape \(3, 1\)"),
        (np.array([[0.1, 0.2], [0.3, np.nan]]), r"finite numbers: configuration 1, query 1 is nan \(1 such scores\)"),
        (np.array([[0.1, np.inf], [-np.inf, 0.2]]), r"configuration 0, query 1 is inf \(2 such scores\)"),
    ],
)
def test_a_matrix_that_is_no_balanced_design_is_refused(matrix, message):
    with pytest.raises(InputError, match=message):
        two_way_anova(matrix)


def test_sakai_s_effect_size_divides_by_the_residual_standard_deviation():
    differences = np.array([[0.1, -0.2], [0.0, 0.05]])
    np.testing.assert_array_equal(sakai_effect_sizes(differences, 0.04), differences / 0.2)
    assert sakai_effect_sizes(np.array([0.1, 0.0, -0.3]), 0.0).tolist() == [math.inf, 0.0, -math.inf]
    for bad in (-0.1, math.nan, math.inf):
        with pytest.raises(ConfigError, match="residual variance must be a finite number >= 0"):
            sakai_effect_sizes(differences, bad)


def test_the_margin_of_error_is_the_studentized_range_quantile_times_the_standard_error():
    rng = np.random.default_rng(7)
    matrix = rng.random((5, 20))
    anova = two_way_anova(matrix)
    for level in (0.95, 0.99):
        # statsmodels' qsturng interpolates published tables (an independent computation, to about 1e-4).
        q = qsturng(level, anova.systems, anova.df_residual)
        assert tukey_margin_of_error(anova, level) == pytest.approx(q * math.sqrt(anova.residual_variance / anova.topics), rel=2e-4)
    # In units of the scores: scaling them scales the margin.
    assert tukey_margin_of_error(two_way_anova(3 * matrix)) == pytest.approx(3 * tukey_margin_of_error(anova), rel=1e-12)
    with pytest.raises(ConfigError, match=r"level must be a number in \(0, 1\)"):
        tukey_margin_of_error(anova, 1.0)


def test_the_tukey_intervals_cover_every_true_difference_at_once_at_the_level():
    # Normal residuals around configuration and query effects: the intervals d +- MOE of all the
    # pairs should cover every true difference at once in 95% of the samples. Measured on these
    # samples, a margin from Student's t instead of the studentized range covers 79%, one sqrt(2)
    # too wide 99.7% and one sqrt(2) too narrow 75%: each fails.
    rng = np.random.default_rng(11)
    m, n, samples = 4, 10, 3000
    effects = np.array([0.0, 0.1, 0.3, 0.35])
    topics = rng.random(n)
    reference = two_way_anova(rng.random((m, n)))
    # The studentized range quantile depends only on (m, n): one call, scaled to each sample's V_E.
    per_unit = tukey_margin_of_error(reference) / math.sqrt(reference.residual_variance)
    covered = 0
    for _ in range(samples):
        matrix = effects[:, None] + topics[None, :] + rng.normal(0, 0.1, (m, n))
        margin = per_unit * math.sqrt(two_way_anova(matrix).residual_variance)
        errors = matrix.mean(axis=1) - effects
        covered += errors.max() - errors.min() <= margin  # the widest pair's error is the range of the errors
    spread = math.sqrt(0.95 * 0.05 / samples)
    assert abs(covered / samples - 0.95) < 4 * spread


def test_identical_configurations_have_no_systems_effect_not_a_rounding_noise_f():
    # Two identical runs: ss_systems and ss_residual are 0 in exact arithmetic, about 1e-31 in floating point
    # (0.1 + 0.2 style means); their ratio was an F of 24, p < 0.0001, for configurations that are the same.
    rng = np.random.default_rng(3)
    run = rng.integers(0, 10, size=25) / 10 + rng.random(25) / 3
    anova = two_way_anova(np.vstack([run, run, run]))
    assert anova.ss_systems == 0.0 and anova.ss_residual == 0.0 and anova.residual_variance == 0.0
    assert math.isnan(anova.f_systems) and math.isnan(anova.p_systems)
    assert anova.f_topics == math.inf and anova.p_topics == 0.0
    shifted = two_way_anova(np.vstack([run, run + 0.1, run + 0.3]))  # a constant per configuration: an effect, no residual
    assert shifted.ss_systems > 0 and shifted.ss_residual == 0.0 and shifted.f_systems == math.inf
