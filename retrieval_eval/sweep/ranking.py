"""A leaderboard of configurations: one qrels, many runs of the same queries, paired statistics.

Every run is scored against the same :class:`~retrieval_eval.data.Qrels` (built once). The
per-query scores of the *objective* metric are aligned across runs by ``query_policy``:

- ``"intersection"`` (default): only the queries every run was scored on; each run's count of
  queries left out is reported (``queries_lost``);
- ``"zero"``: every query some run was scored on; a run missing one scores 0 there (trec_eval's
  ``-c`` reading: a query not answered is a query failed).

Queries are then put in id order, so that nothing depends on the order runs or rows came in.
A run scored on a query may have a metric undefined there (NaN, as in an evaluation's per-query
table): each metric's mean is over the compared queries where it is defined, the mean
:func:`~retrieval_eval.evaluate` gives on the same queries; the paired tests and intervals take
the queries where the objective is defined for every run; the notes name the metric and the runs.
The configurations are ranked by the objective's mean (descending, or ascending for a metric
where lower is better); exactly equal means go by cost when costs are given (the cheaper first,
the costs compared in their order), then by name in natural order (``k20`` before ``k100``).
A run of configurations with identical scores on every query is said in the notes. Each one is compared with the best,
paired over queries: the t-test and the chosen ``test`` (:data:`~.settings.TESTS`; default the
Fisher randomization test, :mod:`.stats`), each with the chosen ``correction`` over the
comparisons (:data:`~.settings.CORRECTIONS`; default Holm's), the paired effect size, and the
queries it wins, ties and loses. A configuration is *tied with the best* when its corrected
p-value of the chosen test (``Leaderboard.p_column``; by default ``p_randomization_holm``) is
above ``alpha``: the data do not show it to be worse. Each configuration is tested against the
best alone, on its own paired per-query differences, so a configuration ranked lower can be tied
with the best while one ranked higher is significantly worse: what decides is how consistently it
differs from the best query by query (the paired variance), not how far down it ranks. Every mean
has a paired bootstrap confidence interval.

On request (``all_pairs=True``) every pair of configurations is compared the same way
(:mod:`.pairwise`), and the best is always set against the runner-up query by query
(``head_to_head``). The statistics take far longer than the scoring on large sweeps; a
``progress`` callback that takes a ``phase`` keyword hears each of their phases (:mod:`.progress`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np
import pandas as pd

from .. import views
from ..constraints import check_choice, check_flag
from ..errors import ConfigError, InputError
from ..metrics.evaluator import Evaluator
from ..metrics.names import Metric
from ..metrics.options import EvaluationOptions
from ..metrics.registry import REGISTRY
from ..natural_order import natural_key
from ..policies import QUERY_POLICIES
from ..views import counted
from .pairwise import all_pairs as compare_all_pairs
from .pairwise import head_to_head
from .progress import Reporter
from .settings import (
    ALPHA,
    CORRECTION_METHODS,
    CORRECTIONS,
    RESAMPLES,
    ROUNDS,
    SEED,
    TEST_METHODS,
    TESTS,
    check_bootstrap_memory,
    decision_column,
    p_value_columns,
)
from .stats import bootstrap_ci, corrected, paired_effect_size, paired_p_values, paired_t_test


class RankingSettings(TypedDict, total=False):
    """The keyword arguments of :func:`leaderboard` after the data, for callers that pass them on."""

    objective: str | None
    options: EvaluationOptions | None
    query_policy: str
    alpha: float
    resamples: int
    rounds: int
    seed: int
    test: str
    correction: str
    all_pairs: bool
    progress: Callable[..., None] | None


@dataclass(frozen=True)
class Leaderboard:
    """The ranked configurations.

    ``table``: one row per configuration, best first: ``rank``, the mean of each metric,
    ``ci_low``/``ci_high`` (the objective's bootstrap interval), the p-values against the best
    (NaN for the best itself): ``p_t`` and ``p_{test}`` and each corrected, ``p_t_{correction}``
    and ``p_{test}_{correction}`` (no corrected column with ``correction="none"``; by default
    ``p_t``, ``p_t_holm``, ``p_randomization``, ``p_randomization_holm``; :func:`~.settings.p_value_columns`),
    ``effect_size``, ``wins``/``ties``/``losses`` (queries, against the best),
    ``tied_with_best`` and ``queries_lost``. ``per_query``: the objective's scores that the tests
    pair, configurations x queries (the compared queries where it is defined for every run); each
    metric's mean is over the compared queries (``queries_compared`` of them) where that metric is defined. ``metrics``: the metric
    columns, objective included, by the names asked for; ``metric_of``: the Evaluator's metric of each
    (``canonical``: its registry name). ``notes``: what the reader should know (no test with fewer than two configurations,
    queries left out, metrics undefined on some queries). ``alpha``: the level of the tests
    (``tied_with_best`` is the column ``p_column`` above it). ``test`` and ``correction``: the
    chosen test and correction (:data:`~.settings.TESTS`, :data:`~.settings.CORRECTIONS`).

    ``pairwise`` (None unless ``all_pairs=True`` was asked): one row per pair of configurations
    a < b in rank order, ``a``, ``b``, ``mean_a``, ``mean_b``, ``difference`` (= mean_a - mean_b),
    the same p-value columns as ``table`` (corrected over all the pairs) and ``significant``
    (:func:`~.pairwise.all_pairs`). ``head_to_head`` (None with fewer than two configurations):
    the objective of the best and of the runner-up on each query, ``query_id``,
    ``best``, ``runner_up``, ``difference`` (= best - runner_up) and ``outcome`` (``"win"``,
    ``"tie"`` or ``"loss"`` for the best), sorted by difference descending
    (:func:`~.pairwise.head_to_head`). ``metric_scores``: every metric's scores on the compared
    queries, configurations (in rank order) x queries, NaN where the metric is undefined for a
    run on a query: what the statistics for every metric (:mod:`.significance`) pair.
    """

    table: pd.DataFrame
    per_query: pd.DataFrame
    objective: str
    metrics: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    metric_of: dict[str, Metric] = field(default_factory=dict)
    alpha: float = ALPHA.default
    pairwise: pd.DataFrame | None = None
    head_to_head: pd.DataFrame | None = None
    queries_compared: int | None = None
    metric_scores: dict[str, pd.DataFrame] = field(default_factory=dict)
    test: str = TESTS[0]
    correction: str = CORRECTIONS[0]

    @property
    def p_column(self) -> str:
        """The column that decides ``tied_with_best`` (and the pairs' ``significant``): ``p_randomization_holm`` by default."""
        return decision_column(self.test, self.correction)

    @property
    def p_columns(self) -> tuple[str, ...]:
        """The corrected p-value columns a glance shows: the t-test's, then the chosen test's (once, where that is the t-test)."""
        return tuple(dict.fromkeys((decision_column("t", self.correction), self.p_column)))

    @property
    def correction_words(self) -> str:
        """The correction as the terminal and the report say it: ``Holm-adjusted``, ``unadjusted``."""
        return CORRECTION_METHODS[self.correction].words

    @property
    def p_words(self) -> str:
        """The deciding p-value as the terminal and the report say it: ``Holm-adjusted randomization``."""
        return f"{self.correction_words} {TEST_METHODS[self.test].short}"

    @property
    def canonical(self) -> dict[str, str]:
        """Each metric column's registry name, by its name here."""
        return {name: str(metric) for name, metric in self.metric_of.items()}

    @property
    def objective_metric(self) -> Metric:
        """The metric that ranks the configurations (:attr:`objective` is its column)."""
        return self.metric_of[self.objective]

    @property
    def higher_is_better(self) -> bool:
        """Whether a higher mean of the objective is better (and ranks first)."""
        return self.metric_higher_is_better(self.objective)

    def metric_higher_is_better(self, metric: str) -> bool:
        """Whether a higher mean of ``metric`` (one of :attr:`metrics`, by its name here) is better."""
        return REGISTRY.definition(self.metric_of[metric]).higher_is_better

    def queries_text(self, said: str) -> str:
        """The queries the means are over, as the terminal and the report say it: ``25 queries {said}``, or
        ``25 queries {said} (the tests pair the 23 where ndcg@10 is defined for every configuration)``."""
        paired = self.per_query.shape[1]
        compared = paired if self.queries_compared is None else self.queries_compared
        text = f"{views.counted(compared, 'query', 'queries')} {said}"
        if compared == paired:
            return text
        return f"{text} (the tests pair the {views.count_text(paired)} where {self.objective} is defined for every configuration)"

    def __repr__(self) -> str:
        return views.leaderboard_repr(self)

    def _repr_html_(self) -> str:
        return views.leaderboard_html(self)


def leaderboard(
    qrels: Any,
    runs: Mapping[str, Any],
    metrics: Any = None,
    *,
    objective: str | None = None,
    options: EvaluationOptions | None = None,
    query_policy: str = "intersection",
    alpha: float = ALPHA.default,
    resamples: int = RESAMPLES.default,
    rounds: int = ROUNDS.default,
    seed: int = SEED.default,
    test: str = TESTS[0],
    correction: str = CORRECTIONS[0],
    all_pairs: bool = False,
    progress: Callable[..., None] | None = None,
    tie_costs: Mapping[str, Sequence[float]] | None = None,
) -> Leaderboard:
    """Score every run of ``runs`` (configuration name -> run) against ``qrels`` and rank them.

    ``metrics`` and ``options`` as for :class:`~retrieval_eval.Evaluator`, which scores every
    run against the qrels indexed once; the ``objective`` (default: the first metric) ranks the
    configurations and is tested. ``alpha`` (in (0, 1)), ``resamples`` and ``rounds`` (1 to
    10^6) and ``seed`` (an integer >= 0) follow the rules of :mod:`.settings`; every argument is
    checked before any run is scored, and a bad one is a :class:`~retrieval_eval.ConfigError`
    naming it. ``test`` (one of :data:`~.settings.TESTS`: ``"randomization"``, ``"t"``,
    ``"wilcoxon"``, ``"sign"``) decides ``tied_with_best`` with its p-value corrected by
    ``correction`` (one of :data:`~.settings.CORRECTIONS`: ``"holm"``, ``"bh"``,
    ``"bonferroni"``, ``"none"``); :func:`~.stats.paired_p_values` and
    :func:`~.stats.corrected` say what each assumes and controls. ``all_pairs=True`` also
    compares every pair of configurations (``pairwise``).
    ``progress(done, total, name)`` is called after each run is scored, and a callback that
    takes a keyword ``phase`` through each phase of the statistics too (:mod:`.progress`).
    ``tie_costs`` (configuration name -> its costs, in one order for all; a sweep's cost
    columns) ranks configurations with exactly equal means the cheaper first.
    """
    check_runs(runs)
    check_choice("query_policy", query_policy, QUERY_POLICIES)
    alpha, resamples, rounds, seed = ALPHA.check(alpha), RESAMPLES.check(resamples), ROUNDS.check(rounds), SEED.check(seed)
    check_bootstrap_memory(resamples, len(runs))
    test, correction = check_choice("test", test, TESTS), check_choice("correction", correction, CORRECTIONS)
    if objective is not None and not isinstance(objective, str):
        raise ConfigError(f"objective must be a metric name such as 'ndcg@10', got {objective!r}")
    if options is not None and not isinstance(options, EvaluationOptions):
        raise ConfigError(f"options must be an EvaluationOptions, got {type(options).__name__}")
    check_flag("all_pairs", all_pairs)
    if progress is not None and not callable(progress):
        raise ConfigError(f"progress must be a function progress(done, total, name), got {progress!r}")
    report = Reporter(progress)
    options = EvaluationOptions() if options is None else options
    # The metrics and the objective resolved once, by the Evaluator: its names are the columns.
    evaluator = Evaluator(qrels, metrics, options=options, objective=objective)
    goal, goal_metric = evaluator.objective
    metric_list = [name for name, _ in evaluator.names]
    names = sorted(runs)
    per_query = {}
    for done, name in enumerate(names, start=1):
        per_query[name] = _scored(evaluator, runs[name], name)
        report("runs", done, len(names), name)
    wide, present = _wide_tables(per_query, metric_list, report)
    compared, lost = _compared(present, query_policy)
    if len(compared) == 0:
        raise InputError(
            f"the runs have no query with a {goal} score in common; query_policy='zero' scores a missing query 0"
        )
    aligned = {metric: _aligned(wide[metric], present, compared, zero=query_policy == "zero") for metric in metric_list}
    # The tests pair the objective query by query: only where it is defined for every run.
    scores = aligned[goal].loc[:, aligned[goal].notna().all(axis=0)]
    if scores.shape[1] == 0:
        raise InputError(f"the runs have no query with a {goal} score in common: on each query compared, {goal} is "
                         "undefined for some run")
    means = pd.DataFrame({metric: _means(aligned[metric]) for metric in metric_list})
    higher = REGISTRY.definition(goal_metric).higher_is_better
    order = _ranked(names, means[goal], higher, tie_costs)
    table = means.loc[order]
    table.insert(0, "rank", np.arange(1, len(order) + 1))
    # C order, as the statistics have always been given it: numpy sums a row of a Fortran-ordered array
    # in another order, which moves p_t and the effect size by an ulp.
    matrix = np.ascontiguousarray(scores.loc[order].to_numpy(np.float64))
    label = f"bootstrap intervals: {counted(resamples, 'resample')} x {counted(len(order), 'configuration')}"
    low, high = bootstrap_ci(matrix, resamples=resamples, seed=seed, progress=report.draws("bootstrap", label))
    table["ci_low"], table["ci_high"] = low, high
    notes = [
        f"{name} has no score for {count} queries the other runs have; they are left out of the comparison"
        for name, count in lost.items()
        if count
    ] + _undefined_notes(aligned, order, goal, scores.shape[1]) + _identical_runs(matrix, order, goal, tie_costs is not None)
    against = _against_best(matrix, higher, alpha, (test, correction), rounds, seed, notes, report)
    table = table.join(against.set_index(table.index))
    table["queries_lost"] = [lost[name] for name in order]
    table.index.name = "configuration"
    pairwise = None
    if all_pairs:
        means_in_order = table[goal].to_numpy(np.float64)
        pairwise = compare_all_pairs(matrix, order, means_in_order, alpha=alpha, rounds=rounds, seed=seed, test=test,
                                     correction=correction, report=report)  # fmt: skip
    per_query_scores = scores.loc[order]
    return Leaderboard(
        table, per_query_scores, goal, metric_list, notes, dict(evaluator.names), alpha,
        pairwise=pairwise, head_to_head=head_to_head(per_query_scores, higher_is_better=higher), queries_compared=len(compared),
        metric_scores={metric: aligned[metric].loc[order] for metric in metric_list}, test=test, correction=correction,
    )  # fmt: skip


def _ranked(names: list[str], means: pd.Series, higher: bool, tie_costs: Mapping[str, Sequence[float]] | None) -> list[str]:
    """The configurations best first: by mean, then (exact ties) by costs, by natural name order, by name."""

    def key(name: str) -> tuple:
        mean = means.at[name]
        costs = tuple(tie_costs[name]) if tie_costs is not None else ()
        return (-mean if higher else mean, costs, natural_key(name), name)

    return sorted(names, key=key)


def _identical_runs(matrix: np.ndarray, order: list[str], goal: str, by_cost: bool) -> list[str]:
    """A note for each run of consecutive ranks whose scores on ``goal`` are the same on every query."""
    if len(order) < 2:
        return []
    same = np.all(matrix[1:] == matrix[:-1], axis=1)
    starts = np.flatnonzero(same & ~np.concatenate(([False], same[:-1])))
    ends = np.flatnonzero(same & ~np.concatenate((same[1:], [False]))) + 1
    rule = "by cost, then by name" if by_cost else "by name"
    return [
        f"ranks {start + 1}-{end + 1} ({', '.join(order[start : end + 1])}) are identical on every query compared on {goal}: "
        f"ordered {rule}"
        for start, end in zip(starts, ends)
    ]


def _scored(evaluator: Evaluator, run: Any, name: str) -> pd.DataFrame:
    """The per-query table of one run; an input error about a run held in memory (no file to name) names its configuration."""
    try:
        return evaluator.evaluate(run).per_query
    except InputError as error:
        if isinstance(run, (str, os.PathLike)):
            raise
        source = f"configuration {name!r}" + (f" ({error.source})" if error.source else "")
        raise InputError(error.detail, source=source, row=error.row, field=error.field) from error


def check_runs(runs: Any) -> None:
    """Refuse ``runs`` that are not a non-empty mapping of configuration names (text) to runs."""
    if not isinstance(runs, Mapping):
        raise ConfigError(
            f"runs must be a mapping of configuration name -> run (a file or a table), got a {type(runs).__name__}; "
            "name each run, e.g. runs_from_files(paths)[0] or dict(zip(names, paths))"
        )
    if not runs:
        raise ConfigError("give at least one run to rank")
    for name in runs:
        if not isinstance(name, str):
            raise ConfigError(f"configuration names must be text, got {name!r}")


def _wide_tables(
    per_query: Mapping[str, pd.DataFrame], metrics: list[str], report: Reporter
) -> tuple[dict[str, pd.DataFrame], pd.DataFrame]:
    """Each metric's configurations x queries (queries in id order), NaN where a run has no score for a
    query, and which run was scored on which query (configurations x queries, booleans).

    A run scored on a query may still have NaN there: the metric is undefined on it (as in an
    evaluation's per-query table), which is not the query missing from the run. The queries are
    put in order once, and each run's scores are looked up by query id once per metric (an index
    lookup, no union of indexes per metric).
    """
    indexed = {name: frame.set_index("query_id") for name, frame in per_query.items()}
    every = pd.Index([]).append([frame.index for frame in indexed.values()]).unique()
    queries = pd.Index(sorted(every, key=lambda query: (str(type(query)), query)), name="query_id")
    positions = {name: queries.get_indexer(frame.index) for name, frame in indexed.items()}
    present = np.zeros((len(indexed), len(queries)), dtype=bool)
    for row, name in enumerate(indexed):
        present[row, positions[name]] = True
    label = f"aligning per-query scores: {counted(len(metrics), 'metric')} x {counted(len(indexed), 'configuration')}"
    wide = {}
    for done, metric in enumerate(metrics, start=1):
        values = np.full((len(indexed), len(queries)), np.nan)
        for row, (name, frame) in enumerate(indexed.items()):
            values[row, positions[name]] = frame[metric].to_numpy(np.float64)
        wide[metric] = pd.DataFrame(values, index=list(indexed), columns=queries)
        report("alignment", done, len(metrics), label)
    return wide, pd.DataFrame(present, index=list(indexed), columns=queries)


def _compared(present: pd.DataFrame, policy: str) -> tuple[pd.Index, dict[str, int]]:
    """The queries compared (every run's under ``"intersection"``, any run's under ``"zero"``) and, for each
    run, how many queries some other run was scored on it lacks (left out; 0 under ``"zero"``)."""
    if policy == "zero":
        return present.columns, {name: 0 for name in present.index}
    lacking = (~present).sum(axis=1)
    return present.columns[present.all(axis=0).to_numpy()], {name: int(lacking[name]) for name in present.index}


def _aligned(wide: pd.DataFrame, present: pd.DataFrame, compared: pd.Index, *, zero: bool) -> pd.DataFrame:
    """One metric's scores on the compared queries; ``zero``: 0 where a run was not scored on a query.

    NaN stays where the metric is undefined on a query a run was scored on: it is left out of that
    run's mean of that metric only, as an evaluation's summary leaves it out.
    """
    scores = wide.loc[:, compared]
    return scores.mask(~present.loc[:, compared], 0.0) if zero else scores


def _means(wide: pd.DataFrame) -> pd.Series:
    """Each configuration's mean over its queries with a score (NaN: none), exactly rounded (:func:`math.fsum`).

    As an evaluation's summary takes its means (over the queries where the metric is defined),
    so that a leaderboard's mean is the summary's wherever their queries are the same, and does
    not depend on the order of the queries.
    """
    values = wide.to_numpy(np.float64)
    defined = ~np.isnan(values)
    means = [math.fsum(row[mask]) / int(mask.sum()) if mask.any() else math.nan for row, mask in zip(values, defined)]
    return pd.Series(means, index=wide.index, dtype=np.float64)


def _undefined_notes(aligned: Mapping[str, pd.DataFrame], order: list[str], goal: str, tested: int) -> list[str]:
    """A note for each metric undefined (NaN) on some compared query of some run, naming those runs and counts."""
    notes = []
    for metric, scores in aligned.items():
        undefined = scores.isna().sum(axis=1)
        concerned = [f"{undefined[name]} for {name}" for name in order if undefined[name]]
        if not concerned:
            continue
        note = (
            f"{metric} is undefined on some of the {counted(scores.shape[1], 'query', 'queries')} compared "
            f"({', '.join(concerned)}): each mean of {metric} is over the queries where it is defined, as evaluate's"
        )
        if metric == goal:
            note += f"; the tests and intervals pair the {counted(tested, 'query', 'queries')} where it is defined for every run"
        notes.append(note)
    return notes


def _against_best(
    matrix: np.ndarray, higher: bool, alpha: float, chosen: tuple[str, str], rounds: int, seed: int, notes: list[str],
    report: Reporter,
) -> pd.DataFrame:
    """Each configuration (row of ``matrix`` after the first) against the best (the first row): the p-values
    of the t-test and of the ``chosen`` (test, correction), the effect size, the wins, ties and losses."""
    n = matrix.shape[0]
    test, correction = chosen
    columns = [*p_value_columns(test, correction), "effect_size", "wins", "ties", "losses"]
    result = pd.DataFrame(np.nan, index=range(n), columns=columns)
    result[["wins", "ties", "losses"]] = 0
    result["tied_with_best"] = True
    if n < 2:
        notes.append("one configuration: nothing to compare, no test was run")
        return result
    if matrix.shape[1] < 2:
        notes.append("fewer than two queries in common: no test was run")
        return result
    best, others = matrix[0], matrix[1:]
    _, p_t = paired_t_test(others, best)
    raw = {"t": p_t}
    if test != "t":
        label = f"randomization tests: {counted(rounds, 'round')} x {n - 1} against the best"
        progress = report.draws("randomization", label) if test == "randomization" else None
        raw[test] = paired_p_values(test, others - best, rounds=rounds, seed=seed, progress=progress)
    for name, p in raw.items():
        result.loc[1:, f"p_{name}"] = p
        result.loc[1:, decision_column(name, correction)] = corrected(correction, p)  # the same column uncorrected
    sign = 1.0 if higher else -1.0
    difference = sign * (others - best)
    result.loc[1:, "effect_size"] = sign * paired_effect_size(others, best)
    result.loc[1:, "wins"] = (difference > 0).sum(axis=1)
    result.loc[1:, "ties"] = (difference == 0).sum(axis=1)
    result.loc[1:, "losses"] = (difference < 0).sum(axis=1)
    result.loc[1:, "tied_with_best"] = result.loc[1:, decision_column(test, correction)] > alpha
    return result
