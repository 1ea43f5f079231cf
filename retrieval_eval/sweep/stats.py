"""Paired statistics over per-query scores: many configurations against one baseline at once.

Every function takes per-query scores as arrays whose last axis is the query (the same
queries, in the same order, for every configuration). They are *paired*: what is compared, or
resampled, is the per-query difference, so that the variation between queries (some are hard
for every configuration) does not hide a consistent gain.

Resampling is vectorized: one matrix product scores a batch of rounds for every configuration,
and every configuration sees the same random draws (the same resampled queries, the same sign
flips), so their results are comparable and do not depend on the order they are given in. The
random generator is numpy's PCG64 with a fixed ``seed``: results are reproducible.

The tests and corrections a leaderboard can choose are named in :data:`~.settings.TESTS` and
:data:`~.settings.CORRECTIONS` (with their caveats, :data:`~.settings.TEST_METHODS`): one
function each, :func:`paired_p_values` and :func:`corrected`, takes the name.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable

import numpy as np
from scipy import stats

from ..constraints import check_choice
from ..kernels.core.resampling import resample_counts, sign_flips
from .settings import CORRECTIONS, LEVEL, RESAMPLES, ROUNDS, SEED, TESTS, check_bootstrap_memory

_BATCH_CELLS = 4_000_000  # draws x queries per batch: about 32 MB of float64

#: ``progress(done, total)``: draws (resamples or rounds) done so far, called after each batch.
DrawProgress = Callable[[int, int], None]


def paired_t_test(scores: np.ndarray, baseline: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided paired t-test of each row of ``scores`` (configurations x queries) against ``baseline``.

    t = mean(d) / (std(d, ddof=1) / sqrt(n)) with d the per-query differences, and the p-value
    from Student's t with n - 1 degrees of freedom (``scipy.stats.ttest_rel``). Where every
    difference is the same, the test is undefined in theory; here identical scores give t = 0,
    p = 1 (nothing to tell apart), and a constant nonzero difference t = ±inf, p = 0.

    Returns ``(t, p)``, one value per configuration.
    """
    scores, baseline = _paired(scores, baseline)
    return t_test_of_differences(scores - baseline)


