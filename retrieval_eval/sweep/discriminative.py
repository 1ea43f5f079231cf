"""How well a metric tells configurations apart: discriminative power and swap rates.

- Discriminative power (Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR
  2006): the share of the pairs of configurations whose difference is significant, p <= alpha,
  for p-values of every pair (for instance the randomised Tukey HSD's, already adjusted for the
  number of pairs). The achieved significance level (ASL) curve is the pairs' p-values sorted
  ascending, plotted against the pair's rank: a metric whose curve stays low longer separates
  more of the configurations.
- Swap rate (Voorhees & Buckley, "The effect of topic set size on retrieval experiment error",
  SIGIR 2002; Sanderson & Zobel, "Information retrieval system evaluation: effort, sensitivity,
  and reliability", SIGIR 2005): the queries are split at random into two disjoint halves of
  h = floor(n / 2) queries each (an odd query out is in neither), ``splits`` times. For every pair
  (a, b) of configurations and every split, d1 and d2 are the mean differences a - b over each
  half; the (pair, split) case is a swap when the halves order the pair oppositely (d1 and d2 of
  opposite signs).
  A zero difference on either half orders nothing: such a case counts, but never as a swap. The
  cases are binned by |d1|, and each bin's swap rate is its swaps over its cases: how often a
  difference of that size on h queries is reversed on h others.

The splits depend only on ``seed``, the number of queries and of splits: every metric scored on
the same queries sees the same splits. The differences are vectorized: the pairs' per-query
differences (pairs x queries) times the halves' membership (queries x splits, 0 or 1), one matrix
product per batch of pairs and splits, in batches of a bounded size.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ConfigError, InputError
from .settings import ALPHA, SEED, SPLITS

#: The random splits of the queries in half: at least 1, at most :data:`~.settings.MAX_DRAWS`.
#: The columns of :func:`swap_rates`.
SWAP_COLUMNS = ("low", "high", "cases", "swaps", "swap_rate")
#: The columns of :func:`metric_discrimination`.
DISCRIMINATION_COLUMNS = ("metric", "queries", "pairs", "significant", "discriminative_power", "swap_rate")
# Cells of one batch (pairs x queries of differences, pairs x splits of half sums): about 32 MB of float64 each.
_BATCH_CELLS = 4_000_000


def discriminative_power(pvalues: np.ndarray, alpha: float) -> float:
    """The share of pairs with ``p <= alpha`` among the p-values of every pair (NaN with no pair).

    ``pvalues`` are one per pair of configurations, each in [0, 1]; ``alpha`` is in (0, 1).
    """
    alpha = ALPHA.check(alpha)
    pvalues = _pvalues(pvalues)
    return float(np.count_nonzero(pvalues <= alpha) / len(pvalues)) if len(pvalues) else float("nan")


def asl_curve(pvalues: np.ndarray) -> np.ndarray:
    """The achieved significance level curve: the pairs' p-values sorted ascending (plot p against 1, 2, ... pairs)."""
    return np.sort(_pvalues(pvalues))


