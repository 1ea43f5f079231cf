"""How far two evaluations of the same runs agree on their order: rank correlations, swapped pairs, flipped verdicts.

The two evaluations may be two metrics of one leaderboard (:func:`metric_correlation`), two
qrels or human against judge labels (:func:`retrieval_eval.judging.ranking_agreement`, built on
this module), two query subsets (:func:`subset_correlation`), or any two vectors of means of the
same N runs (:func:`compare_rankings`). Each evaluation ranks the runs by its means, best first
(descending where higher is better, ascending otherwise; each evaluation has its own direction),
equal means by run name.

Definitions:

- Kendall's tau-b of the two vectors of means (as ``scipy.stats.kendalltau``), the means of a
  lower-is-better evaluation negated, so that a concordant pair is one both evaluations prefer
  the same way:
  tau_b = (concordant - discordant) / sqrt((n0 - n1)(n0 - n2)), n0 = N(N - 1)/2 pairs, n1 and n2
  the pairs tied in each evaluation; NaN when every mean of one side is the same.
- tau_AP (Yilmaz, Aslam & Robertson, "A new rank correlation coefficient for information
  retrieval", SIGIR 2008) of the second ranking against the first as the reference:
  tau_AP = 2/(N - 1) sum_{i=2..N} C(i)/(i - 1) - 1, C(i) the runs above the second ranking's i-th
  run there that the first ranking also puts above it. It weighs swaps near the top more, and is
  not symmetric: ``tau_ap_reverse`` swaps the roles, ``tau_ap_symmetric`` is their mean. Equal
  means are ordered by name (not tied), as in the rankings shown.
- rank-biased overlap, extrapolated (Webber, Moffat & Zobel, "A similarity measure for indefinite
  rankings", TOIS 2010, eq. 32) of the two rankings, two lists of the same N runs:
  RBO_ext = (X_N / N) p^N + (1 - p)/p sum_{d=1..N} (X_d / d) p^d, X_d the runs in the top d of both;
  p = ``rbo_p`` is the persistence (the top d = 1/(1 - p) ranks carry most of the weight).
- swapped pairs: the pairs the two evaluations strictly order the opposite ways (tau-b's
  discordant pairs); a pair equal in either evaluation is not swapped.
- verdicts (:func:`pair_verdicts`): for every pair of runs (a ranked above b by the first
  evaluation) the two-sided paired t-test of the per-query differences a - b
  (:func:`~.stats.t_test_of_differences`) within each evaluation, Holm-adjusted over all the pairs
  (:func:`~.stats.holm`): ``"a better"`` or ``"b better"`` at adjusted p <= ``alpha``, else
  ``"not significant"``; a pair flips when its verdicts differ (significant in one and not the
  other, or significant in both in opposite directions).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..constraints import Interval
from ..errors import ConfigError, InputError
from .settings import ALPHA
from .stats import holm, t_test_of_differences

if TYPE_CHECKING:
    from .ranking import Leaderboard

#: A pair's verdict within one evaluation.
A_BETTER, B_BETTER, NOT_SIGNIFICANT = "a better", "b better", "not significant"
# Indexed by the verdict's sign: 0 not significant, 1 a better, -1 (the last) b better.
_VERDICTS = np.array([NOT_SIGNIFICANT, A_BETTER, B_BETTER], dtype=object)
#: The labels of the two evaluations in the columns of the general functions.
LABELS = ("first", "second")


@dataclass(frozen=True)
class RankCorrelation:
    """Two rankings of the same runs and how far they agree (definitions in the module's docstring).

    Attributes
    ----------
    tau_b
        Kendall's tau-b of the means (NaN when one side's means are all equal).
    tau_ap, tau_ap_reverse, tau_ap_symmetric
        tau_AP of the second ranking against the first as reference, of the first against the
        second, and their mean.
    rbo
        RBO_ext of the two rankings at ``rbo_p``.
    swapped
        The pairs the two evaluations order oppositely, ``a`` ranked above ``b`` by the first
        (pairs by a, then b, in that order): ``a``, ``b``, ``difference_first`` and
        ``difference_second`` (mean a - mean b in each).
    rankings
        One row per run, by the first ranking: ``run``, ``mean_first``, ``mean_second``,
        ``rank_first``, ``rank_second`` (1 = best).
    higher_is_better
        Each evaluation's direction: whether its best run has the highest mean.
    rbo_p
        RBO's persistence p.
    """

    tau_b: float
    tau_ap: float
    tau_ap_reverse: float
    tau_ap_symmetric: float
    rbo: float
    swapped: pd.DataFrame
    rankings: pd.DataFrame
    higher_is_better: tuple[bool, bool]
    rbo_p: float


def compare_rankings(
    first: pd.Series, second: pd.Series, *, higher_is_better: bool | tuple[bool, bool] = True, rbo_p: float = 0.9
) -> RankCorrelation:
    """How far two evaluations of the same runs agree: ``first`` and ``second`` are each run's mean (run name -> mean).

    ``higher_is_better`` is one direction for both, or one for each (two metrics of opposite
    directions, such as ndcg@10 and holes@10). The two series must hold the same run names (any
    order), at least two, each once, and no NaN mean.

    Raises
    ------
    ConfigError
        Not two series of the same run names, fewer than two runs, a name repeated, a bad
        ``higher_is_better`` or ``rbo_p``.
    InputError
        A mean that is NaN.
    """
    directions, rbo_p = _directions(higher_is_better), persistence(rbo_p)
    names, values = _aligned_means(first, second)
    return correlation_of_means(names, values[0], values[1], higher_is_better=directions, rbo_p=rbo_p)


def metric_correlation(board: Leaderboard, first: str, second: str, *, rbo_p: float = 0.9) -> RankCorrelation:
    """The rankings of a leaderboard's configurations by two of its metrics (each in its own direction), compared.

    The means are the leaderboard's (``board.table``): each over the compared queries where the
    metric is defined. A configuration whose mean of either metric is undefined (NaN) is an
    :class:`~retrieval_eval.InputError`.
    """
    for metric in (first, second):
        _check_metric(board, metric)
    means = [board.table[metric] for metric in (first, second)]
    for metric, mean in zip((first, second), means):
        _defined(mean, f"{metric}'s mean")
    directions = (board.metric_higher_is_better(first), board.metric_higher_is_better(second))
    return compare_rankings(means[0], means[1], higher_is_better=directions, rbo_p=rbo_p)


def subset_correlation(
    board: Leaderboard, queries_a: Iterable[Any], queries_b: Iterable[Any], metric: str | None = None, *, rbo_p: float = 0.9
) -> RankCorrelation:
    """The rankings of a leaderboard's configurations by ``metric`` (the objective by default) on two query subsets, compared.

    Each configuration's mean on a subset is over the subset's queries where ``metric`` is defined
    for it (``board.metric_scores``). The subsets are query ids among the leaderboard's compared
    queries, each at most once; they may overlap (disjoint subsets say how far the ranking holds
    on new queries).
    """
    metric = board.objective if metric is None else metric
    _check_metric(board, metric)
    scores = board.metric_scores[metric]
    means = []
    for label, queries in (("queries_a", queries_a), ("queries_b", queries_b)):
        values = scores.iloc[:, _subset_columns(scores.columns, queries, label)].to_numpy(np.float64)
        defined = ~np.isnan(values)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(defined, values, 0.0).sum(axis=1) / defined.sum(axis=1)
        means.append(_defined(pd.Series(mean, index=scores.index), f"{metric}'s mean over {label}"))
    direction = board.metric_higher_is_better(metric)
    return compare_rankings(means[0], means[1], higher_is_better=direction, rbo_p=rbo_p)


def pair_verdicts(
    first: pd.DataFrame, second: pd.DataFrame, *, higher_is_better: bool | tuple[bool, bool] = True, alpha: float = ALPHA.default
) -> pd.DataFrame:
    """Every pair of runs tested within each of two evaluations (configurations x queries tables), and which verdicts flip.

    ``first`` and ``second`` are per-query scores with the run names as index (the same names,
    any order; each table pairs its own queries, at least two, so the two may score different
    queries). The means are the rows' means. One row per pair, ``a`` ranked above ``b`` by the
    first evaluation (pairs by a, then b, in that order): ``difference_*`` (mean a - mean b),
    ``p_*`` and ``p_*_holm`` (the paired t-test, raw and Holm-adjusted over all the pairs) and
    ``verdict_*`` within each evaluation (``*`` = ``first``, ``second``), ``swapped`` (ordered
    oppositely) and ``flipped`` (the verdicts differ): the flips are ``frame[frame["flipped"]]``.
    A table with a NaN score is refused: take the queries where the metric is defined for every
    run first (``table.dropna(axis=1)``).
    """
    directions, alpha = _directions(higher_is_better), ALPHA.check(alpha)
    for label, table in zip(LABELS, (first, second)):
        if not isinstance(table, pd.DataFrame):
            raise ConfigError(f"{label} must be a DataFrame of per-query scores (runs x queries), got {type(table).__name__}")
    names = _same_runs(first.index, second.index)
    matrices = [np.ascontiguousarray(table.loc[names].to_numpy(np.float64)) for table in (first, second)]
    for label, table, matrix in zip(LABELS, (first, second), matrices):
        _paired_scores(label, table.loc[names], matrix)
    means = [matrix.mean(axis=1) for matrix in matrices]
    order = np.argsort(ranks(names, means[0], higher_is_better=directions[0]))
    return verdicts(names, order, matrices, means, directions, alpha)


# -- the definitions over arrays ---------------------------------------------------------------


def correlation_of_means(
    names: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    *,
    higher_is_better: tuple[bool, bool],
    rbo_p: float,
    labels: tuple[str, str] = LABELS,
) -> RankCorrelation:
    """:func:`compare_rankings` of two vectors of means of the runs ``names`` (checked by the caller).

    ``labels`` name the two evaluations in the columns (``mean_first``, ``rank_first``, ...).
    """
    ranked = [ranks(names, means, higher_is_better=higher) for means, higher in zip((first, second), higher_is_better)]
    order = np.argsort(ranked[0])
    a, b = pairs_in_order(order)
    means = (first, second)
    differences = [mean[a] - mean[b] for mean in means]
    one, two = labels
    rankings = pd.DataFrame(
        {"run": names[order], f"mean_{one}": first[order], f"mean_{two}": second[order],
         f"rank_{one}": ranked[0][order], f"rank_{two}": ranked[1][order]},
    )  # fmt: skip
    flags = swapped(differences, higher_is_better)
    swaps = pd.DataFrame(
        {"a": names[a][flags], "b": names[b][flags], f"difference_{one}": differences[0][flags],
         f"difference_{two}": differences[1][flags]}
    )  # fmt: skip
    forward, reverse = tau_ap(ranked[0], ranked[1]), tau_ap(ranked[1], ranked[0])
    goods = [mean if higher else -mean for mean, higher in zip(means, higher_is_better)]
    return RankCorrelation(
        tau_b=kendall_tau_b(goods[0], goods[1]),
        tau_ap=forward,
        tau_ap_reverse=reverse,
        tau_ap_symmetric=(forward + reverse) / 2,
        rbo=rbo_ext(ranked[0], ranked[1], rbo_p),
        swapped=swaps,
        rankings=rankings,
        higher_is_better=higher_is_better,
        rbo_p=rbo_p,
    )


def ranks(names: np.ndarray, means: np.ndarray, *, higher_is_better: bool) -> np.ndarray:
    """1-based ranks of the runs ``names`` by ``means``: the best mean first, equal means by run name."""
    order = np.lexsort((names.astype(str), -means if higher_is_better else means))
    result = np.empty(len(names), dtype=np.int64)
    result[order] = np.arange(1, len(names) + 1)
    return result


def pairs_in_order(order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (a, b) of the runs with a before b in ``order`` (run indices, best first), by a then b."""
    upper, lower = np.triu_indices(len(order), 1)
    return order[upper], order[lower]


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b of two score vectors (ties in either count as ties; NaN where one side is all tied)."""
    first, second = np.triu_indices(len(x), 1)
    sx, sy = np.sign(x[first] - x[second]), np.sign(y[first] - y[second])
    pairs = len(first)
    denominator = np.sqrt(float(pairs - np.count_nonzero(sx == 0)) * float(pairs - np.count_nonzero(sy == 0)))
    return float(np.sum(sx * sy) / denominator) if denominator > 0 else float("nan")


def tau_ap(reference: np.ndarray, ranks: np.ndarray) -> float:
    """tau_AP of the ranking ``ranks`` against the ``reference`` ranking (both 1-based ranks of the same items, no ties)."""
    n = len(ranks)
    if n < 2:
        return float("nan")
    by_rank = np.argsort(ranks)
    reference_positions = reference[by_rank]  # the reference rank of the evaluated list's i-th item
    above = np.triu(np.ones((n, n), dtype=bool), 1)  # above[k, i]: k comes before i in the evaluated list
    correct = (above & (reference_positions[:, None] < reference_positions[None, :])).sum(axis=0)
    i = np.arange(1, n)
    return float(2.0 / (n - 1) * np.sum(correct[1:] / i) - 1.0)


def rbo_ext(first: np.ndarray, second: np.ndarray, p: float) -> float:
    """Extrapolated rank-biased overlap of two rankings of the same N items (1-based ranks, no ties)."""
    n = len(first)
    # An item is in the top d of both lists from depth max(rank in one, rank in the other) on.
    overlap = np.cumsum(np.bincount(np.maximum(first, second) - 1, minlength=n)[:n])
    depth = np.arange(1, n + 1)
    weights = p ** depth.astype(np.float64)
    return float(overlap[-1] / n * p**n + (1 - p) / p * np.sum(overlap / depth * weights))


def swapped(differences: Sequence[np.ndarray], higher_is_better: tuple[bool, bool]) -> np.ndarray:
    """Which pairs the two evaluations strictly order oppositely, given each one's differences mean a - mean b."""
    signs = [np.sign(difference) * (1 if higher else -1) for difference, higher in zip(differences, higher_is_better)]
    return signs[0] * signs[1] < 0


