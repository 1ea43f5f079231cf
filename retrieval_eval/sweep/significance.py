"""Which differences between configurations are real: the statistics the IR literature recommends for many systems.

A sweep compares tens or hundreds of configurations on the same queries. Testing each against
the best (:mod:`.ranking`) answers "is anything as good as the best"; here every pair is
answered at once, with the family-wise error over all of them under control, and for every
metric of the sweep:

- **randomised Tukey HSD** (:mod:`.tukey`; Carterette, TOIS 2012; Sakai 2018, ch. 4): for each
  pair of configurations, how often a permutation of every query's scores across the
  configurations gives a range of means (best minus worst) at least the pair's difference. A
  pair is *significant* at p <= ``alpha``; no further correction is applied (the range over all
  configurations is the correction).
- **two-way ANOVA without replication** (:mod:`.anova`; configurations x queries) and from its
  residual variance V_E: **Sakai's effect size** ES = (mean_a - mean_b) / sqrt(V_E) and the
  **Tukey HSD margin of error** MOE = q(level; m, (m - 1)(n - 1)) sqrt(V_E / n), so that
  difference +- MOE are simultaneous intervals for every pair;
- for each pair also the **paired t interval and the paired bootstrap interval** of the mean
  difference (:mod:`.intervals`), each pair on its own;
- **power and topic-set size** (:mod:`.power`; Sakai, IRJ 2016): from V_E (or Sakai's
  within-system variance, ``topic_set_variance="within-system"``), the queries a paired
  t-test and a one-way ANOVA need to detect each of ``min_differences`` (and the gap between the
  best and the runner-up) with ``power``, and the power the sweep's own queries have;
- **discriminative power and swap rates** of every metric (:mod:`.discriminative`; Sakai, SIGIR
  2006; Voorhees & Buckley, SIGIR 2002): the share of pairs Tukey's test finds significant under
  that metric, and how often two disjoint halves of the queries order a pair oppositely;
- the **comparison table** (ranx's ``compare`` report made familiar): each configuration's
  mean of every metric with the keys (a, b, c, ... in rank order) of the configurations it
  beats significantly under that metric;
- how far each other metric **ranks the configurations as the objective does**
  (:mod:`.rank_correlation`): Kendall's tau-b, tau_AP (the objective's ranking the reference),
  rank-biased overlap, the pairs the two order oppositely, and the pairs whose Tukey verdict
  (a better, b better, not significant) flips.

Each metric's tests pair the queries where that metric is defined for every configuration; the
count is in :attr:`Significance.discrimination`. All draws are seeded (``seed``): the same
inputs give the same bits whatever the thread count.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import pandas as pd

from ..constraints import check_choice
from ..errors import ConfigError
from ..views import counted
from .anova import sakai_effect_sizes, tukey_margin_of_error, two_way_anova
from .discriminative import metric_discrimination
from .intervals import paired_difference_intervals
from .power import SIZE_COLUMNS, topic_set_sizes, within_system_variance
from .progress import Reporter
from .rank_correlation import metric_correlation
from .ranking import Leaderboard
from .settings import LEVEL, PERMUTATIONS, POWER, RESAMPLES, SEED, SPLITS, TOPIC_SET_VARIANCES, unknown_settings
from .tukey import randomised_tukey_hsd

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: The smallest differences of the objective the topic-set sizes are given for, by default (metric units).
MIN_DIFFERENCES = (0.01, 0.02, 0.05, 0.1)
#: The columns of :attr:`Significance.pairs`.
PAIR_COLUMNS = ("a", "b", "mean_a", "mean_b", "difference", "p_tukey", "significant", "hsd_low", "hsd_high",
                "effect_size", "t_low", "t_high", "bootstrap_low", "bootstrap_high")  # fmt: skip
#: The columns of :attr:`Significance.comparison`.
COMPARISON_COLUMNS = ("configuration", "key", "metric", "mean", "beats")
#: The columns of :attr:`Significance.correlations`.
CORRELATION_COLUMNS = ("metric", "tau_b", "tau_ap", "rbo", "swapped", "flipped")


class SignificanceSettings(TypedDict, total=False):
    """The keyword settings of :func:`significance`, each with the rules of :mod:`.settings` (defaults there)."""

    permutations: int
    seed: int
    level: float
    resamples: int
    power: float
    min_differences: Sequence[float]
    splits: int
    topic_set_variance: str


_SETTINGS = (PERMUTATIONS, SEED, LEVEL, RESAMPLES, POWER, SPLITS)


@dataclass(frozen=True)
class Significance:
    """The statistics for many configurations of one leaderboard (definitions in the module's docstring).

    ``pairs``: one row per pair a < b in rank order on the objective: ``a``, ``b``, ``mean_a``,
    ``mean_b``, ``difference`` (= mean_a - mean_b), ``p_tukey`` (randomised Tukey HSD),
    ``significant`` (p_tukey <= alpha), ``hsd_low``/``hsd_high`` (difference -+ the margin of
    error), ``effect_size`` (Sakai's, difference / sqrt(V_E)), ``t_low``/``t_high`` and
    ``bootstrap_low``/``bootstrap_high`` (the paired intervals of the difference at ``level``).
    The means are the leaderboard's; the tests and intervals pair its ``per_query`` queries (where
    the objective is defined for every configuration), so the intervals and the effect size are
    those of the paired queries' mean difference (``difference`` itself, to rounding, where the
    objective is defined on every query compared).
    ``power`` and ``topic_set_variance``: the target and the variance estimate of the topic-set sizes.
    ``anova``: the two-way table (``source`` systems, topics, residual, total; columns ss, df, ms,
    F, p). ``residual_variance``: V_E. ``margin_of_error``: MOE. ``lead``: the best's mean minus
    the runner-up's, as a positive number (0 when equal). ``topic_set_sizes``: one row per
    smallest difference, the lead first when it is positive (:func:`~.power.topic_set_sizes`). ``discrimination``: one row per metric,
    best separating first (:func:`~.discriminative.metric_discrimination`). ``comparison``: one
    row per configuration (rank order) and metric: ``configuration``, ``key``, ``metric``,
    ``mean`` (the leaderboard's), ``beats`` (the keys of the configurations it is significantly
    better than under that metric, in rank order). ``correlations``: one row per metric other
    than the objective: ``metric``, ``tau_b``, ``tau_ap``, ``rbo`` (its ranking of the
    configurations against the objective's), ``swapped`` and ``flipped`` (counts of pairs); NaN
    for a metric whose mean is undefined for some configuration. ``pvalues``: each metric's Tukey p-values, in
    the order of ``np.triu_indices(m, 1)`` over the configurations in rank order.
    """

    objective: str
    higher_is_better: bool
    alpha: float
    level: float
    power: float
    topic_set_variance: str
    permutations: int
    seed: int
    queries: int
    pairs: pd.DataFrame
    anova: pd.DataFrame
    residual_variance: float
    margin_of_error: float
    lead: float
    topic_set_sizes: pd.DataFrame
    discrimination: pd.DataFrame
    comparison: pd.DataFrame
    correlations: pd.DataFrame
    pvalues: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def keys(self) -> dict[str, str]:
        """Each configuration's key in the comparison table (a, b, ..., z, aa, ab, ...), in rank order."""
        frame = self.comparison.drop_duplicates("configuration")
        return dict(zip(frame["configuration"], frame["key"]))

    def summary(self) -> list[str]:
        """What the statistics say, one line each with what the number means (the terminal's and the report's words)."""
        pairs = self.pairs
        significant = int(pairs["significant"].sum())
        anova = self.anova.set_index("source")
        lines = [
            f"randomised Tukey HSD ({counted(self.permutations, 'permutation')}, {counted(self.queries, 'query', 'queries')} "
            f"paired): {significant:,} of {counted(len(pairs), 'pair')} of configurations differ on {self.objective} at "
            f"{self.alpha:g}, the family-wise error over all pairs controlled",
        ]
        if self.residual_variance > 0:
            lines += [
                f"two-way ANOVA (configurations x queries): F = {anova.at['systems', 'F']:.4g}, p {_p(anova.at['systems', 'p'])} "
                f"for the configurations; residual variance V_E = {self.residual_variance:.4g}",
                f"any two means further apart than {self.margin_of_error:.4f} differ ({self.level:.0%} simultaneous "
                "Tukey intervals: difference +- that margin); effect size = difference / sqrt(V_E)",
            ]
        else:
            lines.append(
                "two-way ANOVA: the residual variance V_E is 0 (on every query each configuration's score is another's plus "
                "the same constant, identical configurations included): no noise to size intervals, effects or query counts by"
            )
        for row in self.topic_set_sizes.itertuples(index=False):
            which = f"the best's lead over the runner-up ({row.min_difference:.4g})" if row.min_difference == self.lead \
                else f"a difference of {row.min_difference:.4g}"
            lines.append(
                f"to detect {which} with power {self.power:g} ({self.topic_set_variance} variance): "
                f"{counted(int(row.t_test_topics), 'query', 'queries')} (paired t-test), "
                f"{counted(int(row.anova_topics), 'query', 'queries')} (one-way ANOVA over every configuration); "
                f"these {self.queries} have power {row.t_test_power:.2f} and {row.anova_power:.2f}"
            )
        for row in self.correlations.dropna().itertuples(index=False):
            lines.append(
                f"{row.metric} ranks the configurations as {self.objective} does with Kendall's tau {row.tau_b:.3f}, "
                f"tau_AP {row.tau_ap:.3f}, RBO {row.rbo:.3f}: {counted(int(row.swapped), 'pair')} swapped, "
                f"{counted(int(row.flipped), 'significant verdict')} flipped"
            )
        best = self.discrimination.iloc[0] if len(self.discrimination) else None
        if best is not None and len(self.discrimination) > 1 and best["discriminative_power"] > 0:
            lines.append(
                f"{best['metric']} separates the configurations best: {best['discriminative_power']:.0%} of pairs "
                f"significant, swap rate {best['swap_rate']:.1%}"
            )
        return lines


def significance(
    board: Leaderboard, *, progress: Callable[..., None] | None = None, **settings: Unpack[SignificanceSettings]
) -> Significance:
    """The statistics for many configurations of ``board`` (see the module's docstring).

    ``permutations`` (randomised Tukey HSD), ``resamples`` (the bootstrap intervals), ``splits``
    (the swap rates) and ``seed`` draw with the rules of :mod:`.settings`; ``level`` is the
    confidence of every interval and ``power`` the target of the topic-set sizes, given for each
    of ``min_differences`` (positive, in the objective's units) and for the gap between the best
    and the runner-up when there is one, designed with ``topic_set_variance`` (one of
    :data:`~.settings.TOPIC_SET_VARIANCES`: V_E by default, or Sakai's within-system variance). The
    level of the tests is the leaderboard's ``alpha``.
    A leaderboard of one configuration, or of fewer than two queries paired, is a
    :class:`~retrieval_eval.ConfigError`: there is nothing to compare.
    """
    checked = check_settings(settings)
    permutations, seed, level, resamples, power = (checked[name] for name in ("permutations", "seed", "level", "resamples", "power"))
    matrix = np.ascontiguousarray(board.per_query.to_numpy(np.float64))
    names = list(board.per_query.index)
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        raise ConfigError(
            f"the statistics for many configurations compare at least two configurations on at least two queries; "
            f"this leaderboard has {counted(matrix.shape[0], 'configuration')} on {counted(matrix.shape[1], 'query', 'queries')}"
        )
    report = Reporter(progress)
    pvalues = _tukey_per_metric(board, permutations, seed, report)
    anova = two_way_anova(matrix)
    margin = tukey_margin_of_error(anova, level)
    first, second = np.triu_indices(len(names), 1)
    means = board.table[board.objective].to_numpy(np.float64)
    difference = means[first] - means[second]
    label = f"bootstrap intervals of differences: {counted(resamples, 'resample')} x {counted(len(first), 'pair')}"
    intervals = paired_difference_intervals(matrix, first, second, level=level, resamples=resamples, seed=seed,
                                            progress=report.draws("differences", label))  # fmt: skip
    p_objective = pvalues[board.objective]
    paired = intervals["difference"].to_numpy()  # over the paired queries, as V_E and the other intervals
    pairs = pd.DataFrame({
        "a": [names[i] for i in first], "b": [names[j] for j in second],
        "mean_a": means[first], "mean_b": means[second], "difference": difference,
        "p_tukey": p_objective, "significant": p_objective <= board.alpha,
        "hsd_low": paired - margin, "hsd_high": paired + margin,
        "effect_size": sakai_effect_sizes(paired, anova.residual_variance),
        "t_low": intervals["t_low"].to_numpy(), "t_high": intervals["t_high"].to_numpy(),
        "bootstrap_low": intervals["bootstrap_low"].to_numpy(), "bootstrap_high": intervals["bootstrap_high"].to_numpy(),
    }, columns=list(PAIR_COLUMNS))  # fmt: skip
    lead = abs(means[0] - means[1])
    # No residual variance, no noise to design a query count against (topic_set_sizes refuses it): no sizes.
    within = checked["topic_set_variance"] == "within-system"
    sizes = (topic_set_sizes(matrix, min_differences=[*([lead] if lead > 0 else []), *checked["min_differences"]],
                             alpha=board.alpha, power=power, variance=within_system_variance(matrix) if within else None)
             if anova.residual_variance > 0 else pd.DataFrame(columns=list(SIZE_COLUMNS)))  # fmt: skip
    discrimination = metric_discrimination(board.metric_scores, pvalues, alpha=board.alpha, splits=checked["splits"], seed=seed)
    return Significance(
        board.objective, board.higher_is_better, board.alpha, level, power, checked["topic_set_variance"], permutations, seed,
        matrix.shape[1], pairs,
        anova.table().rename_axis("source").reset_index(), anova.residual_variance, margin, lead, sizes, discrimination,
        _comparison(board, pvalues), _correlations(board, pvalues), pvalues,
    )  # fmt: skip


def check_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings of :func:`significance` (:class:`SignificanceSettings`) with their defaults, checked: a
    :class:`~retrieval_eval.ConfigError` names an unknown or bad one. The command line checks them before any
    run is scored."""
    unknown_settings(settings, SignificanceSettings.__annotations__)
    given = {setting.name: settings.get(setting.name, setting.default) for setting in _SETTINGS}
    checked: dict[str, Any] = {setting.name: setting.check(given[setting.name]) for setting in _SETTINGS}
    checked["min_differences"] = _min_differences(settings.get("min_differences", MIN_DIFFERENCES))
    checked["topic_set_variance"] = check_choice("topic_set_variance", settings.get("topic_set_variance", TOPIC_SET_VARIANCES[0]),
                                                 TOPIC_SET_VARIANCES)  # fmt: skip
    return checked


def keys_of(count: int) -> list[str]:
    """The keys of ``count`` configurations in rank order: a, b, ..., z, aa, ab, ... (as spreadsheet columns)."""
    keys = []
    for number in range(1, count + 1):
        key = ""
        while number:
            number, digit = divmod(number - 1, 26)
            key = chr(ord("a") + digit) + key
        keys.append(key)
    return keys


def _tukey_per_metric(board: Leaderboard, permutations: int, seed: int, report: Reporter) -> dict[str, np.ndarray]:
    """Each metric's randomised Tukey HSD p-values over the queries where it is defined for every configuration
    (NaN for every pair where fewer than two such queries remain)."""
    pairs = len(board.table) * (len(board.table) - 1) // 2
    pvalues = {}
    for done, metric in enumerate(board.metrics, start=1):
        scores = board.metric_scores[metric]
        defined = scores.loc[:, scores.notna().all(axis=0)].to_numpy(np.float64)
        label = (f"randomised Tukey HSD on {metric} ({done}/{len(board.metrics)}): {counted(permutations, 'permutation')} x "
                 f"{counted(defined.shape[0], 'configuration')} x {counted(defined.shape[1], 'query', 'queries')}")  # fmt: skip
        pvalues[metric] = (
            randomised_tukey_hsd(np.ascontiguousarray(defined), permutations=permutations, seed=seed,
                                 progress=report.draws("tukey", label))
            if defined.shape[1] >= 2 else np.full(pairs, np.nan)
        )  # fmt: skip
    return pvalues


def _comparison(board: Leaderboard, pvalues: dict[str, np.ndarray]) -> pd.DataFrame:
    """The comparison table's rows (see :class:`Significance`): who beats whom, significantly, under each metric."""
    names = list(board.table.index)
    keys = np.array(keys_of(len(names)), dtype=object)
    first, second = np.triu_indices(len(names), 1)
    rows = []
    for metric in board.metrics:
        verdicts = _verdicts(board, metric, pvalues[metric])
        # beats[i, j]: i significantly better than j under this metric.
        beats = np.zeros((len(names), len(names)), dtype=bool)
        beats[first, second] = verdicts > 0
        beats[second, first] = verdicts < 0
        rows.append(pd.DataFrame({
            "configuration": names, "key": keys, "metric": metric, "mean": board.table[metric].to_numpy(np.float64),
            "beats": [list(keys[row]) for row in beats],
        }))  # fmt: skip
    return pd.concat(rows, ignore_index=True)[list(COMPARISON_COLUMNS)]


def _verdicts(board: Leaderboard, metric: str, pvalues: np.ndarray) -> np.ndarray:
    """Each pair's verdict under ``metric``: +1 the better ranked (a) significantly better, -1 b, 0 not significant."""
    means = board.table[metric].to_numpy(np.float64)
    first, second = np.triu_indices(len(means), 1)
    direction = np.sign(means[first] - means[second]) * (1.0 if board.metric_higher_is_better(metric) else -1.0)
    return np.where(pvalues <= board.alpha, direction, 0.0)


def _correlations(board: Leaderboard, pvalues: dict[str, np.ndarray]) -> pd.DataFrame:
    """How each other metric ranks the configurations against the objective (see :class:`Significance`)."""
    objective = _verdicts(board, board.objective, pvalues[board.objective])
    rows = []
    for metric in board.metrics:
        if metric == board.objective:
            continue
        if board.table[metric].isna().any():
            rows.append((metric, np.nan, np.nan, np.nan, np.nan, np.nan))
            continue
        correlation = metric_correlation(board, board.objective, metric)
        flipped = int(np.count_nonzero(_verdicts(board, metric, pvalues[metric]) != objective))
        rows.append((metric, correlation.tau_b, correlation.tau_ap, correlation.rbo, len(correlation.swapped), flipped))
    return pd.DataFrame(rows, columns=list(CORRELATION_COLUMNS))


def _min_differences(values: Sequence[float]) -> list[float]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ConfigError(f"min_differences must be a list of positive numbers, got {values!r}")
    checked = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) or not np.isfinite(value) or value <= 0:
            raise ConfigError(f"min_differences must be positive numbers (in the objective's units), got {value!r}")
        checked.append(float(value))
    return checked


def _p(value: float) -> str:
    """A p-value after "p": ``< 0.0001`` or ``= 0.0123``."""
    return "< 0.0001" if value < 0.0001 else f"= {value:.4f}"