def swap_rates(
    matrix: np.ndarray, *, splits: int = SPLITS.default, seed: int = SEED.default, bins: int | float = 10
) -> pd.DataFrame:
    """The swap rates of the pairs of configurations of ``matrix`` (configurations x queries) between random query halves.

    ``bins`` is either a number of equal-width bins (an int) spanning 0 to the largest |d1| of any
    case, or a bin width (a float, say 0.01 as Voorhees & Buckley): bin i holds the cases with
    ``floor(|d1| / width) == i`` (the last bin also what reaches its upper edge). One row per
    bin, in order: ``low`` and ``high`` (its edges, in the metric's units), ``cases`` (pairs x
    splits falling in it), ``swaps`` and ``swap_rate`` (swaps / cases, NaN where no case); the
    last row, indexed ``"all"``, is every case: the overall swap rate. The definitions are in the
    module's docstring.

    Raises
    ------
    ConfigError
        A bad ``splits``, ``seed`` or ``bins``.
    InputError
        A matrix that is not configurations x queries of finite scores, with at least two queries.
    """
    splits, seed, matrix = SPLITS.check(splits), SEED.check(seed), _scores(matrix)
    configurations, n = matrix.shape
    half = n // 2
    first, second = np.triu_indices(configurations, 1)
    batches = _split_batches(splits, n, configurations)
    # The spread of the configurations' sums over the first half is the largest |d1| of the split,
    # so the bins are known before the pairs are: one pass over the pairs, no case kept.
    largest = 0.0
    for start, size in batches:
        sums = matrix @ _halves(seed, start, size, n)[0].T
        largest = max(largest, float(np.max(sums.max(axis=0) - sums.min(axis=0))) / half)
    width, edges = _bins(bins, largest)
    count = len(edges) - 1
    cases, swaps = np.zeros(count, np.int64), np.zeros(count, np.int64)
    for start, size in batches:
        one, two = _halves(seed, start, size, n)
        membership = np.concatenate((one, two)).T  # queries x (2 x splits): each half's queries
        step = max(1, _BATCH_CELLS // max(n, 2 * size))
        for low in range(0, len(first), step):
            rows = slice(low, low + step)
            sums = (matrix[first[rows]] - matrix[second[rows]]) @ membership
            d1, d2 = sums[:, :size] / half, sums[:, size:] / half
            index = _bin_index(np.abs(d1), width, count)
            cases += np.bincount(index.ravel(), minlength=count)
            # Signs, not the product d1 * d2, which underflows to 0 for tiny differences.
            swaps += np.bincount(index[np.sign(d1) * np.sign(d2) < 0], minlength=count)
    return _binned(cases, swaps, edges)


def metric_discrimination(
    metric_scores: Mapping[str, pd.DataFrame],
    pvalues: Mapping[str, np.ndarray],
    *,
    alpha: float = ALPHA.default,
    splits: int = SPLITS.default,
    seed: int = SEED.default,
) -> pd.DataFrame:
    """One row per metric, the one that separates the configurations best first.

    ``metric_scores``: each metric's configurations x queries (a leaderboard's ``metric_scores``),
    NaN where the metric is undefined; each is taken on the queries where it is defined for
    every configuration (``queries`` says how many). ``pvalues``: each metric's p-values, one per
    pair of configurations in ``np.triu_indices(configurations, 1)`` order of the matrix's rows,
    from a test on those same queries (the randomised Tukey HSD, say). Columns: ``metric``,
    ``queries``, ``pairs``, ``significant`` (pairs with p <= ``alpha``),
    ``discriminative_power`` (:func:`discriminative_power`) and ``swap_rate`` (the overall rate
    of :func:`swap_rates` with ``splits`` and ``seed``). Sorted by discriminative power
    descending, then swap rate ascending, then in the order given; NaN last.
    """
    alpha, splits, seed = ALPHA.check(alpha), SPLITS.check(splits), SEED.check(seed)
    if not isinstance(metric_scores, Mapping) or not isinstance(pvalues, Mapping):
        raise ConfigError("metric_scores and pvalues must be mappings of metric name -> scores, p-values")
    if set(pvalues) != set(metric_scores):
        odd = sorted(set(pvalues) ^ set(metric_scores), key=str)
        raise ConfigError(f"pvalues and metric_scores must name the same metrics; {odd[0]!r} is in one only")
    rows = []
    for metric, table in metric_scores.items():
        values = np.asarray(table, dtype=np.float64)
        if values.ndim != 2:
            raise InputError(f"{metric}'s scores must be a configurations x queries matrix, got {values.ndim} dimension(s)")
        defined = values[:, ~np.isnan(values).any(axis=0)]
        pairs = len(values) * (len(values) - 1) // 2
        p = _pvalues(pvalues[metric], metric)
        if len(p) != pairs:
            raise InputError(f"{metric} has {pairs} pairs of configurations but {len(p)} p-values: give one per pair")
        try:
            overall = swap_rates(defined, splits=splits, seed=seed).at["all", "swap_rate"]
        except InputError as error:
            raise InputError(f"{metric} (on the {defined.shape[1]} queries where it is defined for every configuration): "
                             f"{error}") from error  # fmt: skip
        significant = int(np.count_nonzero(p <= alpha))
        rows.append((metric, defined.shape[1], pairs, significant, discriminative_power(p, alpha), overall))
    frame = pd.DataFrame(rows, columns=list(DISCRIMINATION_COLUMNS))
    power, rate = frame["discriminative_power"].to_numpy(np.float64), frame["swap_rate"].to_numpy(np.float64)
    order = np.lexsort((np.arange(len(frame)), np.nan_to_num(rate, nan=np.inf), -np.nan_to_num(power, nan=-np.inf)))
    return frame.iloc[order].reset_index(drop=True)


# -- the pieces --------------------------------------------------------------------------------


def _halves(seed: int, start: int, size: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Splits ``start`` to ``start + size`` of the queries: each half's membership (splits x queries, 0 or 1).

    Split s is the order of n uniform draws (the s-th row of one stream of ``seed``); its first h
    queries are one half, the next h the other. A batch is drawn from where the stream stands at
    its first split, so the splits do not depend on the batches.
    """
    generator = np.random.Generator(np.random.PCG64(seed))
    generator.bit_generator.advance(start * n)  # one 64-bit draw a uniform double
    order = np.argsort(generator.random((size, n)), axis=1, kind="stable")
    half = n // 2
    one, two = np.zeros((size, n)), np.zeros((size, n))
    np.put_along_axis(one, order[:, :half], 1.0, axis=1)
    np.put_along_axis(two, order[:, half : 2 * half], 1.0, axis=1)
    return one, two


def _split_batches(splits: int, n: int, configurations: int) -> list[tuple[int, int]]:
    """(first split, size) of each batch: its halves (2 x size x queries) and sums (configurations x size) bounded."""
    size = max(1, min(_BATCH_CELLS // (2 * n), _BATCH_CELLS // configurations))
    return [(start, min(size, splits - start)) for start in range(0, splits, size)]


def _bins(bins: Any, largest: float) -> tuple[float, np.ndarray]:
    """The bins' width and edges: ``bins`` equal bins over [0, ``largest``], or bins of width ``bins`` that reach it."""
    integral = isinstance(bins, numbers.Integral) and not isinstance(bins, bool)
    width = float(bins) if isinstance(bins, numbers.Real) and not isinstance(bins, bool) else float("nan")
    if not (integral and bins >= 1) and (integral or not np.isfinite(width) or width <= 0):
        raise ConfigError(f"bins must be a number of bins (an integer >= 1) or a bin width (a number > 0), got {bins!r}")
    if integral:
        # Every |d1| is 0 when largest is: any width puts them all in the first bin.
        return (largest / int(bins) if largest > 0 else 1.0), np.linspace(0.0, largest, int(bins) + 1)
    return width, width * np.arange(int(largest // width) + 2, dtype=np.float64)


def _bin_index(magnitude: np.ndarray, width: float, count: int) -> np.ndarray:
    """floor(|d1| / width), the last bin also holding what reaches its upper edge (or passes it by rounding)."""
    return np.minimum(np.floor(magnitude / width), count - 1).astype(np.int64)


def _binned(cases: np.ndarray, swaps: np.ndarray, edges: np.ndarray) -> pd.DataFrame:
    """The per-bin rows and the ``"all"`` row."""
    total_cases, total_swaps = int(cases.sum()), int(swaps.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(cases > 0, swaps / np.maximum(cases, 1), np.nan)
    frame = pd.DataFrame(
        {"low": np.append(edges[:-1], 0.0), "high": np.append(edges[1:], edges[-1]),
         "cases": np.append(cases, total_cases), "swaps": np.append(swaps, total_swaps),
         "swap_rate": np.append(rate, total_swaps / total_cases if total_cases else np.nan)},
        index=pd.Index([*range(len(cases)), "all"], name="bin", dtype=object),
        columns=list(SWAP_COLUMNS),
    )  # fmt: skip
    return frame


def _scores(matrix: Any) -> np.ndarray:
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] == 0:
        raise InputError(
            f"scores must be a configurations x queries matrix with a configuration or more, got shape {values.shape}"
        )
    if values.shape[1] < 2:
        raise InputError(f"swap rates split the queries in two halves: {values.shape[1]} query, need two or more")
    if not np.isfinite(values).all():
        row, column = np.argwhere(~np.isfinite(values))[0]
        raise InputError(
            f"scores must be finite; configuration {row} query {column} is {float(values[row, column])!r} "
            "(take the queries where the metric is defined for every configuration)"
        )
    return values


def _pvalues(pvalues: Any, metric: str | None = None) -> np.ndarray:
    where = f"{metric}'s p-values" if metric else "p-values"
    values = np.asarray(pvalues, dtype=np.float64)
    if values.ndim != 1:
        raise InputError(f"{where} must be one per pair of configurations (a vector), got {values.ndim} dimension(s)")
    bad = np.flatnonzero(~((values >= 0) & (values <= 1)))
    if len(bad):
        raise InputError(f"{where} must be in [0, 1]; {len(bad)} are not, first pair {bad[0]}: {float(values[bad[0]])!r}")
    return values