def verdicts(
    names: np.ndarray,
    order: np.ndarray,
    scores: Sequence[np.ndarray],
    means: Sequence[np.ndarray],
    higher_is_better: tuple[bool, bool],
    alpha: float,
    labels: tuple[str, str] = LABELS,
) -> pd.DataFrame:
    """:func:`pair_verdicts` given each evaluation's runs x queries ``scores`` and the runs' ``means`` (checked by the caller).

    The pairs follow ``order`` (run indices, the first evaluation's best first); every pair is
    tested at once within each evaluation (pairs x queries).
    """
    a, b = pairs_in_order(order)
    columns: dict[str, Any] = {"a": names[a], "b": names[b]}
    differences, signs = [], []
    for label, matrix, mean, higher in zip(labels, scores, means, higher_is_better):
        p = t_test_of_differences(matrix[a] - matrix[b])[1] if len(a) else np.empty(0)
        adjusted = holm(p)
        difference = mean[a] - mean[b]
        better = np.sign(difference) * (1 if higher else -1)
        sign = np.where(adjusted <= alpha, better, 0).astype(np.int64)
        columns |= {f"difference_{label}": difference, f"p_{label}": p, f"p_{label}_holm": adjusted,
                    f"verdict_{label}": _VERDICTS[sign]}  # fmt: skip
        differences.append(difference)
        signs.append(sign)
    columns["swapped"] = swapped(differences, higher_is_better)
    columns["flipped"] = signs[0] != signs[1]
    return pd.DataFrame(columns)


