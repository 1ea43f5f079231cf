"""The Wilcoxon signed-rank and sign tests, Benjamini-Hochberg and Bonferroni, and the tables of names that
choose them: against scipy row by row, statsmodels' multipletests, and properties."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats as scipy_stats
from statsmodels.stats import multitest

from retrieval_eval.errors import ConfigError
from retrieval_eval.sweep import stats as module
from retrieval_eval.sweep.settings import CORRECTION_METHODS, CORRECTIONS, TEST_METHODS, TESTS

# Differences on a coarse grid, so that zeros and tied magnitudes are frequent, or on a fine one, so that they are rare.
differences_strategy = st.tuples(st.integers(1, 5), st.integers(2, 60), st.sampled_from([0.25, 1e-3])).flatmap(
    lambda shape: arrays(np.float64, shape[:2], elements=st.integers(-4, 4).map(lambda k: k * shape[2]))
    | arrays(np.float64, shape[:2], elements=st.floats(-1, 1, allow_nan=False, allow_subnormal=False))
)


def _wilcoxon_oracle(row: np.ndarray) -> float:
    """scipy on one row alone: exact without zeros or tied magnitudes up to 50 queries (scipy's 'auto' there),
    the normal approximation otherwise; 1 where every difference is 0."""
    if not np.any(row != 0):
        return 1.0
    magnitudes = np.abs(row)
    plain = len(row) <= 50 and np.all(magnitudes != 0) and len(np.unique(magnitudes)) == len(row)
    return float(scipy_stats.wilcoxon(row, zero_method="wilcox", method="exact" if plain else "asymptotic").pvalue)


@given(differences_strategy)
def test_wilcoxon_is_scipy_s_row_by_row(differences):
    p = module.wilcoxon_test_of_differences(differences)
    assert p.shape == (differences.shape[0],)
    np.testing.assert_allclose(p, [_wilcoxon_oracle(row) for row in differences], rtol=1e-12, atol=1e-15)


def test_wilcoxon_without_zeros_or_ties_is_scipy_s_auto():
    rng = np.random.default_rng(3)
    differences = rng.normal(size=(4, 20))
    expected = [scipy_stats.wilcoxon(row, method="auto").pvalue for row in differences]
    np.testing.assert_allclose(module.wilcoxon_test_of_differences(differences), expected, rtol=1e-13)


def test_a_row_s_wilcoxon_p_value_does_not_depend_on_the_rows_beside_it():
    # scipy's method='auto' picks one method for the whole array: a row with ties beside would move this one.
    rng = np.random.default_rng(4)
    plain = rng.normal(size=(1, 15))
    tied = np.round(rng.normal(size=(1, 15)), 1)
    tied[0, :2] = 0.0
    alone = module.wilcoxon_test_of_differences(plain)
    together = module.wilcoxon_test_of_differences(np.vstack([plain, tied]))
    assert together[0] == alone[0]


def test_all_zero_differences_give_one_for_every_test():
    zeros = np.zeros((2, 8))
    for name in TESTS:
        assert module.paired_p_values(name, zeros, rounds=99, seed=0).tolist() == [1.0, 1.0], name


@given(differences_strategy)
def test_sign_test_is_scipy_s_binomtest_row_by_row(differences):
    wins, losses = (differences > 0).sum(axis=1), (differences < 0).sum(axis=1)
    expected = [scipy_stats.binomtest(int(win), int(win + loss)).pvalue if win + loss else 1.0 for win, loss in zip(wins, losses)]
    np.testing.assert_allclose(module.sign_test_of_differences(differences), expected, rtol=1e-12, atol=1e-300)


def test_sign_test_textbook_case():
    # 9 wins, 1 loss, 2 ties: p = 2 * (1 + 10) / 2^10.
    differences = np.array([[1.0] * 9 + [-0.5] + [0.0] * 2])
    assert module.sign_test_of_differences(differences).tolist() == pytest.approx([22 / 1024], rel=1e-14)


@given(differences_strategy)
def test_the_rank_tests_are_symmetric_in_the_sign_of_the_differences(differences):
    for name in ("wilcoxon", "sign"):
        p = module.paired_p_values(name, differences, rounds=1, seed=0)
        np.testing.assert_allclose(module.paired_p_values(name, -differences, rounds=1, seed=0), p, rtol=1e-12)
        assert np.all((p > 0) & (p <= 1))


@given(differences_strategy, st.randoms(use_true_random=False))
def test_the_tests_are_invariant_to_the_order_of_rows_and_of_queries(differences, random):
    rows = list(range(differences.shape[0]))
    queries = list(range(differences.shape[1]))
    random.shuffle(rows)
    random.shuffle(queries)
    shuffled = differences[rows][:, queries]
    for name in ("t", "wilcoxon", "sign"):
        p = module.paired_p_values(name, differences, rounds=1, seed=0)
        np.testing.assert_allclose(module.paired_p_values(name, shuffled, rounds=1, seed=0), p[rows], rtol=1e-9, atol=1e-300)


def test_test_of_differences_is_each_test_s_function():
    rng = np.random.default_rng(5)
    differences = np.round(rng.normal(size=(3, 25)), 2)
    assert np.array_equal(module.paired_p_values("t", differences, rounds=9, seed=1),
                          module.t_test_of_differences(differences)[1])  # fmt: skip
    assert np.array_equal(module.paired_p_values("randomization", differences, rounds=500, seed=7),
                          module.randomization_test_of_differences(differences, rounds=500, seed=7))  # fmt: skip
    assert np.array_equal(module.paired_p_values("wilcoxon", differences, rounds=9, seed=1),
                          module.wilcoxon_test_of_differences(differences))  # fmt: skip
    assert np.array_equal(module.paired_p_values("sign", differences, rounds=9, seed=1),
                          module.sign_test_of_differences(differences))  # fmt: skip


# p-values with ties (drawn from a few values), ones and NaN.
pvalues_strategy = st.lists(st.sampled_from([0.0, 0.001, 0.01, 0.04, 0.05, 0.2, 1.0]) | st.floats(0, 1), min_size=1, max_size=40)


def multipletests(pvalues: np.ndarray, method: str) -> tuple:
    """statsmodels' ``multipletests``, without the full garbage collection its Holm branch runs on every call
    (``gc.collect()``, which frees memory and changes no value: 0.2-0.9 s a call in a test process, most of this
    file's time; it imports ``gc`` inside the function, so the module's ``collect`` is what is replaced, for the call)."""
    with mock.patch("gc.collect", lambda *args, **kwargs: 0):
        return multitest.multipletests(pvalues, method=method)


@given(pvalues_strategy)
def test_corrections_are_statsmodels_multipletests(pvalues):
    pvalues = np.array(pvalues)
    for name, method in (("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")):
        np.testing.assert_allclose(module.corrected(name, pvalues), multipletests(pvalues, method=method)[1],
                                   rtol=1e-14, atol=0, err_msg=name)  # fmt: skip
    assert np.array_equal(module.corrected("none", pvalues), pvalues)


@given(pvalues_strategy, st.lists(st.booleans(), min_size=40, max_size=40))
def test_corrections_leave_nan_out_of_the_family(pvalues, missing):
    pvalues = np.array(pvalues)
    with_nan = np.where(np.array(missing[: len(pvalues)]), np.nan, pvalues)
    valid = ~np.isnan(with_nan)
    for name in CORRECTIONS:
        adjusted = module.corrected(name, with_nan)
        assert np.isnan(adjusted[~valid]).all()
        np.testing.assert_array_equal(adjusted[valid], module.corrected(name, with_nan[valid]))


@given(pvalues_strategy)
def test_corrections_are_ordered_as_their_error_rates_are(pvalues):
    pvalues = np.array(pvalues)
    bh, holm_, bonferroni = (module.corrected(name, pvalues) for name in ("bh", "holm", "bonferroni"))
    assert np.all(pvalues <= bh) and np.all(bh <= holm_ * (1 + 1e-15)) and np.all(holm_ <= bonferroni)
    assert np.all(bonferroni <= 1)


def test_benjamini_hochberg_textbook_example():
    # m = 4: sorted 0.005, 0.01, 0.03, 0.04 -> 0.02, 0.02, 0.04, 0.04.
    assert module.benjamini_hochberg(np.array([0.01, 0.04, 0.03, 0.005])).tolist() == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert module.bonferroni(np.array([0.01, np.nan, 0.3])).tolist() == pytest.approx([0.02, np.nan, 0.6], nan_ok=True)


def test_the_names_are_one_table_with_a_caveat_each():
    assert TESTS == ("randomization", "t", "wilcoxon", "sign")
    assert CORRECTIONS == ("holm", "bh", "bonferroni", "none")
    assert all(method.caveat and method.words for method in [*TEST_METHODS.values(), *CORRECTION_METHODS.values()])
    for name in CORRECTIONS:
        assert module.corrected(name, np.array([0.5])).shape == (1,)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: module.paired_p_values("wilcox", np.zeros((1, 3)), rounds=1, seed=0),
     "test must be one of randomization, t, wilcoxon, sign, got 'wilcox'; did you mean 'wilcoxon'?"),
    (lambda: module.corrected("BH", np.zeros(2)), "correction must be one of holm, bh, bonferroni, none, got 'BH'"),
    (lambda: module.corrected(None, np.zeros(2)), "correction must be one of holm, bh, bonferroni, none, got None"),
])  # fmt: skip
def test_an_unknown_name_is_a_config_error_listing_the_names(call, message):
    with pytest.raises(ConfigError) as raised:
        call()
    assert str(raised.value).startswith(message)


def test_wilcoxon_in_batches_is_wilcoxon_at_once(monkeypatch):
    rng = np.random.default_rng(6)
    differences = np.round(rng.normal(size=(7, 40)), 1)
    at_once = module.wilcoxon_test_of_differences(differences)
    monkeypatch.setattr(module, "_BATCH_CELLS", 3 * 40)  # batches of 3 rows
    assert np.array_equal(module.wilcoxon_test_of_differences(differences), at_once)
    assert module.wilcoxon_test_of_differences(differences[0]).shape == ()
