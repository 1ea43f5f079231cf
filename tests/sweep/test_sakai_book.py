"""The worked example of Sakai's book against its published figures.

T. Sakai, *Laboratory Experiments in Information Retrieval: Sample Sizes, Effect Sizes, and
Statistical Power*, Springer 2018: three systems' nDCG@5 on 20 topics, as the elinor project
ships them for its own tests (test-data/sakai-book/X.csv, Y.csv, Z.csv). The figures are the
book's (the two-way ANOVA without replication, Sakai's effect sizes ES_E), as elinor prints them
to 4 decimals. The randomised Tukey HSD's p-values elinor prints are its own random estimate,
with ties to the observed difference counted as floating-point rounding falls: they are checked
to lie between ours with and without the ties, within Monte Carlo error.
"""

from __future__ import annotations

import numpy as np

from retrieval_eval.sweep.anova import sakai_effect_sizes, two_way_anova
from retrieval_eval.sweep.tukey import randomised_tukey_hsd, tukey_null_ranges

SYSTEMS = np.array([
    [0.7, 0.3, 0.2, 0.6, 0.4, 0.4, 0.0, 0.7, 0.1, 0.3, 0.5, 0.4, 0.0, 0.6, 0.5, 0.3, 0.1, 0.5, 0.2, 0.1],
    [0.5, 0.1, 0.0, 0.2, 0.4, 0.3, 0.0, 0.5, 0.3, 0.3, 0.4, 0.4, 0.1, 0.4, 0.2, 0.1, 0.1, 0.6, 0.3, 0.2],
    [0.0, 0.0, 0.2, 0.1, 0.3, 0.3, 0.1, 0.2, 0.4, 0.4, 0.4, 0.3, 0.3, 0.2, 0.2, 0.2, 0.1, 0.5, 0.4, 0.3],
])  # fmt: skip


def test_the_two_way_anova_is_the_book_s():
    anova = two_way_anova(SYSTEMS)
    table = anova.table()
    assert SYSTEMS.mean(axis=1).round(4).tolist() == [0.3450, 0.2700, 0.2450]
    assert table.loc["systems", ["ss", "df", "ms", "F", "p"]].round(4).tolist() == [0.1083, 2, 0.0542, 2.4749, 0.0976]
    assert table.loc["topics", ["ss", "df", "ms", "F", "p"]].round(4).tolist() == [1.0293, 19, 0.0542, 2.4754, 0.0086]
    assert table.loc["residual", ["ss", "df", "ms"]].round(4).tolist() == [0.8317, 38, 0.0219]


def test_sakai_s_effect_sizes_are_the_book_s():
    anova = two_way_anova(SYSTEMS)
    means = SYSTEMS.mean(axis=1)
    first, second = np.triu_indices(3, 1)
    effect = sakai_effect_sizes(means[first] - means[second], anova.residual_variance)
    assert effect.round(4).tolist() == [0.5070, 0.6760, 0.1690]


def test_ties_with_the_observed_difference_are_counted_whatever_the_rounding():
    # In tenths the scores are integers, their sums exact: the same p-values from the same draws
    # (each query's order, all the draws depend on, is the same).
    in_tenths = np.round(SYSTEMS * 10)
    np.testing.assert_array_equal(randomised_tukey_hsd(SYSTEMS, seed=0), randomised_tukey_hsd(in_tenths, seed=0))


def test_the_published_randomised_p_values_lie_between_counting_ties_and_not_within_monte_carlo_error():
    # elinor's p-values (pairs (1, 2), (1, 3), (2, 3); 10,000 permutations of its own) compare floating-point
    # means with >=, so a permutation whose range ties the observed difference counts or not as the rounding
    # falls: on these scores in tenths most ranges tie some difference. Ours count every tie (>=, the definition).
    published = np.array([0.2608, 0.1006, 0.8915])
    in_tenths = np.round(SYSTEMS * 10)
    sums = in_tenths.sum(axis=1)
    first, second = np.triu_indices(3, 1)
    observed = np.abs(sums[first] - sums[second])
    ranges = np.round(tukey_null_ranges(in_tenths, seed=0) * SYSTEMS.shape[1])  # the range of the sums, exact
    strictly = (ranges[:, None] > observed).mean(axis=0)
    at_least = (ranges[:, None] >= observed).mean(axis=0)
    np.testing.assert_allclose(randomised_tukey_hsd(in_tenths, seed=0), (1 + at_least * 10_000) / 10_001)
    error = 4.5 * np.sqrt(2 * published * (1 - published) / 10_000)
    assert np.all((strictly - error <= published) & (published <= at_least + error)), (strictly, published, at_least)