def persistence(p: Any) -> float:
    """RBO's persistence ``p`` as a float in (0, 1), else a :class:`~retrieval_eval.ConfigError`."""
    return Interval(0, 1, low_open=True, high_open=True).check("rbo_p", p, unit="RBO's persistence")


# -- checks ------------------------------------------------------------------------------------


def _directions(higher_is_better: Any) -> tuple[bool, bool]:
    if isinstance(higher_is_better, (bool, np.bool_)):
        return bool(higher_is_better), bool(higher_is_better)
    pair = isinstance(higher_is_better, tuple) and len(higher_is_better) == 2
    if pair and all(isinstance(higher, (bool, np.bool_)) for higher in higher_is_better):
        return bool(higher_is_better[0]), bool(higher_is_better[1])
    raise ConfigError(
        f"higher_is_better must be True, False or one of them for each evaluation (a pair), got {higher_is_better!r}"
    )


def _aligned_means(first: Any, second: Any) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The run names (the first's order) and both sides' means in that order, checked."""
    for label, series in zip(LABELS, (first, second)):
        if not isinstance(series, pd.Series):
            raise ConfigError(f"{label} must be a pandas Series of means (run name -> mean), got {type(series).__name__}")
    names = _same_runs(first.index, second.index)
    values = []
    for label, series in zip(LABELS, (first, second)):
        _defined(series, f"{label}'s mean")
        values.append(series.loc[names].to_numpy(np.float64))
    return names, (values[0], values[1])


def _same_runs(first: pd.Index, second: pd.Index) -> np.ndarray:
    """The run names of ``first`` (in its order), if ``second`` holds the same ones, each once, two or more."""
    for label, index in zip(LABELS, (first, second)):
        repeated = index[index.duplicated()]
        if len(repeated):
            raise ConfigError(f"{label} names run {repeated[0]!r} more than once")
    missing = first.difference(second).union(second.difference(first))
    if len(missing):
        side = LABELS[1] if missing[0] in first else LABELS[0]
        raise ConfigError(
            f"the two evaluations must rank the same runs: {len(missing)} run(s) in one only, first {missing[0]!r} "
            f"(missing from {side})"
        )
    if len(first) < 2:
        raise ConfigError(f"a ranking correlation compares the rankings of two or more runs, got {len(first)}")
    return first.to_numpy(dtype=object)


def _defined(means: pd.Series, what: str) -> pd.Series:
    """``means`` if none is NaN, else an InputError naming ``what`` and the first run without one."""
    undefined = means.index[means.isna().to_numpy()]
    if len(undefined):
        raise InputError(
            f"{what} is undefined (NaN) for {len(undefined)} run(s), first {undefined[0]!r}: every run needs one to be ranked"
        )
    return means


def _paired_scores(label: str, table: pd.DataFrame, matrix: np.ndarray) -> None:
    """Refuse per-query scores that cannot be paired: fewer than two queries, or a NaN."""
    if matrix.shape[1] < 2:
        raise InputError(f"{label} has {matrix.shape[1]} query: a paired test needs two or more")
    undefined = np.isnan(matrix)
    if undefined.any():
        run, query = np.argwhere(undefined)[0]
        raise InputError(
            f"{label} has {int(undefined.sum())} undefined (NaN) score(s), first run {table.index[run]!r} query "
            f"{table.columns[query]!r}: a paired test needs a score for every query (take table.dropna(axis=1))"
        )


def _check_metric(board: Leaderboard, metric: Any) -> None:
    if not isinstance(metric, str) or metric not in board.metric_scores:
        raise ConfigError(f"metric must be one of the leaderboard's metrics ({', '.join(board.metrics)}), got {metric!r}")


def _subset_columns(columns: pd.Index, queries: Iterable[Any], label: str) -> np.ndarray:
    """The positions of the subset's query ids among the compared queries ``columns``, checked."""
    if isinstance(queries, (str, bytes)) or not isinstance(queries, Iterable):
        raise ConfigError(f"{label} must be a list of query ids, got {type(queries).__name__}")
    asked = pd.Index(list(queries))
    if len(asked) == 0:
        raise ConfigError(f"{label} is empty: give one or more query ids")
    repeated = asked[asked.duplicated()]
    if len(repeated):
        raise ConfigError(f"{label} names query {repeated[0]!r} more than once")
    positions = columns.get_indexer(asked)
    unknown = asked[positions < 0]
    if len(unknown):
        raise ConfigError(
            f"{label} names {len(unknown)} query id(s) the leaderboard does not compare, first {unknown[0]!r}"
        )
    return positions
