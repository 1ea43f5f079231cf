"""Two-way ANOVA without replication (configuration x query), Sakai's effect size and Tukey's margin of error.

A sweep's matrix holds one score x_ij per configuration i (m of them, the "systems") and
query j (n of them, the "topics"). The two-way ANOVA without replication splits the
variation of the scores around their grand mean into what the configurations explain, what the
queries explain (some are hard for every configuration) and the rest, the residual:

- ss_systems  = n * sum_i (mean_i. - mean..)^2,      df = m - 1
- ss_topics   = m * sum_j (mean_.j - mean..)^2,      df = n - 1
- ss_residual = sum_ij (x_ij - mean_i. - mean_.j + mean..)^2, df = (m - 1)(n - 1)
- ss_total    = sum_ij (x_ij - mean..)^2,            df = mn - 1

(each computed from its own definition, so ss_total is their sum up to rounding). The residual
variance V_E = ss_residual / df_residual is the variance of a score once the configuration's and
the query's effects are taken out; it is the yardstick of Sakai's effect size and of Tukey's HSD
margin of error. References: T. Sakai, *Laboratory Experiments in Information Retrieval:
Sample Sizes, Effect Sizes, and Statistical Power*, Springer 2018, chapters 3 to 5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import ConfigError, InputError
from .settings import LEVEL

#: The rows of :meth:`TwoWayAnova.table`, and its columns.
TABLE_ROWS = ("systems", "topics", "residual", "total")
TABLE_COLUMNS = ("ss", "df", "ms", "F", "p")


#: A sum of squares at most this share of ss_total is rounding noise, taken as 0 (2^-40, about 9e-13:
#: the rounding of a sum of N squares is about sqrt(N) ulps, far below it for any sweep's matrix).
ROUNDING = 2.0**-40


@dataclass(frozen=True)
class TwoWayAnova:
    """The two-way ANOVA without replication of a configurations x queries matrix (the module docstring's definitions).

    Mean squares are ms = ss / df; F of an effect is its ms over ``ms_residual``, and p the
    chance of an F at least as large under the null hypothesis of no effect (F distribution
    with (df of the effect, df_residual) degrees of freedom). Where the residual is exactly 0
    (every configuration's scores differ from another's by a constant), F is +inf with p = 0 for
    an effect whose ss is positive, and NaN with p NaN for one whose ss is 0 as well (0 / 0:
    nothing to test). A sum of squares at most :data:`ROUNDING` of ``ss_total`` is taken as 0:
    it is the rounding noise of a sum that is 0 in exact arithmetic (identical configurations give
    an ss_systems of about 1e-31, not 0).
    """

    systems: int
    topics: int
    grand_mean: float
    ss_systems: float
    ss_topics: float
    ss_residual: float
    ss_total: float
    df_systems: int
    df_topics: int
    df_residual: int
    ms_systems: float
    ms_topics: float
    ms_residual: float
    f_systems: float
    p_systems: float
    f_topics: float
    p_topics: float

    @property
    def residual_variance(self) -> float:
        """V_E = ss_residual / df_residual (= ``ms_residual``), the variance of a score net of both effects."""
        return self.ms_residual

    def table(self) -> pd.DataFrame:
        """The ANOVA table: rows ``systems``, ``topics``, ``residual``, ``total``; columns ss, df, ms, F, p.

        ms of the total row, and F and p of the residual and total rows, are NaN (not defined).
        """
        nan = float("nan")
        return pd.DataFrame(
            {
                "ss": [self.ss_systems, self.ss_topics, self.ss_residual, self.ss_total],
                "df": [self.df_systems, self.df_topics, self.df_residual, self.systems * self.topics - 1],
                "ms": [self.ms_systems, self.ms_topics, self.ms_residual, nan],
                "F": [self.f_systems, self.f_topics, nan, nan],
                "p": [self.p_systems, self.p_topics, nan, nan],
            },
            index=pd.Index(TABLE_ROWS),
            columns=list(TABLE_COLUMNS),
        )


def two_way_anova(matrix: np.ndarray) -> TwoWayAnova:
    """The two-way ANOVA without replication of ``matrix`` (configurations x queries, finite scores).

    At least two configurations and two queries; a NaN or infinite score is an
    :class:`~retrieval_eval.InputError` (an undefined per-query value has no place in a balanced
    design: align or fill the matrix first).
    """
    matrix = check_score_matrix(matrix, least_rows=2)
    m, n = matrix.shape
    grand = matrix.mean()
    rows = matrix.mean(axis=1)
    columns = matrix.mean(axis=0)
    row_effects, column_effects = rows - grand, columns - grand
    ss_systems = float(n * np.dot(row_effects, row_effects))
    ss_topics = float(m * np.dot(column_effects, column_effects))
    # One copy of the matrix (a sweep's can be hundreds of MB), turned into the residuals in place.
    residuals = matrix - grand
    ss_total = float(np.vdot(residuals, residuals))
    residuals -= row_effects[:, None]
    residuals -= column_effects[None, :]
    ss_residual = float(np.vdot(residuals, residuals))
    # A sum that is 0 in exact arithmetic (identical configurations, scores that are a configuration
    # effect plus a query effect) comes out as rounding noise, about 1e-31; two such noises divided
    # would make an F of any size. Below ROUNDING of the total it is taken as the 0 it is.
    ss_systems, ss_topics, ss_residual = (0.0 if ss <= ROUNDING * ss_total else ss for ss in (ss_systems, ss_topics, ss_residual))
    df_systems, df_topics = m - 1, n - 1
    df_residual = df_systems * df_topics
    ms_systems, ms_topics, ms_residual = ss_systems / df_systems, ss_topics / df_topics, ss_residual / df_residual
    f_systems, p_systems = _f_test(ms_systems, ms_residual, df_systems, df_residual)
    f_topics, p_topics = _f_test(ms_topics, ms_residual, df_topics, df_residual)
    return TwoWayAnova(
        systems=m, topics=n, grand_mean=float(grand),
        ss_systems=ss_systems, ss_topics=ss_topics, ss_residual=ss_residual, ss_total=ss_total,
        df_systems=df_systems, df_topics=df_topics, df_residual=df_residual,
        ms_systems=ms_systems, ms_topics=ms_topics, ms_residual=ms_residual,
        f_systems=f_systems, p_systems=p_systems, f_topics=f_topics, p_topics=p_topics,
    )  # fmt: skip


def sakai_effect_sizes(differences: np.ndarray, residual_variance: float) -> np.ndarray:
    """Sakai's standardized mean difference ES_E = d / sqrt(V_E) of each mean difference d (any shape).

    d is the difference between two configurations' mean scores over the same queries and V_E the
    residual variance of the two-way ANOVA without replication of the sweep (Sakai 2018, ch. 5:
    the effect size that goes with Tukey's HSD, whose yardstick is the same V_E for every pair).
    Where V_E is 0, ES_E is 0 for d = 0 and +-inf otherwise (the convention of
    :func:`~.stats.paired_effect_size`). V_E must be a finite number >= 0.
    """
    variance = float(residual_variance)
    if not np.isfinite(variance) or variance < 0:
        raise ConfigError(f"the residual variance must be a finite number >= 0, got {residual_variance!r}")
    differences = np.asarray(differences, dtype=np.float64)
    if variance == 0:
        return np.where(differences == 0, 0.0, np.copysign(np.inf, differences))
    return differences / np.sqrt(variance)


def tukey_margin_of_error(anova: TwoWayAnova, level: float = LEVEL.default) -> float:
    """The margin of error of Tukey's HSD simultaneous intervals: MOE = q(level; m, df_E) * sqrt(V_E / n).

    q(level; m, df_E) is the ``level`` quantile of the studentized range of m means with
    df_E = (m - 1)(n - 1) degrees of freedom (``scipy.stats.studentized_range``), V_E the
    residual variance and n the queries. The interval d +- MOE of every difference d between two
    configurations' means covers all their true differences at once with probability ``level``
    (under the ANOVA's model: normal residuals of equal variance); a pair whose interval excludes
    0 differs significantly by Tukey's HSD at 1 - level. This is the two-way ANOVA without
    replication form of Sakai 2018, ch. 4 (Tukey HSD) and ch. 5 (its MOE). In units of the scores.
    """
    level = LEVEL.check(level)
    q = float(stats.studentized_range.ppf(level, anova.systems, anova.df_residual))
    return q * float(np.sqrt(anova.residual_variance / anova.topics))


def check_score_matrix(matrix: np.ndarray, *, least_rows: int) -> np.ndarray:
    """``matrix`` as a float64 configurations x queries array, or an :class:`~retrieval_eval.InputError` saying what it is instead.

    At least ``least_rows`` configurations and two queries, every score finite.
    """
    array = np.asarray(matrix, dtype=np.float64)
    if array.ndim != 2 or array.shape[0] < least_rows or array.shape[1] < 2:
        raise InputError(
            f"scores must be a configurations x queries matrix with at least {least_rows} configuration"
            f"{'s' if least_rows != 1 else ''} and 2 queries, got shape {array.shape}"
        )
    bad = ~np.isfinite(array)
    if bad.any():
        row, column = np.argwhere(bad)[0]
        raise InputError(
            f"scores must be finite numbers: configuration {row}, query {column} is {float(array[row, column])!r} "
            f"({np.count_nonzero(bad)} such scores)"
        )
    return array


def _f_test(ms_effect: float, ms_residual: float, df_effect: int, df_residual: int) -> tuple[float, float]:
    if ms_residual == 0:
        return (np.inf, 0.0) if ms_effect > 0 else (np.nan, np.nan)
    f = ms_effect / ms_residual
    return f, float(stats.f.sf(f, df_effect, df_residual))
