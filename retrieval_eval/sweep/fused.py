"""Fusion sweeps: every configuration of a fusion grid fused from the same runs and ranked on one leaderboard.

The runs are aligned once (:func:`~retrieval_eval.fusion.align`), normalized once per
normalization the grid uses (:func:`~retrieval_eval.fusion.normalize`), and each configuration
is fused (:func:`~retrieval_eval.fusion.fused_scores`, :func:`~retrieval_eval.fusion.fused_run`)
only when the leaderboard scores it, through the one :class:`~retrieval_eval.Evaluator` of the
sweep: one fused run is held at a time, whatever the size of the grid.

*The same as ranx's optimize_fusion.* ``ranx.optimize_fusion(qrels, runs, norm, method,
metric, step=...)`` fuses and scores the configurations of its grid one by one and keeps the
last of the best (``score >= best_score``, in its trial order). A fusion sweep over the same
grid (:func:`~.grids.ranx_weight_grid` for the weights, :func:`~.grids.ranx_range`
for a parameter) with ``options=EvaluationOptions(ties="ranx")`` and ranx's metric (``"ndcg"``,
``"ndcg@10"``, ``"map"``, ...) fuses the same runs (documents, scores and order, ties included)
and scores each the same per query. Its leaderboard orders configurations by mean, then equal
means by configuration name; so where one configuration is best alone, it is ranx's best, with
ranx's score (the means agree to the last bit or two: ranx takes ``numpy.mean``, a pairwise sum,
and the leaderboard a correctly rounded one). Where several tie for the best, ranx names the one
it tried last and the leaderboard the first by name: both are best. ranx fuses runs whose query
sets are the qrels' (it refuses others); a sweep fuses the union and scores as the options say.

Trained methods estimate what they need from the same ``qrels`` the configurations are scored
against (as ``optimize_fusion`` does): an in-sample score, optimistic for new queries.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from ..constraints import documents_per_query
from ..data import JoinSource, Run
from ..data.ids import QueryGroups
from ..data.join import JudgedRanks, RankedRun, RowLabels, docid_tie_keys
from ..errors import ConfigError
from ..fusion import AlignedRuns, align, fused_run, fused_scores, fusion_method, normalize
from ..fusion.fusing import Fused, fused_rows
from ..io.arrays import arrow_array, read_only
from ..kernels.fusion.fused_ranking import order_by_score_then_key
from ..metrics.joins import JUDGED_RANKS, RANKED_RUN
from ..metrics.options import EvaluationOptions
from .analysis import SweepResult, sweep
from .grids import FusionConfig, FusionGrid, fusion_grid
from .ranking import RankingSettings
from .settings import unknown_settings

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..data import Qrels
    from ..data.join_source import JoinBuilder
    from ..fusion import Normalized


class FusedRuns(Mapping[str, Run]):
    """The fused run of each configuration of a grid, by configuration name, made when asked for.

    Each normalization is computed once, on first use; a fused run is made anew at each
    lookup and not kept (a sweep scores it and drops it). Trained methods read ``qrels``
    (read once, on first use).
    """

    def __init__(self, aligned: AlignedRuns, grid: FusionGrid, *, top_k_out: int | None = None, qrels: Any = None) -> None:
        if top_k_out is not None:
            documents_per_query("top_k_out", top_k_out, optional=True)
        if aligned.run_names != grid.run_names:
            raise ConfigError(f"the fusion grid was built for the runs {list(grid.run_names)}, not {list(aligned.run_names)}")
        trained = sorted({config.method for config in grid if fusion_method(config.method).trained})
        if trained and qrels is None:
            raise ConfigError(f"the trained fusion method {trained[0]!r} needs qrels to estimate from")
        self.aligned = aligned
        self.grid = grid
        self.top_k_out = top_k_out
        self._qrels = qrels
        self._by_name = {config.name: config for config in grid}
        self._normalized: dict[str | None, Normalized] = {}
        self._labels: tuple[Qrels, RowLabels] | None = None
        self._docid_keys: np.ndarray | None = None

    def __getitem__(self, name: str) -> Run:
        return fused_run(self.aligned, self.fused(name), top_k_out=self.top_k_out, name=name)

    def fused(self, name: str) -> Fused:
        """The fused scores of the configuration ``name`` (made anew at each call)."""
        config = self._by_name[name]
        method = fusion_method(config.method)
        qrels = self._training_qrels() if method.trained else None
        return fused_scores(self.aligned, self.normalized(config.norm), method, config.params, qrels=qrels)

    def prejoined(self) -> "PrejoinedFusions":
        """The configurations as runs the :class:`~retrieval_eval.Evaluator` scores without making them (:class:`FusedConfiguration`)."""
        return PrejoinedFusions(self)

    def row_labels(self, qrels: Qrels) -> RowLabels:
        """The aligned rows looked up in ``qrels`` (once per Qrels object; the last one's kept)."""
        if self._labels is None or self._labels[0] is not qrels:
            self._labels = (qrels, RowLabels.of(qrels, self._aligned_run()))
        return self._labels[1]

    def ranked_rows(self, fused: Fused, ties: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The aligned rows in the order the fused run of ``fused`` ranks them under the tie order ``ties``, and the
        offsets of its queries; None where that order is the fused run's re-sorted by ranx's ties.

        The fused run (:func:`~retrieval_eval.fusion.fused_run`) is in ranx's order, by score
        descending: the join keeps it under ``"input"`` and, when the run claims ranx's order
        (``fused.order_determined``), under ``"ranx"``. Under ``"docid"`` its documents are
        re-sorted by score descending, then doc id descending.
        """
        if ties == "ranx" and not fused.order_determined:
            return None
        rows, offsets = fused_rows(self.aligned, fused, top_k_out=self.top_k_out)
        if ties == "docid":
            if self._docid_keys is None:
                self._docid_keys = docid_tie_keys(self._aligned_run())
            rows = order_by_score_then_key(offsets, read_only(rows), fused.scores, self._docid_keys)
        return read_only(rows), offsets

    def _aligned_run(self) -> Run:
        """The aligned rows as a run, in their order (its scores are no fused run's: zero)."""
        aligned = self.aligned
        queries = np.repeat(np.arange(aligned.n_queries, dtype=np.int64), aligned.rows_per_query)
        table = pa.table(
            {
                "query_id": aligned.query_ids.take(arrow_array(queries)),
                "doc_id": aligned.doc_ids,
                "score": arrow_array(np.zeros(aligned.n_rows, dtype=np.float64)),
            }
        )
        groups = QueryGroups(aligned.query_ids, read_only(np.arange(aligned.n_rows, dtype=np.int64)), aligned.offsets)
        return Run(table, source=f"<aligned runs {list(aligned.run_names)}>", queries=groups)

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def configuration(self, name: str) -> FusionConfig:
        """The configuration of a name (its method, normalization and parameters)."""
        return self._by_name[name]

    def normalized(self, norm: str | None) -> Normalized:
        """The aligned runs under ``norm`` (computed once)."""
        if norm not in self._normalized:
            self._normalized[norm] = normalize(self.aligned, norm)
        return self._normalized[norm]

    def _training_qrels(self) -> Any:
        from ..data import Qrels

        if not isinstance(self._qrels, Qrels):
            self._qrels = Qrels.read(self._qrels)
        return self._qrels

    def __repr__(self) -> str:
        return f"FusedRuns({len(self)} configurations of {list(self.aligned.run_names)})"


class FusedConfiguration(JoinSource):
    """One configuration of :class:`FusedRuns`, scored by the :class:`~retrieval_eval.Evaluator` as its fused run, without making it.

    Every configuration ranks the same aligned rows, so the joins of the kinds
    :data:`~retrieval_eval.metrics.joins.RANKED_RUN` and :data:`~retrieval_eval.metrics.joins.JUDGED_RANKS`
    (the trec_eval, document-retrieval, gdeval, C/W/L and accuracy families) are gathered from the
    aligned rows' labels, looked up once per qrels (:meth:`FusedRuns.row_labels`), in the
    configuration's ranked order (:meth:`FusedRuns.ranked_rows`). The other kinds, and
    ``ties="ranx"`` for a method whose ranx order is not determined (the fused run is then
    re-sorted by ranx's ties), are joins of the fused run itself (:meth:`run`), made once.
    """

    def __init__(self, runs: FusedRuns, name: str) -> None:
        self.name = name
        self.source = f"<fused run {name!r}>"
        self.query_ids = runs.aligned.query_ids
        self._runs = runs
        self._fused: Fused | None = None
        self._run: Run | None = None
        self._gathered: tuple[Qrels, str, tuple[RankedRun, JudgedRanks] | None] | None = None

    def join(self, kind: JoinBuilder, qrels: Qrels, duplicates: str, ties: str) -> Any:
        position = _GATHERED.get(kind)
        # A fused run has each document once per query: no duplicate policy applies to the gathered joins.
        joins = None if position is None else self._gathered_joins(qrels, ties)
        if joins is None:
            return self.run().join(kind, qrels, duplicates, ties)
        return joins[position]

    def _gathered_joins(self, qrels: Qrels, ties: str) -> tuple[RankedRun, JudgedRanks] | None:
        """Both gathered joins under the tie order ``ties`` (gathered once for the two kinds), None where ranx's
        ties re-sort the fused run."""
        if self._gathered is None or self._gathered[0] is not qrels or self._gathered[1] != ties:
            if self._fused is None:
                self._fused = self._runs.fused(self.name)
            ranked = self._runs.ranked_rows(self._fused, ties)
            self._gathered = (qrels, ties, None if ranked is None else self._runs.row_labels(qrels).joins(*ranked, ties))
        return self._gathered[2]

    def run(self) -> Run:
        """The fused run itself (made once, when a join must be made from it)."""
        if self._run is None:
            self._run = self._runs[self.name]
        return self._run

    def __repr__(self) -> str:
        return f"FusedConfiguration({self.name!r})"


#: The join kinds a configuration gathers, each the position of its join in what
#: :meth:`~retrieval_eval.data.join.RowLabels.joins` gives.
_GATHERED: dict[JoinBuilder, int] = {RANKED_RUN: 0, JUDGED_RANKS: 1}


class PrejoinedFusions(Mapping[str, FusedConfiguration]):
    """:class:`FusedRuns` by configuration name as :class:`FusedConfiguration` objects (what :func:`fusion_sweep` ranks)."""

    def __init__(self, runs: FusedRuns) -> None:
        self.runs = runs

    def __getitem__(self, name: str) -> FusedConfiguration:
        self.runs.configuration(name)  # an unknown name is a KeyError here, as for FusedRuns
        return FusedConfiguration(self.runs, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)


def fused_runs(
    runs: Mapping[str, Any] | Sequence[Any],
    grid: Any,
    *,
    top_k_in: int | None = None,
    top_k_out: int | None = None,
    qrels: Any = None,
    duplicates: str = "last",
) -> FusedRuns:
    """The fused runs of every configuration of ``grid`` (:func:`~.grids.fusion_grid`) by name, each made when asked for.

    ``runs``: the runs to fuse by name (the weight columns' names), or a list of them (a path
    named by itself, a Run by its ``name``, anything else ``run1``, ``run2``, ...); ``top_k_in``, ``top_k_out`` and ``duplicates`` as for
    :func:`~retrieval_eval.fusion.fuse`; ``qrels`` for trained methods. The grid is checked
    before the runs are read.

    >>> fused = fused_runs({"bm25": "data/run.trec", "dense": "data/run_dense.trec"}, {"method": "rrf", "k": [20, 60]})  # doctest: +SKIP
    >>> fused["rrf,k=60"]  # doctest: +SKIP
    Run('rrf,k=60', queries=..., rows=...)
    """
    names, inputs = _named_runs(runs)
    configurations = fusion_grid(grid, names)
    aligned = align(inputs, top_k_in=top_k_in, duplicates=duplicates, names=names)
    return FusedRuns(aligned, configurations, top_k_out=top_k_out, qrels=qrels)


def fusion_sweep(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    grid: Any,
    metrics: Any = None,
    *,
    objective: str | None = None,
    options: EvaluationOptions | None = None,
    top_k_in: int | None = None,
    top_k_out: int | None = None,
    duplicates: str = "last",
    **ranking: Unpack[RankingSettings],
) -> SweepResult:
    """Fuse ``runs`` under every configuration of ``grid`` and rank the configurations against ``qrels``.

    Parameters
    ----------
    qrels
        The judgments, any source :class:`~retrieval_eval.Evaluator` reads.
    runs
        The runs to fuse, by name (``{"bm25": "bm25.trec", "dense": dense_frame}``), or a list
        of them (named as :func:`fused_runs` names them); two or more.
    grid
        The configurations (:func:`~.grids.fusion_grid`: a list of entries such as
        ``{"method": "rrf", "k": [10, 20, 60, 100]}``, a JSON file of them, or a
        :class:`~.grids.FusionGrid`), checked before any run is read.
    metrics, objective, options
        As for :func:`~.ranking.leaderboard`: the metrics reported, the one that ranks (default
        the first), the evaluation's options; ``options=EvaluationOptions(ties="ranx")`` scores
        ties as ranx does (module docstring).
    top_k_in, top_k_out, duplicates
        As for :func:`~retrieval_eval.fusion.fuse`: each input run's first ``top_k_in``
        documents per query are fused, each fused run's first ``top_k_out`` are scored.
    ranking
        The other settings of :func:`~.ranking.leaderboard` (``alpha``, ``resamples``,
        ``rounds``, ``seed``, ``query_policy``, ``progress``, ...).

    Returns
    -------
    SweepResult
        The leaderboard of the configurations (statistics against the best), their parameter
        columns (``method``, ``norm``, each method parameter, ``w_<run>``: :mod:`.grids`)
        and the marginal effect of each.

    Examples
    --------
    >>> result = fusion_sweep(  # doctest: +SKIP
    ...     "data/qrels.trec",
    ...     {"bm25": "data/run.trec", "dense": "data/run_dense.trec"},
    ...     [{"method": "rrf", "k": [10, 20, 60, 100]},
    ...      {"method": "wsum", "norm": ["min-max", "max", "sum"], "weights": {"step": 0.1}}],
    ...     ["ndcg@10"],
    ... )
    >>> result.table.head(3)  # doctest: +SKIP
    """
    unknown_settings(ranking, RankingSettings.__annotations__)
    if options is not None and not isinstance(options, EvaluationOptions):
        raise ConfigError(f"options must be an EvaluationOptions, got {type(options).__name__}")
    names, inputs = _named_runs(runs)
    configurations = fusion_grid(grid, names)
    aligned = align(inputs, top_k_in=top_k_in, duplicates=duplicates, names=names)
    fused = FusedRuns(aligned, configurations, top_k_out=top_k_out, qrels=qrels)
    given = runs.values() if isinstance(runs, Mapping) else runs
    sources = [path for path in (qrels, *given) if isinstance(path, (str, os.PathLike))]
    return sweep(
        qrels, fused.prejoined(), metrics, parameters=configurations.parameters(), objective=objective, options=options,
        sources=sources, **ranking,
    )  # fmt: skip


def _named_runs(runs: Mapping[str, Any] | Sequence[Any]) -> tuple[list[str], list[Any]]:
    """The names and the runs of ``runs``: a mapping by name, or a list whose runs are named by what they are.

    In a list, a path is named by itself, a :class:`~retrieval_eval.Run` by its ``name``, anything
    else by its position (``run1``, ``run2``, ...); nothing is read here.
    """
    if isinstance(runs, Mapping):
        names = list(runs)
        if not all(isinstance(name, str) for name in names):
            raise ConfigError(f"the runs' names must be text, got {[name for name in names if not isinstance(name, str)][0]!r}")
        return names, list(runs.values())
    if isinstance(runs, (str, bytes)) or not isinstance(runs, Sequence):
        raise ConfigError(f"runs must be the runs to fuse by name (a dict) or a list of them, got {type(runs).__name__}")
    names = [
        os.fspath(run) if isinstance(run, (str, os.PathLike)) else str(run.name) if isinstance(run, Run) else f"run{number}"
        for number, run in enumerate(runs, start=1)
    ]
    return names, list(runs)
