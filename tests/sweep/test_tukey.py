"""The randomised Tukey HSD: against a plain-Python reference from the definition, textbook cases and properties."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats as scipy_stats

from retrieval_eval.errors import ConfigError
from retrieval_eval.sweep import randomization_test
from retrieval_eval.sweep import stats as stats_module
from retrieval_eval.sweep.tukey import randomised_tukey_hsd, tukey_null_ranges

MASK = 2**64 - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix(z: int) -> int:
    """splitmix64's finalizer on a Python int (mod 2^64)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def reference_order(seed: int, permutation: int, query: int, m: int) -> list[int]:
    """The configuration each position of a query's sorted scores goes to, as the kernel's module docstring defines it."""
    key = int(np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)[0])
    state = mix((mix(key ^ mix(((permutation + 1) * GOLDEN) & MASK)) + (query + 1) * GOLDEN) & MASK)
    order = list(range(m))
    for i in range(m - 1, 0, -1):
        state = (state + GOLDEN) & MASK
        j = ((mix(state) >> 32) * (i + 1)) >> 32
        order[i], order[j] = order[j], order[i]
    return order


def reference_pvalues(matrix: np.ndarray, permutations: int, seed: int) -> list[float]:
    """The definition, one permutation, query and configuration at a time (sums added query after query)."""
    m, n = matrix.shape
    by_query = [sorted(float(v) + 0.0 for v in matrix[:, q]) for q in range(n)]
    ranges = []
    for b in range(permutations):
        sums = [0.0] * m
        for q in range(n):
            order = reference_order(seed, b, q, m)
            for c in range(m):
                sums[c] = by_query[q][order[c]] if q == 0 else sums[c] + by_query[q][order[c]]
        ranges.append(max(sums) - min(sums))
    observed_sums = []
    for c in range(m):
        total = float(matrix[c, 0]) + 0.0
        for q in range(1, n):
            total += float(matrix[c, q])
        observed_sums.append(total)
    pvalues = []
    for a, b in itertools.combinations(range(m), 2):
        observed = abs(observed_sums[a] - observed_sums[b])
        threshold = observed - 1e-12 * max(observed, 1.0)
        pvalues.append((1 + sum(r >= threshold for r in ranges)) / (1 + permutations))
    return pvalues


matrices = st.tuples(st.integers(2, 5), st.integers(2, 8)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(-1, 1, allow_nan=False))
)


@given(matrices, st.integers(0, 2**70))
def test_p_values_are_the_definition_s(matrix, seed):
    # Scores drawn from a few values too, so that permutations reproducing an observed difference (ties) are frequent.
    assert randomised_tukey_hsd(matrix, permutations=40, seed=seed).tolist() == reference_pvalues(matrix, 40, seed)


def test_the_generator_draws_every_order_of_the_configurations_equally_often():
    counts: dict[tuple[int, ...], int] = {}
    for b, q in itertools.product(range(400), range(60)):
        order = tuple(reference_order(3, b, q, 4))
        counts[order] = counts.get(order, 0) + 1
    assert len(counts) == 24
    assert scipy_stats.chisquare(list(counts.values())).pvalue > 1e-3


def test_the_null_ranges_are_the_permuted_means_range():
    rng = np.random.default_rng(3)
    matrix = rng.random((4, 9))
    ranges = tukey_null_ranges(matrix, permutations=30, seed=5)
    by_query = np.sort(matrix.T, axis=1)
    for b in (0, 17, 29):
        permuted = np.array([by_query[q][reference_order(5, b, q, 4)] for q in range(9)])  # queries x configurations
        means = permuted.sum(axis=0) / 9
        np.testing.assert_allclose(ranges[b], means.max() - means.min(), rtol=1e-12)


def test_identical_configurations_have_every_p_value_1():
    scores = np.random.default_rng(0).random(30)
    assert (randomised_tukey_hsd(np.tile(scores, (4, 1)), permutations=200) == 1.0).all()


def test_a_configuration_better_on_every_query_by_a_large_margin_has_the_smallest_p_value_against_the_others():
    rng = np.random.default_rng(1)
    matrix = rng.random((4, 40))
    matrix[2] += 5.0
    pvalues = dict(zip(zip(*np.triu_indices(4, 1)), randomised_tukey_hsd(matrix, permutations=500)))
    assert all(pvalues[pair] == 1 / 501 for pair in [(0, 2), (1, 2), (2, 3)])
    assert all(pvalues[pair] > 0.05 for pair in [(0, 1), (0, 3), (1, 3)])  # the others are alike