def t_test_of_differences(differences: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`paired_t_test` given the per-query differences d (rows x queries, checked by the caller).

    ``scipy.stats.ttest_rel(a, b)`` is the one-sample test of ``a - b`` against 0, so both give
    the same bits for the same differences.
    """
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        # scipy warns of precision loss on nearly identical scores; its values are still the ones given.
        warnings.simplefilter("ignore", RuntimeWarning)
        t, p = stats.ttest_1samp(differences, 0.0, axis=-1)
        t, p = np.asarray(t, dtype=np.float64).copy(), np.asarray(p, dtype=np.float64).copy()
        constant = np.all(differences == differences[..., :1], axis=-1)
        mean = differences.mean(axis=-1)
        t[constant] = np.where(mean[constant] == 0, 0.0, np.sign(mean[constant]) * np.inf)
    p[constant] = np.where(mean[constant] == 0, 1.0, 0.0)
    return t, p


def randomization_test(
    scores: np.ndarray,
    baseline: np.ndarray,
    *,
    rounds: int = ROUNDS.default,
    seed: int = SEED.default,
    progress: DrawProgress | None = None,
) -> np.ndarray:
    """Two-sided paired (Fisher) randomization test of each row of ``scores`` against ``baseline``.

    Under the null hypothesis each query's two scores are exchangeable, so the sign of its
    difference d_q is arbitrary. Each round flips every sign with probability 1/2 (the same flips
    for every configuration); the p-value is (1 + the rounds whose |mean(s * d)| >= |mean(d)|)
    / (1 + rounds), an estimate that is never 0 (with ``rounds`` draws no p-value below
    1 / (1 + rounds) can be shown). Identical scores give 1. ``progress(done, total)`` is
    called with the rounds done after each batch of them.
    """
    scores, baseline = _paired(scores, baseline)
    return randomization_test_of_differences(scores - baseline, rounds=rounds, seed=seed, progress=progress)


def randomization_test_of_differences(
    differences: np.ndarray, *, rounds: int, seed: int, progress: DrawProgress | None = None
) -> np.ndarray:
    """:func:`randomization_test` given the per-query differences d (rows x queries, checked by the caller).

    The flips depend only on ``seed`` and the number of queries: rows tested in separate calls
    with the same seed see the same flips.
    """
    rounds, seed = ROUNDS.check(rounds), SEED.check(seed)
    n = differences.shape[-1]
    observed = np.abs(differences.sum(axis=-1))
    # Compare sums, not means, so that no division rounds the observed statistic differently;
    # a relative tolerance keeps a flip that reproduces it from losing to rounding.
    threshold = observed - 1e-12 * np.maximum(observed, 1.0)
    rng = np.random.default_rng(seed)
    at_least = np.zeros(differences.shape[:-1], dtype=np.int64)
    sizes = draw_batches(rounds, n)
    signs = np.empty((sizes[0], n))  # one buffer for every batch: no fresh pages to fault in each time
    done = 0
    for size in sizes:
        batch = signs[:size]
        sign_flips(rng.integers(0, 2, size=(size, n), dtype=np.int8), batch)
        flipped = np.abs(batch @ differences.T)  # rounds x configurations
        at_least += np.count_nonzero(flipped >= threshold, axis=0)
        done += size
        if progress is not None:
            progress(done, rounds)
    return (1 + at_least) / (1 + rounds)


def bootstrap_ci(
    scores: np.ndarray,
    *,
    resamples: int = RESAMPLES.default,
    level: float = LEVEL.default,
    seed: int = SEED.default,
    progress: DrawProgress | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap confidence interval of the mean of each row of ``scores`` (configurations x queries).

    Each resample draws n queries with replacement (the same draws for every configuration, so
    the intervals are paired) and takes each configuration's mean over them; the interval is
    the (1 - level) / 2 and (1 + level) / 2 quantiles of those means (numpy's linear
    interpolation). Returns ``(low, high)``, one value per configuration. ``resamples`` x
    configurations x 8 bytes of means are held at once, within the bound of
    :func:`~.settings.check_bootstrap_memory`. ``progress(done, total)`` is called with the
    resamples done after each batch of them.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim not in (1, 2) or scores.shape[-1] == 0:
        raise ValueError("scores must be configurations x queries, with at least one query")
    level, resamples, seed = LEVEL.check(level), RESAMPLES.check(resamples), SEED.check(seed)
    matrix = np.atleast_2d(scores)
    check_bootstrap_memory(resamples, matrix.shape[0])
    n = matrix.shape[-1]
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, matrix.shape[0]))
    sizes = draw_batches(resamples, n)
    counts = np.empty((sizes[0], n))  # one buffer for every batch, as in the randomization test
    done = 0
    for size in sizes:
        # How often each query was drawn in each resample: the means are one matrix product. The draws
        # as int32 are the int64 ones (below 2^32 numpy draws either with the same 32-bit Lemire method)
        # in half the memory, 10% faster.
        batch = counts[:size]
        resample_counts(rng.integers(0, n, size=(size, n), dtype=np.int32), batch)
        means[done : done + size] = batch @ matrix.T / n
        done += size
        if progress is not None:
            progress(done, resamples)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return (low, high) if scores.ndim == 2 else (low[0], high[0])


def wilcoxon_test_of_differences(differences: np.ndarray) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank test of each row of per-query differences (rows x queries) against 0.

    The statistic is the sum of the ranks of |d| (average ranks for ties) over the queries with
    d > 0. Queries with d = 0 are dropped (``zero_method="wilcox"``, Wilcoxon's own rule and the
    usual one in IR evaluation), no continuity correction. The p-value is exact (the null
    distribution of the ranks' signs) for a row with at most 50 queries and no zero and no tied
    |d|, else from the normal approximation with the tie correction of the variance: the rule
    ``scipy.stats.wilcoxon``'s ``method="auto"`` applies to a whole array, applied here to each row
    alone, so that a row's p-value does not depend on the rows beside it. A row whose differences
    are all 0 gives 1. It tests the median of the differences, assuming them symmetric about it.
    """
    differences = np.asarray(differences, dtype=np.float64)
    n = differences.shape[-1]
    matrix = differences.reshape(-1, n)
    p = np.ones(matrix.shape[0])
    # In batches of rows: scipy's ranks take about 8 times the memory of the differences they rank.
    sizes = draw_batches(len(p), n)
    for start, size in zip(itertools.accumulate(sizes, initial=0), sizes):
        p[start : start + size] = _wilcoxon(matrix[start : start + size])
    return p.reshape(differences.shape[:-1])


def _wilcoxon(differences: np.ndarray) -> np.ndarray:
    """:func:`wilcoxon_test_of_differences` of a rows x queries matrix."""
    p = np.ones(differences.shape[0])
    magnitudes = np.sort(np.abs(differences), axis=-1)
    has_zero = magnitudes[:, 0] == 0
    tied = np.any(magnitudes[:, 1:] == magnitudes[:, :-1], axis=-1)
    exact = ~has_zero & ~tied & (differences.shape[-1] <= 50)
    decisive = np.any(differences != 0, axis=-1)
    for rows, method in ((exact, "exact"), (decisive & ~exact, "asymptotic")):
        if rows.any():
            p[rows] = stats.wilcoxon(differences[rows], zero_method="wilcox", method=method, axis=-1).pvalue
    return p


def sign_test_of_differences(differences: np.ndarray) -> np.ndarray:
    """Two-sided exact sign test of each row of per-query differences (rows x queries).

    With w the queries where d > 0 and l those where d < 0 (ties, d = 0, dropped), p = min(1,
    2 Binom(w + l, 1/2).cdf(min(w, l))), the p-value of ``scipy.stats.binomtest(w, w + l)``. A row
    with no decisive query gives 1. It ignores how large each difference is.
    """
    differences = np.asarray(differences, dtype=np.float64)
    wins = np.count_nonzero(differences > 0, axis=-1)
    losses = np.count_nonzero(differences < 0, axis=-1)
    return np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(wins, losses), wins + losses, 0.5))


