"""The ``Evaluator``: qrels indexed once, metrics and options resolved once, any number of runs scored.

Every way of evaluating goes through it: :func:`~retrieval_eval.evaluate` (one run), sweeps
(dozens of runs), cutoff curves, streaming and Dask (pieces of one run), the command line and
the Azure batch path. None of them re-derives metrics or conventions.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..progress import phase
from ..views import counted
from . import tie_average
from .families import FAMILIES
from .family import Family
from .joins import TIED_RUN, JoinKind
from .names import Metric
from .options import Conventions, EvaluationOptions
from .registry import REGISTRY
from .result import EvaluationResult, Threshold, per_query_table, summarize
from .selection import Thresholds, conventions_for, resolve_metrics_and_thresholds

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from ..data import JoinSource, Qrels
    from ..data.join import QueryAlignment


class NoSharedQueriesWarning(UserWarning):
    """A run was scored that retrieved for none of the judged queries: its scores measure nothing."""


def no_shared_queries(run_source: str, qrels_source: str) -> str:
    """What the warning (and the command line's error) says."""
    return (
        f"no judged query of the qrels ({qrels_source}) has a document in the run ({run_source}), so the scores "
        "measure nothing (are the query ids of another collection, or of another kind?)"
    )


@dataclass(frozen=True, eq=False)
class EvaluationPlan:
    """What an evaluation computes and by which rules, resolved once; it holds no data.

    ``options`` are settled (no policy left at None but ``ties``, which each family then takes
    from its reference), so each piece of a run scored apart (a chunk of a stream, a partition
    on a cluster) follows the same rules. ``names``: each name asked for with its metric, in
    order; ``metrics``: the distinct metrics, computed once each. ``groups``: per family and tie
    order, its metrics. ``objective``: the metric that ranks runs (a leaderboard's) under its name,
    one of ``names`` (by default the first). ``families``: family values that score their groups
    in place of the registered family of the same name (:meth:`of_family`); none for a plan of
    the registry's metrics.
    """

    names: tuple[tuple[str, Metric], ...]
    metrics: tuple[Metric, ...]
    thresholds: tuple[Threshold, ...]
    options: EvaluationOptions
    groups: tuple[tuple[str, str, tuple[Metric, ...]], ...]
    integer_metrics: frozenset[Metric]
    geometric_metrics: frozenset[Metric]
    objective: tuple[str, Metric]
    families: tuple[Family, ...] = ()

    @classmethod
    def resolve(
        cls,
        metrics: Iterable[str | Metric] | str | None = None,
        thresholds: Thresholds | None = None,
        options: EvaluationOptions | None = None,
        objective: str | None = None,
    ) -> "EvaluationPlan":
        """Parse the metrics, the objective and the thresholds and settle the options (see :class:`EvaluationOptions`).

        An ``objective`` not among the metrics is computed too (see
        :func:`~.selection.resolve_metrics_and_thresholds`).
        """
        options = _checked(options)
        named, threshold_list, goal = resolve_metrics_and_thresholds(
            metrics, thresholds, options.k, options.rel_level, objective
        )
        metric_list = list(dict.fromkeys(metric for _, metric in named))
        families = {metric: REGISTRY.family(metric) for metric in metric_list}
        return cls._grouped(named, metric_list, threshold_list, options, goal, families, conventions_for(metric_list))

    @classmethod
    def of_family(
        cls, family: Family, metrics: Sequence[Metric], options: EvaluationOptions | None = None
    ) -> "EvaluationPlan":
        """A plan of some of ``family``'s metrics, scored by that family value and not looked up in the registry.

        For a variant of a registered family that is no public metric family (the Azure drop-in's:
        the document-retrieval definitions with the SDK's gains and a private branch column), so
        that it scores through :meth:`score` like any plan. Each metric goes by its canonical name,
        the first is the objective, and there are no thresholds; the options settle on the
        family's conventions.
        """
        options = _checked(options)
        metric_list = list(dict.fromkeys(metrics))
        for metric in metric_list:
            try:
                family.definition(metric)
            except KeyError:
                raise ConfigError(f"{metric} is not a metric of the family {family.name!r}") from None
        named = [(str(metric), metric) for metric in metric_list]
        families = dict.fromkeys(metric_list, family)
        return cls._grouped(named, metric_list, [], options, named[0], families, family.conventions, (family,))

    @classmethod
    def _grouped(
        cls,
        named: list[tuple[str, Metric]],
        metric_list: list[Metric],
        threshold_list: list[Threshold],
        options: EvaluationOptions,
        goal: tuple[str, Metric],
        families: Mapping[Metric, Family],
        conventions: Conventions,
        explicit: tuple[Family, ...] = (),
    ) -> "EvaluationPlan":
        """The plan of resolved metrics, each computed by the family ``families`` maps it to."""
        by_family: dict[tuple[str, str], list[Metric]] = {}
        for metric in metric_list:
            family = families[metric]
            by_family.setdefault((family.name, options.ties or family.ties), []).append(metric)
        if options.ties is not None and tie_average.is_average(options.ties):
            tie_average.check_supported(metric_list, lambda metric: families[metric].name, options)
        definitions = {metric: families[metric].definition(metric) for metric in metric_list}
        return cls(
            tuple(named),
            tuple(metric_list),
            tuple(threshold_list),
            options.settled(conventions),
            tuple((family, ties, tuple(group)) for (family, ties), group in by_family.items()),
            frozenset(m for m, d in definitions.items() if d.integer),
            frozenset(m for m, d in definitions.items() if d.geometric),
            goal,
            explicit,
        )

    @property
    def query_set(self) -> str:
        return self.options.query_set

    def score(self, qrels: Qrels, run: JoinSource, alignment: QueryAlignment) -> dict[Metric, np.ndarray]:
        """Each metric's value for each query of ``alignment``, in ``self.metrics`` order.

        Each family reads the join it names (:attr:`~.family.Family.join`; under ``ties="average"`` the
        tie-grouped :data:`~.joins.TIED_RUN`), which ``run`` supplies
        (:meth:`~retrieval_eval.data.JoinSource.join`: a Run computes it); the families that read
        the same kind under the same tie order share one join, asked for when one first needs it.
        """
        families = {**FAMILIES, **{family.name: family for family in self.families}}
        duplicates = self.options.run_duplicates
        joins: dict[tuple[JoinKind, str], Any] = {}
        columns: dict[Metric, np.ndarray] = {}
        # A measure that cannot read the judgments' layout or labels is refused before any join is built.
        for name, _, metrics in self.groups:
            families[name].check_judgments(qrels, metrics)
            families[name].check_labels(qrels, metrics)
        for name, ties, metrics in self.groups:
            family = families[name]
            averaged = tie_average.is_average(ties)
            key = (TIED_RUN if averaged else family.join, ties)
            if key not in joins:
                joins[key] = run.join(key[0], qrels, duplicates, ties)
            if averaged:
                columns.update(tie_average.compute(family, qrels, joins[key], alignment, metrics, self.options))
            else:
                columns.update(family.compute(qrels, joins[key], alignment, metrics, self.options))
        return {metric: columns[metric] for metric in self.metrics}


class Evaluator:
    """Score runs against one set of judgments: the qrels indexed once, the metrics resolved once.

    Parameters
    ----------
    qrels
        A :class:`~retrieval_eval.Qrels` (under the duplicate policy the options settle on, unless
        it was read with one), or anything :func:`~retrieval_eval.io.read_qrels_table` reads (a
        path, a pandas or polars frame, a pyarrow Table, rows, pytrec_eval's nested dict, a ranx
        Qrels, ir_datasets/ir_measures named tuples, an ir_datasets dataset), read under it.
    metrics
        Metric names (``"ndcg@10"``, ``"P_5"``, ``"nDCG@10 P@5"``, ``"ndcg_exp@10"``, ``"fidelity"``,
        ...; the names of trec_eval, ir_measures and ranx), ir_measures measure objects or
        :class:`~retrieval_eval.Metric` values, each result column under the name asked for
        (:attr:`EvaluationResult.canonical_names` maps them); a name that needs a cutoff and has none takes
        ``options.k``. Default: Azure's document-retrieval metrics at k plus ``holes@k``.
    thresholds
        ``{metric: value}`` (or ``(metric, value)`` pairs): per-query ``<metric>_passed`` columns
        and a verdict; a metric passes when its mean is >= value (<= for lower-is-better metrics
        such as holes). Thresholded metrics are computed even when not listed in ``metrics``. A
        metric given two thresholds (``P@5`` and ``precision@5``) is a :class:`ConfigError`.
    options
        An :class:`~retrieval_eval.EvaluationOptions` (default: every option at its default).
    qrels_columns
        Which columns of ``qrels`` are query_id, doc_id and relevance, when the defaults do not find them.
    objective
        The metric that ranks runs (a leaderboard's; :attr:`objective`): by default the first of
        ``metrics``; one of them under any of its names goes by its name there, another joins the
        metrics last under its own name.

    Examples
    --------
    >>> evaluator = Evaluator("data/qrels.trec", ["ndcg@10", "map"])  # doctest: +SKIP
    >>> results = {path: evaluator.evaluate(path) for path in ("bm25.trec", "dense.trec")}  # doctest: +SKIP
    """

    def __init__(
        self,
        qrels: Any,
        metrics: Iterable[str | Metric] | str | None = None,
        *,
        thresholds: Thresholds | None = None,
        options: EvaluationOptions | None = None,
        qrels_columns: Mapping[str, str] | None = None,
        objective: str | None = None,
    ) -> None:
        from ..data import Qrels
        self.plan = EvaluationPlan.resolve(metrics, thresholds, options, objective)
        settled = self.plan.options
        self.qrels = Qrels.read(qrels, columns=qrels_columns, duplicates=settled.qrels_duplicates, judgments=settled.judgments)
        # Built qrels follow the same duplicate rule as qrels read here.
        self.qrels = self.qrels.for_policy(settled.qrels_duplicates, explicit=options is not None and options.qrels_duplicates is not None)
        self._sources = _paths(qrels)

    @classmethod
    def from_plan(cls, plan: EvaluationPlan, qrels: Qrels) -> "Evaluator":
        """An evaluator of a resolved plan over built qrels (a worker's share of the judgments, say)."""
        evaluator = cls.__new__(cls)
        evaluator.plan, evaluator.qrels, evaluator._sources = plan, qrels, ()
        return evaluator

    @property
    def metrics(self) -> tuple[Metric, ...]:
        return self.plan.metrics

    @property
    def thresholds(self) -> tuple[Threshold, ...]:
        return self.plan.thresholds

    @property
    def options(self) -> EvaluationOptions:
        """The settled options: the query set and duplicate policies are never None here."""
        return self.plan.options

    @property
    def names(self) -> tuple[tuple[str, Metric], ...]:
        """Each metric's name as asked, with the metric."""
        return self.plan.names

    @property
    def objective(self) -> tuple[str, Metric]:
        """The metric that ranks runs, under its name (one of :attr:`names`)."""
        return self.plan.objective

    def __repr__(self) -> str:
        return f"Evaluator({self.qrels!r}, metrics=[{', '.join(name for name, _ in self.names)}])"

    def evaluate(
        self, run: Any, *, name: str | None = None, run_columns: Mapping[str, str] | None = None
    ) -> EvaluationResult:
        """Score one run: a per-query table and a summary.

        ``run``: a :class:`~retrieval_eval.Run`, or a path, DataFrame, Table or rows (as for the
        qrels), or any other :class:`~retrieval_eval.data.JoinSource` (scored as the run it stands
        for, under its own name: a fusion sweep's configuration);
        ``name`` labels it in the result (default: its source). A run that shares no
        query with the qrels is scored (NaN means, or zeros for judged queries counted as
        retrieving nothing) with a :class:`NoSharedQueriesWarning`; the command line refuses it.
        """
        from ..data import JoinSource, Run
        from ..data.join import align_queries

        given = run
        if not isinstance(run, JoinSource):
            run = Run.read(run, columns=run_columns, name=name)
        alignment = align_queries(self.qrels, run, self.plan.query_set)
        if alignment.n_both == 0:
            warnings.warn(NoSharedQueriesWarning(no_shared_queries(run.source, self.qrels.source)), stacklevel=2)
        plan = self.plan
        with phase(f"scoring {run.name} ({alignment.n_both:,} queries x {counted(len(plan.names), 'metric')})"):
            columns = plan.score(self.qrels, run, alignment)
        by_name = dict(plan.names)
        rows, verdict = summarize(lambda name: columns[by_name[name]], list(plan.names), list(plan.thresholds), plan.geometric_metrics)
        counts = {
            "evaluated": len(alignment.query_ids),
            "judged_only": alignment.n_judged_only,
            "retrieved_only": alignment.n_retrieved_only,
            "both": alignment.n_both,
        }
        sources = (*self._sources, *_paths(given))
        return EvaluationResult(
            run.name, rows, counts, verdict, alignment.query_ids, columns, plan.integer_metrics, plan.thresholds,
            plan.names, sources=sources,
        )

    def score(self, run: JoinSource, alignment: QueryAlignment) -> dict[Metric, np.ndarray]:
        """Each metric's values for the queries of ``alignment`` (a piece of a run, say)."""
        return self.plan.score(self.qrels, run, alignment)

    def per_query_table(self, alignment: QueryAlignment, columns: Mapping[Metric, np.ndarray]) -> pd.DataFrame:
        """The per-query table of scored ``columns``, as :attr:`EvaluationResult.per_query` lays it out."""
        table = per_query_table(alignment.query_ids, dict(columns), self.plan.integer_metrics, list(self.thresholds), self.plan.names)
        return table.to_pandas()


def _checked(options: EvaluationOptions | None) -> EvaluationOptions:
    """``options``, default when None; anything but an :class:`EvaluationOptions` is a :class:`ConfigError`."""
    options = EvaluationOptions() if options is None else options
    if not isinstance(options, EvaluationOptions):
        raise ConfigError(f"options must be an EvaluationOptions, got {type(options).__name__}")
    return options


def _paths(source: Any) -> tuple[str, ...]:
    """``source`` as a one-path tuple when it is a path (its results are never written over it), else empty."""
    return (os.fspath(source),) if isinstance(source, (str, os.PathLike)) else ()
