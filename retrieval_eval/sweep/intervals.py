"""Confidence intervals on the paired difference of any two configurations: Student's t and the percentile bootstrap.

A pair (a, b) is compared query by query: d_q = x_aq - x_bq over the n queries both were scored
on (a row of the sweep's configurations x queries matrix each). Its interval is on the mean of
d, in units of the scores; an interval that excludes 0 says the two configurations differ at
1 - level (each pair on its own: these are not simultaneous intervals, for which see
:func:`~.anova.tukey_margin_of_error`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import ConfigError
from .anova import check_score_matrix
from .settings import LEVEL, MAX_BOOTSTRAP_BYTES, RESAMPLES, SEED
from .stats import DrawProgress, bootstrap_ci

#: The columns of :func:`paired_difference_intervals`.
INTERVAL_COLUMNS = ("difference", "t_low", "t_high", "bootstrap_low", "bootstrap_high")
# The pairs' differences held at once (x 8 bytes: 128 MiB); more pairs go in chunks, each of which
# the bootstrap resamples with the same draws again (they depend only on the seed and the queries).
_PAIR_CELLS = 16 * 2**20


def paired_difference_intervals(
    matrix: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    *,
    level: float = LEVEL.default,
    resamples: int = RESAMPLES.default,
    seed: int = SEED.default,
    progress: DrawProgress | None = None,
) -> pd.DataFrame:
    """Intervals on the mean difference of each pair (``matrix[first[i]]`` - ``matrix[second[i]]``, per query).

    ``matrix`` is configurations x queries (finite scores, at least two queries); ``first`` and
    ``second`` are equally long arrays of its row numbers. One row per pair, in their order:

    - ``difference``: the mean over queries of d (a's score minus b's);
    - ``t_low``, ``t_high``: mean(d) -+ t * s_d / sqrt(n), with s_d the standard deviation of d
      (ddof=1) and t the (1 + level) / 2 quantile of Student's t with n - 1 degrees of freedom
      (the interval of ``scipy.stats.ttest_rel``). Where every d is the same the interval is
      [mean, mean], zero wide (scipy would give NaN);
    - ``bootstrap_low``, ``bootstrap_high``: the percentile bootstrap interval of mean(d)
      (:func:`~.stats.bootstrap_ci` of d), every pair resampled with the same draws of queries,
      so a pair's interval does not depend on the other pairs asked for.

    ``progress(done, total)`` counts the resamples of all the chunks of pairs (each chunk holds
    at most 16 Mi differences and the bootstrap bound of means of
    :func:`~.settings.check_bootstrap_memory`).
    """
    matrix = check_score_matrix(matrix, least_rows=1)
    first, second = _pair_rows(first, second, matrix.shape[0])
    level, resamples, seed = LEVEL.check(level), RESAMPLES.check(resamples), SEED.check(seed)
    pairs, n = len(first), matrix.shape[1]
    columns = {name: np.empty(pairs) for name in INTERVAL_COLUMNS}
    chunk = max(1, min(_PAIR_CELLS // n, MAX_BOOTSTRAP_BYTES // (8 * resamples)))
    starts = range(0, pairs, chunk)
    quantile = stats.t.ppf((1 + level) / 2, n - 1)
    for number, start in enumerate(starts):
        rows = slice(start, start + chunk)
        differences = matrix[first[rows]] - matrix[second[rows]]
        mean = differences.mean(axis=1)
        # A constant difference has no spread: rounding in the standard deviation would make it a hair wide.
        constant = np.all(differences == differences[:, :1], axis=1)
        half = np.where(constant, 0.0, quantile * differences.std(axis=1, ddof=1) / np.sqrt(n))
        columns["difference"][rows] = mean
        columns["t_low"][rows], columns["t_high"][rows] = mean - half, mean + half
        columns["bootstrap_low"][rows], columns["bootstrap_high"][rows] = bootstrap_ci(
            differences, resamples=resamples, level=level, seed=seed, progress=_offset(progress, number, len(starts), resamples)
        )
    return pd.DataFrame(columns, columns=list(INTERVAL_COLUMNS))


def _pair_rows(first: np.ndarray, second: np.ndarray, configurations: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs' row numbers as int64 arrays, or a :class:`~retrieval_eval.ConfigError` naming the
    first that is not a row of the matrix."""
    checked = []
    for name, rows in (("first", first), ("second", second)):
        array = np.asarray(rows)
        if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
            raise ConfigError(f"{name} must be a 1-d array of configuration row numbers, got {array.dtype} of shape {array.shape}")
        outside = np.flatnonzero((array < 0) | (array >= configurations))
        if outside.size:
            raise ConfigError(
                f"{name}[{outside[0]}] = {array[outside[0]]} is not a row of the matrix (0 to {configurations - 1})"
            )
        checked.append(array.astype(np.int64))
    if checked[0].shape != checked[1].shape:
        raise ConfigError(f"first and second must be as long (one entry per pair), got {len(checked[0])} and {len(checked[1])}")
    return checked[0], checked[1]


def _offset(progress: DrawProgress | None, number: int, chunks: int, resamples: int) -> DrawProgress | None:
    """``progress`` of chunk ``number`` counted over all the chunks' resamples."""
    if progress is None:
        return None
    return lambda done, _total: progress(number * resamples + done, chunks * resamples)