def paired_p_values(
    name: str, differences: np.ndarray, *, rounds: int, seed: int, progress: DrawProgress | None = None
) -> np.ndarray:
    """The two-sided p-value of the paired test ``name`` (one of :data:`~.settings.TESTS`) of each row of
    per-query differences (rows x queries, checked by the caller), against no difference.

    - ``"randomization"``: :func:`randomization_test_of_differences` (``rounds``, ``seed`` and
      ``progress`` go to it; the others take no draws): exact for the null that each query's two
      scores are exchangeable; its p-values have a resolution of 1 / (1 + rounds).
    - ``"t"``: :func:`t_test_of_differences`: assumes normal differences (robust to that from about
      30 queries) and tests their mean.
    - ``"wilcoxon"``: :func:`wilcoxon_test_of_differences`: assumes differences symmetric about
      their median and tests the median, not the mean; zero differences are dropped.
    - ``"sign"``: :func:`sign_test_of_differences`: assumes least and has the least power; it
      ignores the magnitudes.
    """
    name = check_choice("test", name, TESTS)
    if name == "randomization":
        return randomization_test_of_differences(differences, rounds=rounds, seed=seed, progress=progress)
    if name == "t":
        return t_test_of_differences(differences)[1]
    return wilcoxon_test_of_differences(differences) if name == "wilcoxon" else sign_test_of_differences(differences)


def corrected(name: str, pvalues: np.ndarray) -> np.ndarray:
    """``pvalues`` adjusted for multiple comparisons by ``name`` (one of :data:`~.settings.CORRECTIONS`), NaN left out.

    - ``"holm"`` (:func:`holm`): the family-wise error rate, under any dependence;
    - ``"bh"`` (:func:`benjamini_hochberg`): the false discovery rate, under independence or
      positive dependence (PRDS), not the family-wise error rate;
    - ``"bonferroni"`` (:func:`bonferroni`): the family-wise error rate, the most conservative;
    - ``"none"``: the p-values as they are (a copy): each comparison's own error rate only.
    """
    name = check_choice("correction", name, CORRECTIONS)
    if name == "none":
        return np.array(pvalues, dtype=np.float64)
    return {"holm": holm, "bh": benjamini_hochberg, "bonferroni": bonferroni}[name](pvalues)


def holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (step-down; reject at level a where the adjusted p <= a).

    With the m p-values sorted ascending, p_(1) <= ... <= p_(m), the adjusted value of p_(i) is
    max over j <= i of min(1, (m - j + 1) p_(j)); it controls the family-wise error rate under
    any dependence between the tests. NaN p-values are left out of m and stay NaN.
    """
    return _adjusted(pvalues, lambda ordered, m: np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ordered)))


def benjamini_hochberg(pvalues: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (step-up; reject at level a where the adjusted p <= a).

    With the m p-values sorted ascending, the adjusted value of p_(i) is min over j >= i of
    min(1, m p_(j) / j); it controls the false discovery rate (the expected share of true nulls
    among the rejected) under independence or positive regression dependence (PRDS), not the
    family-wise error rate. NaN p-values are left out of m and stay NaN.
    """
    def step_up(ordered: np.ndarray, m: int) -> np.ndarray:
        scaled = ordered / (np.arange(1, m + 1) / m)  # p_(j) / (j / m), as statsmodels' 'fdr_bh' divides
        return np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])

    return _adjusted(pvalues, step_up)


def bonferroni(pvalues: np.ndarray) -> np.ndarray:
    """Bonferroni adjusted p-values: min(1, m p) over the m p-values that are not NaN (NaN stays NaN).

    It controls the family-wise error rate under any dependence, and is the most conservative:
    Holm's adjusted values are never above it.
    """
    return _adjusted(pvalues, lambda ordered, m: np.minimum(1.0, m * ordered))


def _adjusted(pvalues: np.ndarray, adjust: Callable[[np.ndarray, int], np.ndarray]) -> np.ndarray:
    """``adjust(sorted p-values, m)`` applied to the p-values that are not NaN, put back in their places."""
    pvalues = np.asarray(pvalues, dtype=np.float64)
    adjusted = np.full(pvalues.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(pvalues))
    if len(valid) == 0:
        return adjusted
    order = valid[np.argsort(pvalues[valid], kind="stable")]
    adjusted[order] = adjust(pvalues[order], len(valid))
    return adjusted


def paired_effect_size(scores: np.ndarray, baseline: np.ndarray) -> np.ndarray:
    """Cohen's d for paired samples (d_z): mean(d) / std(d, ddof=1) of the per-query differences d.

    0 where every difference is 0; ±inf where they are all the same nonzero value.
    """
    scores, baseline = _paired(scores, baseline)
    differences = scores - baseline
    mean = differences.mean(axis=-1)
    spread = differences.std(axis=-1, ddof=1) if differences.shape[-1] > 1 else np.zeros_like(mean)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(mean == 0, 0.0, np.where(spread == 0, np.sign(mean) * np.inf, mean / spread))


def _paired(scores: np.ndarray, baseline: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scores = np.atleast_2d(np.asarray(scores, dtype=np.float64))
    baseline = np.asarray(baseline, dtype=np.float64)
    if baseline.ndim != 1 or scores.ndim != 2 or scores.shape[1] != baseline.shape[0]:
        raise ValueError(
            f"scores must be configurations x queries and the baseline one score per query; "
            f"got shapes {scores.shape} and {baseline.shape}"
        )
    if baseline.shape[0] < 2:
        raise ValueError("a paired test needs at least two queries")
    if np.isnan(scores).any() or np.isnan(baseline).any():
        raise ValueError("scores must not be NaN (undefined per-query values cannot be paired)")
    return scores, baseline


def draw_batches(total: int, width: int) -> list[int]:
    """``total`` draws of ``width`` cells each in batches of at most about 4M cells (32 MB of float64): the batch sizes."""
    size = max(1, _BATCH_CELLS // max(width, 1))
    return [min(size, total - start) for start in range(0, total, size)]
