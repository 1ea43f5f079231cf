"""What a judge's labels do to conclusions: the ranking of systems, and which differences are significant.

Every run is scored twice, once against the human qrels and once against the judge's labels, by one
:class:`~retrieval_eval.Evaluator` per qrels (built once, each scoring every run). Both score the
same queries: those both qrels judge (the judgments of other queries are left out), every one of
them for every run (``query_set="qrels"``: a query a run lacks counts as retrieving nothing, as
trec_eval's ``-c``), so the two per-query tables line up and every pair of runs is paired on the
same queries.

The two evaluations are compared as any two evaluations of the same runs are, by
:mod:`retrieval_eval.sweep.rank_correlation` (its docstring has the definitions), the human
qrels first (the reference) and the judge's second: a system ranking orders the runs by their
mean metric, best first (descending for a metric where higher is better, ascending otherwise,
equal means by run name); Kendall's tau-b of the means, tau_AP of the judge's ranking against
the human one (and the reverse), RBO_ext, the swapped pairs, and for every pair of runs (a ranked
above b by the human qrels) the Holm-adjusted paired t-test under each qrels and whether its
verdict flips.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from ..data import Qrels, Run
from ..data.run import distinct_files
from ..errors import ConfigError, InputError
from ..io.pandas_objects import is_dataframe
from ..metrics.evaluator import Evaluator
from ..metrics.options import EvaluationOptions
from ..metrics.registry import REGISTRY

# sweep.settings and sweep.rank_correlation are leaves (numpy, pandas, scipy, the metrics' registry,
# errors) that import nothing of sweep's runs or leaderboards, and sweep imports nothing of judging:
# no import circle.
from ..sweep.rank_correlation import (
    A_BETTER,
    B_BETTER,
    NOT_SIGNIFICANT,
    correlation_of_means,
    kendall_tau_b,
    persistence,
    ranks,
    rbo_ext,
    tau_ap,
    verdicts,
)  # fmt: skip
from ..sweep.settings import ALPHA
from ..views import counted, decimal, values_table
from .pairs import common_queries, read_judgments, restricted

if TYPE_CHECKING:
    import pandas as pd

# The definitions this module has always offered, now kept in sweep.rank_correlation.
__all__ = [
    "A_BETTER", "B_BETTER", "NOT_SIGNIFICANT", "PAIR_COLUMNS", "RANKING_COLUMNS", "RankingAgreement",
    "kendall_tau_b", "ranking_agreement", "rbo_ext", "tau_ap",
]  # fmt: skip
_SIDES = ("human", "judge")

#: The columns of :attr:`RankingAgreement.rankings`.
RANKING_COLUMNS = ("run", "mean_human", "mean_judge", "rank_human", "rank_judge")
#: The columns of :attr:`RankingAgreement.pairs`.
PAIR_COLUMNS = (
    "a", "b", "difference_human", "p_human", "p_human_holm", "verdict_human",
    "difference_judge", "p_judge", "p_judge_holm", "verdict_judge", "swapped", "flipped",
)  # fmt: skip


@dataclass(frozen=True)
class RankingAgreement:
    """The two system rankings of the same runs and how far they agree (definitions in the module's docstring).

    Attributes
    ----------
    metric
        The metric the runs are ranked by, as asked for.
    human_source, judge_source
        The two qrels.
    n_queries
        The queries both judge: every run is scored on each of them, under both qrels.
    higher_is_better
        Whether the best run has the highest mean (else the lowest).
    alpha, rbo_p
        The significance level (Holm-adjusted p <= alpha) and RBO's persistence p.
    rankings
        One row per run, by the human ranking: ``run``, ``mean_human``, ``mean_judge``,
        ``rank_human``, ``rank_judge`` (1 = best).
    kendall_tau
        Kendall's tau-b of the means.
    tau_ap, tau_ap_reverse
        tau_AP of the judge's ranking against the human reference, and of the human ranking against the judge's.
    rbo
        RBO_ext of the two rankings at ``rbo_p``.
    pairs
        One row per pair of runs, ``a`` ranked above ``b`` by the human qrels (pairs by a, then b, in
        that order): ``difference_*`` (mean a - mean b), ``p_*`` and ``p_*_holm`` (the paired
        t-test's p-value, raw and Holm-adjusted over all pairs), ``verdict_*`` (``"a better"``,
        ``"b better"`` or ``"not significant"``) under each qrels, ``swapped`` and ``flipped``.
    """

    metric: str
    human_source: str
    judge_source: str
    n_queries: int
    higher_is_better: bool
    alpha: float
    rbo_p: float
    rankings: pd.DataFrame
    kendall_tau: float
    tau_ap: float
    tau_ap_reverse: float
    rbo: float
    pairs: pd.DataFrame

    @property
    def tau_ap_symmetric(self) -> float:
        """The mean of :attr:`tau_ap` and :attr:`tau_ap_reverse`."""
        return (self.tau_ap + self.tau_ap_reverse) / 2

    @property
    def swapped(self) -> pd.DataFrame:
        """The pairs the two qrels order oppositely: ``a``, ``b``, ``difference_human``, ``difference_judge``."""
        rows = self.pairs[self.pairs["swapped"]]
        return rows[["a", "b", "difference_human", "difference_judge"]].reset_index(drop=True)

    @property
    def flips(self) -> pd.DataFrame:
        """The pairs whose verdict differs: ``a``, ``b``, the adjusted p-values and verdicts under each qrels."""
        rows = self.pairs[self.pairs["flipped"]]
        return rows[["a", "b", "p_human_holm", "verdict_human", "p_judge_holm", "verdict_judge"]].reset_index(drop=True)

    def to_dict(self) -> dict[str, Any]:
        """Every value as plain JSON values (NaN as None)."""
        return {
            "metric": self.metric,
            "human": self.human_source,
            "judge": self.judge_source,
            "queries": self.n_queries,
            "higher_is_better": self.higher_is_better,
            "alpha": self.alpha,
            "rbo_p": self.rbo_p,
            "kendall_tau": _plain(self.kendall_tau),
            "tau_ap": _plain(self.tau_ap),
            "tau_ap_reverse": _plain(self.tau_ap_reverse),
            "tau_ap_symmetric": _plain(self.tau_ap_symmetric),
            "rbo": _plain(self.rbo),
            "rankings": _records(self.rankings),
            "swapped": _records(self.swapped),
            "flips": _records(self.flips),
            "pairs": _records(self.pairs),
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON text."""
        return json.dumps(self.to_dict(), indent=2)

    def __str__(self) -> str:
        frame = self.rankings
        lines = [
            f"ranking agreement on {self.metric} over {counted(self.n_queries, 'query', 'queries')} judged by both "
            f"({counted(len(frame), 'run')}; human {self.human_source}, judge {self.judge_source})",
            *values_table(list(RANKING_COLUMNS), frame.itertuples(index=False)),
            "",
            f"  Kendall's tau-b {decimal(self.kendall_tau)}; tau_AP {decimal(self.tau_ap)} (judge against human; "
            f"human against judge {decimal(self.tau_ap_reverse)}, mean {decimal(self.tau_ap_symmetric)}); "
            f"RBO_ext {decimal(self.rbo)} (p = {self.rbo_p:g})",
        ]
        swapped = self.swapped
        lines.append(f"swapped pairs: {len(swapped)} of {len(self.pairs)}")
        if len(swapped):
            lines += values_table(list(swapped.columns), swapped.itertuples(index=False))
        flips = self.flips
        lines.append(f"significance flips (paired t-test, Holm over {counted(len(self.pairs), 'pair')}, alpha {self.alpha:g}): "
                     f"{len(flips)}")  # fmt: skip
        if len(flips):
            lines += values_table(list(flips.columns), flips.itertuples(index=False))
        return "\n".join(lines)


def ranking_agreement(
    human: Any,
    judge: Any,
    runs: Iterable[Any] | Mapping[str, Any],
    metric: str = "ndcg@10",
    *,
    alpha: float = ALPHA.default,
    options: EvaluationOptions | None = None,
    rbo_p: float = 0.9,
) -> RankingAgreement:
    """How the ``judge``'s labels change the ranking of ``runs`` (and its significant differences) made with the ``human`` ones.

    Parameters
    ----------
    human, judge
        Qrels: anything :meth:`~retrieval_eval.Qrels.read` reads; integer labels, a pair judged
        twice within one side is an error. Only the queries both judge are scored.
    runs
        Two or more runs (anything :meth:`~retrieval_eval.Run.read` reads), or a mapping
        ``{name: run}``; a run's name is its ``name`` (its source by default), names distinct.
    metric
        One metric name (``"ndcg@10"``, ``"map"``, ``"P@5"``, ...).
    alpha
        Significance level of the Holm-adjusted paired t-tests, in (0, 1).
    options
        :class:`~retrieval_eval.EvaluationOptions` of both evaluations; ``query_set`` is
        ``"qrels"`` (left at None, or given so): both score every query both qrels judge.
    rbo_p
        RBO's persistence, in (0, 1).

    Returns
    -------
    RankingAgreement

    Raises
    ------
    ConfigError
        Fewer than two runs, names repeated, more than one metric, a bad ``alpha``, ``rbo_p`` or query set.
    InputError
        Fewer than two queries judged by both qrels, a per-query value that is NaN, ids of
        different kinds, non-integer labels.
    """
    alpha = ALPHA.check(alpha)
    rbo_p = persistence(rbo_p)
    options = _options(options)
    if not isinstance(metric, str):
        raise ConfigError(f"metric must be one metric name (say 'ndcg@10'), got {metric!r}")
    human_qrels, judge_qrels = read_judgments(human, "human qrels"), read_judgments(judge, "judge labels")
    queries = common_queries(human_qrels, judge_qrels)
    if len(queries) < 2:
        raise InputError(
            f"{counted(len(queries), 'query', 'queries')} judged by both the human qrels ({human_qrels.source}, "
            f"{human_qrels.n_queries}) and the judge labels ({judge_qrels.source}, {judge_qrels.n_queries}): paired "
            "tests need two or more"
        )
    evaluators = [Evaluator(restricted(qrels, queries), [metric], options=options) for qrels in (human_qrels, judge_qrels)]
    if len(evaluators[0].names) != 1:
        raise ConfigError(f"metric must be one metric name, got {metric!r} ({len(evaluators[0].names)} metrics)")
    name = evaluators[0].names[0][0]
    names, scores, means = _scores(_read_runs(runs), evaluators, name)
    higher = REGISTRY.definition(evaluators[0].names[0][1]).higher_is_better
    correlation = correlation_of_means(names, means[0], means[1], higher_is_better=(higher, higher), rbo_p=rbo_p, labels=_SIDES)
    order = np.argsort(ranks(names, means[0], higher_is_better=higher))
    return RankingAgreement(
        metric=name,
        human_source=human_qrels.source,
        judge_source=judge_qrels.source,
        n_queries=len(queries),
        higher_is_better=higher,
        alpha=alpha,
        rbo_p=rbo_p,
        rankings=correlation.rankings,
        kendall_tau=correlation.tau_b,
        tau_ap=correlation.tau_ap,
        tau_ap_reverse=correlation.tau_ap_reverse,
        rbo=correlation.rbo,
        pairs=verdicts(names, order, scores, means, (higher, higher), alpha, labels=_SIDES),
    )


def _scores(runs: list[Run], evaluators: list[Evaluator], metric: str) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """The run names, and per qrels the runs x queries matrix of ``metric`` and the runs' means."""
    names = [run.name for run in runs]
    scores, means = [], []
    for evaluator in evaluators:
        results = [evaluator.evaluate(run) for run in runs]
        matrix = np.stack([result.values(metric) for result in results]).astype(np.float64)
        undefined = np.isnan(matrix)
        if undefined.any():
            run, query = np.argwhere(undefined)[0]
            raise InputError(
                f"{metric} is undefined (NaN) for {int(undefined.sum())} (run, query) pair(s), first run {names[run]!r} "
                f"query {results[run].query_ids[query].as_py()!r}: a paired test needs a value for every query",
                source=evaluator.qrels.source,
            )
        scores.append(matrix)
        means.append(np.array([result.means[metric] for result in results], dtype=np.float64))
    return np.array(names, dtype=object), scores, means


def _read_runs(runs: Iterable[Any] | Mapping[str, Any]) -> list[Run]:
    """The runs, read, each under its name (the mapping's key, or its own), names distinct and at least two."""
    one = isinstance(runs, (str, bytes, Run, Qrels, pa.Table)) or is_dataframe(runs) or not isinstance(runs, Iterable)
    if one:
        raise ConfigError(f"runs must be a list of runs or a mapping {{name: run}}, got one {type(runs).__name__}: give [run, ...]")
    if isinstance(runs, Mapping):
        read = [_named(Run.read(source), str(name)) for name, source in runs.items()]
    else:
        read = [Run.read(source) for source in runs]
    read = list(distinct_files(read))
    names = [run.name for run in read]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConfigError(f"runs must have distinct names, {repeated[0]!r} is given more than once")
    if len(read) < 2:
        raise ConfigError(f"a ranking agreement compares the rankings of two or more runs, got {len(read)}")
    return read


def _named(run: Run, name: str) -> Run:
    return Run(run.table, source=run.source, name=name, queries=run.queries, in_ranx_order=run.in_ranx_order)


def _options(options: EvaluationOptions | None) -> EvaluationOptions:
    if options is None:
        return EvaluationOptions(query_set="qrels")
    if not isinstance(options, EvaluationOptions):
        raise ConfigError(f"options must be an EvaluationOptions, got {type(options).__name__}")
    if options.query_set not in (None, "qrels"):
        raise ConfigError(
            f"query_set is {options.query_set!r}, but a ranking agreement scores every query both qrels judge "
            "(query_set='qrels'): leave it at None"
        )
    return dataclasses.replace(options, query_set="qrels")


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{key: _plain(value) for key, value in row.items()} for row in frame.to_dict("records")]


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds; NaN as None."""
    if isinstance(value, np.generic):
        value = value.item()
    return None if isinstance(value, float) and np.isnan(value) else value