@given(matrices, st.randoms(use_true_random=False))
def test_reordering_the_configurations_reorders_the_pairs_p_values(matrix, random):
    m = matrix.shape[0]
    order = list(range(m))
    random.shuffle(order)
    pvalues = dict(zip(zip(*np.triu_indices(m, 1)), randomised_tukey_hsd(matrix, permutations=50, seed=4)))
    reordered = randomised_tukey_hsd(matrix[order], permutations=50, seed=4)
    # Pair (a, b) of the reordered matrix is pair (order[a], order[b]) of the original (exactly: each query's scores are sorted).
    assert reordered.tolist() == [pvalues[tuple(sorted((order[a], order[b])))] for a, b in zip(*np.triu_indices(m, 1))]


def test_reordering_the_queries_gives_other_draws_from_the_same_distribution():
    # The draws are keyed by the query's position, so the bits change; the p-values agree within
    # the Monte Carlo error of two independent estimates (4.5 standard errors: a false alarm in 10^5).
    rng = np.random.default_rng(2)
    matrix = rng.random((5, 50)) + np.linspace(0, 0.15, 5)[:, None]
    permutations = 4000
    pvalues = randomised_tukey_hsd(matrix, permutations=permutations, seed=1)
    reordered = randomised_tukey_hsd(matrix[:, rng.permutation(50)], permutations=permutations, seed=1)
    spread = np.sqrt(2 * np.maximum(pvalues * (1 - pvalues), 1 / permutations) / permutations)
    assert (np.abs(pvalues - reordered) <= 4.5 * spread).all()
    assert not np.array_equal(pvalues, reordered)


@given(matrices)
def test_a_pair_with_a_larger_difference_of_means_never_has_a_larger_p_value(matrix):
    # Every pair is compared with the same null distribution (the range over all configurations),
    # so the p-values are ordered as the observed differences are.
    pvalues = randomised_tukey_hsd(matrix, permutations=50, seed=2)
    sums = np.cumsum(matrix, axis=1)[:, -1]
    first, second = np.triu_indices(matrix.shape[0], 1)
    gaps = np.abs(sums[first] - sums[second])
    order = np.argsort(gaps, kind="stable")
    assert (np.diff(pvalues[order]) <= 0).all()


def test_two_configurations_agree_with_the_paired_randomization_test_in_distribution():
    # With two configurations, permuting a query's scores is flipping the sign of its difference:
    # the test is Fisher's randomization test (other draws, so within Monte Carlo error).
    rng = np.random.default_rng(4)
    for shift in (0.0, 0.05, 0.1):
        a, b = rng.random(40), rng.random(40) + shift
        tukey = randomised_tukey_hsd(np.stack([a, b]), permutations=4000)[0]
        fisher = randomization_test(a[None], b, rounds=4000)[0]
        assert abs(tukey - fisher) <= 4.5 * np.sqrt(2 * max(tukey * (1 - tukey), 1 / 4000) / 4000)


def test_same_seed_same_bits_and_another_seed_other_draws():
    matrix = np.random.default_rng(5).random((6, 30))
    once = tukey_null_ranges(matrix, permutations=300, seed=9)
    assert once.tobytes() == tukey_null_ranges(matrix, permutations=300, seed=9).tobytes()
    assert not np.array_equal(once, tukey_null_ranges(matrix, permutations=300, seed=10))
    # The first permutations do not depend on how many follow.
    assert once[:100].tobytes() == tukey_null_ranges(matrix, permutations=100, seed=9).tobytes()


def test_the_batches_change_neither_the_bits_nor_the_progress_total(monkeypatch):
    matrix = np.random.default_rng(6).random((5, 20))
    whole = tukey_null_ranges(matrix, permutations=250, seed=3)
    calls = []
    monkeypatch.setattr(stats_module, "_BATCH_CELLS", 7 * matrix.size)  # batches of 7 permutations
    batched = tukey_null_ranges(matrix, permutations=250, seed=3, progress=lambda done, total: calls.append((done, total)))
    assert batched.tobytes() == whole.tobytes()
    assert calls == [(min(done, 250), 250) for done in range(7, 257, 7)]


@pytest.mark.parametrize(
    "matrix, message",
    [
        (np.zeros((1, 5)), r"at least two configurations and two queries; got shape \(1, 5\)"),
        (np.zeros((3, 1)), r"got shape \(3, 1\)"),
        (np.zeros(5), r"got shape \(5,\)"),
        (np.array([[0.1, np.nan], [0.2, 0.3]]), "must be finite"),
        (np.array([[0.1, np.inf], [0.2, 0.3]]), "must be finite"),
    ],
)
def test_a_matrix_that_cannot_be_tested_is_refused(matrix, message):
    with pytest.raises(ValueError, match=message):
        randomised_tukey_hsd(matrix)


@pytest.mark.parametrize("permutations", [0, -1, 1.5, True, 10**6 + 1])
def test_a_count_of_permutations_out_of_bounds_is_refused(permutations):
    with pytest.raises(ConfigError, match="permutations must be an integer from 1 to 1000000"):
        randomised_tukey_hsd(np.zeros((2, 3)), permutations=permutations)
