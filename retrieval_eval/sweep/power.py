"""Statistical power and topic-set size: how many queries a comparison of configurations needs.

After T. Sakai, "Topic set size design", Information Retrieval Journal 19(3), 2016, and the
definitions of his spreadsheet tools. sigma^2 is an estimate of the variance of a per-query
score, by default the residual variance V_E of the two-way ANOVA without replication of the
sweep's matrix (:mod:`.anova`): the variance left once the configurations' and the queries'
effects are taken out, which is what a paired comparison sees (2 V_E is the variance of a
per-query difference under the ANOVA's additive model). Sakai's paper estimates sigma^2 as the
within-system variance instead (:func:`within_system_variance`, the one-way ANOVA's residual
variance), which keeps the variation between queries and so gives larger sizes; either can be
given as ``variance``. Both designs are two-sided tests
at significance level ``alpha``; the power is the chance that the test rejects the null
hypothesis when the true difference is the minimum one asked about.

- Paired t-test: the per-query difference of two configurations has variance
  sigma_d^2 = 2 sigma^2; with n queries, t = mean(d) / (s_d / sqrt(n)) follows the noncentral
  t distribution with n - 1 degrees of freedom and noncentrality sqrt(n) * min_difference /
  sigma_d.
- One-way ANOVA of m configurations, any two of whose true means are at least ``min_range``
  apart (the best and the worst: the least favourable configuration puts the others at the
  midpoint): Delta = min_range^2 / (2 sigma^2), and F follows the noncentral F distribution with
  (m - 1, m(n - 1)) degrees of freedom and noncentrality lambda = n * Delta.

The topic-set size is the smallest n (at least 2) whose power reaches the target. Power grows
with n in both designs, so it is found by doubling then bisection, each step a closed-form
evaluation of the noncentral distributions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ..constraints import Interval
from ..errors import InputError
from .anova import check_score_matrix, two_way_anova
from .settings import ALPHA, POWER

#: The columns of :func:`topic_set_sizes`.
SIZE_COLUMNS = ("min_difference", "t_test_topics", "t_test_power", "anova_topics", "anova_power")


def t_test_power(queries: int, min_difference: float, variance: float, *, alpha: float = ALPHA.default) -> float:
    """Power of the two-sided paired t-test over ``queries`` queries to detect a true mean difference ``min_difference``.

    ``variance`` is sigma^2, the per-query score's (the difference's is 2 sigma^2); the effect
    size is min_difference / sigma_d, in units of the scores' standard deviation. statsmodels'
    ``TTestPower().power(effect_size, nobs=queries, alpha=alpha)`` is the same number.
    """
    queries = _count("queries", queries)
    effect = _difference("min_difference", min_difference, positive=False) / math.sqrt(2 * _variance(variance))
    return _t_power(queries, effect, ALPHA.check(alpha))


def t_test_topic_set_size(min_difference: float, variance: float, *, alpha: float = ALPHA.default,
                          power: float = POWER.default) -> int:  # fmt: skip
    """The fewest queries (at least 2) whose paired t-test has at least ``power`` to detect ``min_difference``.

    See :func:`t_test_power` for the model; ``min_difference`` must be positive.
    """
    effect = _difference("min_difference", min_difference, positive=True) / math.sqrt(2 * _variance(variance))
    alpha, power = ALPHA.check(alpha), POWER.check(power)
    return _smallest(lambda n: _t_power(n, effect, alpha), power)


def anova_power(queries: int, systems: int, min_range: float, variance: float, *, alpha: float = ALPHA.default) -> float:
    """Power of the one-way ANOVA F-test of ``systems`` configurations over ``queries`` queries to detect a range ``min_range``.

    The model of the module docstring: Delta = min_range^2 / (2 variance), noncentrality
    queries * Delta, degrees of freedom (systems - 1, systems * (queries - 1)). statsmodels'
    ``FTestAnovaPower().power(sqrt(Delta / systems), nobs=systems * queries, alpha=alpha,
    k_groups=systems)`` is the same number.
    """
    queries, systems = _count("queries", queries), _count("systems", systems)
    delta = _difference("min_range", min_range, positive=False) ** 2 / (2 * _variance(variance))
    return _f_power(queries, systems, delta, ALPHA.check(alpha))


def anova_topic_set_size(min_range: float, variance: float, systems: int, *, alpha: float = ALPHA.default,
                         power: float = POWER.default) -> int:  # fmt: skip
    """The fewest queries (at least 2) whose one-way ANOVA of ``systems`` configurations has ``power`` to detect ``min_range``.

    See :func:`anova_power` for the model; ``min_range`` must be positive.
    """
    systems = _count("systems", systems)
    delta = _difference("min_range", min_range, positive=True) ** 2 / (2 * _variance(variance))
    alpha, power = ALPHA.check(alpha), POWER.check(power)
    return _smallest(lambda n: _f_power(n, systems, delta, alpha), power)


def topic_set_sizes(
    matrix: np.ndarray,
    *,
    min_differences: Sequence[float],
    alpha: float = ALPHA.default,
    power: float = POWER.default,
    variance: float | None = None,
) -> pd.DataFrame:
    """For each minimum difference, the topic-set sizes and the power of the sweep's own queries.

    ``matrix`` is the sweep's configurations x queries (m >= 2 configurations, n >= 2 queries,
    finite scores); sigma^2 is ``variance``, by default the residual variance V_E of its two-way
    ANOVA (:func:`within_system_variance` gives Sakai's estimate). One row per
    entry of ``min_differences`` (positive, in units of the scores), in their order:
    ``min_difference``; ``t_test_topics`` (:func:`t_test_topic_set_size`) and ``t_test_power``
    (:func:`t_test_power` with the n queries of the matrix); ``anova_topics`` and
    ``anova_power``, the same for the one-way ANOVA of the m configurations with the minimum
    difference as the range (:func:`anova_topic_set_size`, :func:`anova_power`). A variance of 0
    (V_E of the matrix: an :class:`~retrieval_eval.InputError`; one given: a
    :class:`~retrieval_eval.ConfigError`) leaves no noise, so no size to design.
    """
    anova = two_way_anova(matrix)
    if variance is None:
        variance = anova.residual_variance
        if variance == 0:
            raise InputError(
                "the residual variance V_E of the scores is 0 (each configuration's scores differ from another's by a "
                "constant): no topic-set size to design"
            )
    variance = _variance(variance)
    n, m = anova.topics, anova.systems
    differences = [_difference("min_difference", d, positive=True) for d in min_differences]
    rows = [
        (
            d,
            t_test_topic_set_size(d, variance, alpha=alpha, power=power),
            t_test_power(n, d, variance, alpha=alpha),
            anova_topic_set_size(d, variance, m, alpha=alpha, power=power),
            anova_power(n, m, d, variance, alpha=alpha),
        )
        for d in differences  # a handful of settings, each closed-form
    ]
    return pd.DataFrame.from_records(rows, columns=list(SIZE_COLUMNS)).astype(
        {"min_difference": np.float64, "t_test_topics": np.int64, "t_test_power": np.float64,
         "anova_topics": np.int64, "anova_power": np.float64}
    )  # fmt: skip


def within_system_variance(matrix: np.ndarray) -> float:
    """The within-system variance of Sakai (IRJ 2016): sum_ij (x_ij - mean_i.)^2 / (m (n - 1)).

    The variance of a configuration's scores around its own mean, pooled over the m
    configurations of ``matrix`` (configurations x queries, as :func:`~.anova.two_way_anova`
    takes): the residual variance of the one-way ANOVA, which keeps the variation between queries
    that the two-way ANOVA's V_E takes out. In squared units of the scores.
    """
    matrix = check_score_matrix(matrix, least_rows=1)
    return float(matrix.var(axis=1, ddof=1).mean())


def _t_power(queries: int, effect: float, alpha: float) -> float:
    """Two-sided: the chance of |t| beyond the critical value c on either side, as statsmodels counts it.

    P(T < -c) with noncentrality nc is taken as P(T > c) with -nc: the same number, but scipy's
    ``nct.cdf`` far in the lower tail is NaN for some (df, nc) (df 1000, nc 10) where ``nct.sf``
    is not.
    """
    df = queries - 1
    critical = stats.t.isf(alpha / 2, df)
    noncentrality = effect * math.sqrt(queries)
    return float(stats.nct.sf(critical, df, noncentrality) + stats.nct.sf(critical, df, -noncentrality))


def _f_power(queries: int, systems: int, delta: float, alpha: float) -> float:
    df_between, df_within = systems - 1, systems * (queries - 1)
    critical = stats.f.isf(alpha, df_between, df_within)
    if delta == 0:  # scipy's ncf.sf with noncentrality 0 is off by -1 (-0.95 for alpha 0.05): the central F
        return float(stats.f.sf(critical, df_between, df_within))
    return float(stats.ncf.sf(critical, df_between, df_within, queries * delta))


def _smallest(power_of: Callable[[int], float], target: float) -> int:
    """The smallest n >= 2 with power_of(n) >= target, for a power that grows with n (and tends to 1)."""
    low, high = 1, 2  # power_of(low) < target is known (n = 1 has no test); power_of(high) is not yet
    while power_of(high) < target:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if power_of(middle) >= target else (middle, high)
    return high


def _count(name: str, value: int) -> int:
    """``value`` as an int >= 2 (``queries``, ``systems``), or a :class:`~retrieval_eval.ConfigError` naming it."""
    return Interval(2, integer=True).check(name, value)


def _number(name: str, value: float, *, positive: bool, unit: str) -> float:
    """``value`` as a finite float >= 0 (> 0 where ``positive``), or a :class:`~retrieval_eval.ConfigError` naming it and its ``unit``."""
    return Interval(0, low_open=positive).check(name, value, unit=unit)


def _variance(variance: float) -> float:
    return _number("variance", variance, positive=True, unit="sigma^2 of the per-query scores")


def _difference(name: str, value: float, *, positive: bool) -> float:
    return _number(name, value, positive=positive, unit="in units of the scores")
