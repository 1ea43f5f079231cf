"""The trained fusion methods of ranx 0.3.21 (ProbFuse, SegFuse, SlideFuse, PosFuse, MAPFuse, BayesFuse), and their training.

Each estimates something per run from judged runs (ranx's ``probfuse_train(qrels, runs,
n_segments)``, ``segfuse_train(qrels, runs)``, ...), then fuses with it. Here either is given:

- the trained parameters under ranx's names (``probs=``, ``map_scores=``, ``log_odds=``; what
  :func:`train` or ranx's ``*_train`` returns), as ``ranx.fuse(..., params=...)`` takes them;
- or ``qrels=`` (with ``n_segments=`` for ProbFuse): the method is trained on the runs being
  fused, as given (before normalization, after ``top_k_in``), then fuses them.

The estimates and formulas are in :mod:`retrieval_eval.kernels.fusion.fusion_trained`. Training reads
labels through the judgment index of :class:`~retrieval_eval.data.Qrels` (a document is relevant
when judged 1 or more, ranx's ``rel_lvl=1``) and the runs in ranx's order of each (the ranks of
:func:`~retrieval_eval.fusion.align`). Where this differs from ranx:

- the judged queries are paired with the runs' queries by id. ranx pairs them by position in
  sorted order, which is the same when the runs hold exactly the judged queries (what
  ``ranx.optimize_fusion`` and ``mapfuse_train`` require) and mismatched otherwise; here a
  judged query a run lacks counts as retrieving nothing (ranx's ``Run.make_comparable``) and a
  run's unjudged queries are not used;
- documents are matched by id, not by ranx's ids hashed into float64 (distinct ids whose hashes
  agree in their top 53 bits count as one document there);
- ``ranx.optimize_fusion`` trains on the normalized runs, sorted again by their normalized
  scores (which can reorder ties, and reverses ``min-max-inverted`` runs): ``train`` and
  ``qrels=`` read the runs' own order, as ``*_train`` on the runs does;
- BayesFuse's log odds cover positions 1 to 1000 (ranx's cut-offs): a run deeper than its log
  odds is an error here, where ranx reads past the end of its array.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..data import Qrels
from ..data.ids import id_column
from ..errors import ConfigError, InputError
from ..io.arrays import read_only
from ..kernels.fusion import fusion_trained as kernels
from .aligned import AlignedRuns, align
from .method import FusionMethod, Parameter

#: The most SegFuse probabilities a run can have: one per fixed segment.
SEGFUSE_SEGMENTS = len(kernels.SEGFUSE_BOUNDS) - 1


@dataclass(frozen=True)
class Estimates:
    """Trained values per run as the kernel takes them: run r's are ``values[r, :lengths[r]]`` (read-only)."""

    values: np.ndarray
    lengths: np.ndarray


def _vectors(name: str, *, what: str, least: int = 0, most: int | None = None) -> Any:
    """A check of one sequence of numbers per run (ranx's list of arrays), or None (train from qrels)."""

    def check(value: Any, n_runs: int) -> Estimates | None:
        if value is None:
            return None
        rows = list(value) if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes)) else None
        if rows is None or len(rows) != n_runs:
            raise ConfigError(f"{name} must be {n_runs} sequences of {what} (one per run), got {_short(value)}")
        arrays = []
        for r, row in enumerate(rows):
            try:
                array = np.asarray(row, dtype=np.float64)
            except (TypeError, ValueError):
                array = None
            if array is None or array.ndim != 1 or not np.isfinite(array).all():
                raise ConfigError(f"{name}[{r}] must be a sequence of finite numbers ({what}), got {_short(row)}")
            if len(array) < least or (most is not None and len(array) > most):
                bounds = f"{least} to {most}" if most is not None else f"at least {least}"
                raise ConfigError(f"{name}[{r}] must hold {bounds} {what}, got {len(array)}")
            arrays.append(array)
        return _estimates(arrays)

    return check


def _run_numbers(name: str, what: str) -> Any:
    """A check of one finite number per run, or None (train from qrels)."""

    def check(value: Any, n_runs: int) -> Estimates | None:
        if value is None:
            return None
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            array = None
        if array is None or array.ndim != 1 or len(array) != n_runs or not np.isfinite(array).all():
            raise ConfigError(f"{name} must be {n_runs} finite numbers ({what}, one per run), got {_short(value)}")
        return _estimates([array[r : r + 1] for r in range(n_runs)])

    return check


def _count(name: str, what: str, *, least: int, optional: bool = False) -> Any:
    """A check of an integer of at least ``least`` (None allowed when ``optional``)."""

    def check(value: Any, n_runs: int) -> int | None:
        if value is None and optional:
            return None
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < least:
            raise ConfigError(f"{name} must be an integer of at least {least} ({what}), got {value!r}")
        return int(value)

    return check


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _estimates(arrays: Sequence[np.ndarray]) -> Estimates:
    width = max((len(a) for a in arrays), default=0)
    values = np.zeros((len(arrays), width), dtype=np.float64)
    for r, array in enumerate(arrays):
        values[r, : len(array)] = array
    return Estimates(read_only(values), read_only(np.array([len(a) for a in arrays], dtype=np.int64)))


@dataclass(frozen=True)
class _Trained:
    """One trained method: its kernel code, the parameter holding its estimates, and how they read in ranx's shape."""

    code: int
    estimates: str
    description: str


_TRAINED = {
    "probfuse": _Trained(kernels.PROBFUSE, "probs", "one array of segment probabilities per run"),
    "segfuse": _Trained(kernels.SEGFUSE, "probs", "one array of 10 segment probabilities per run"),
    "slidefuse": _Trained(kernels.SLIDEFUSE, "probs", "one array of position probabilities per run"),
    "posfuse": _Trained(kernels.POSFUSE, "probs", "one array of position probabilities per run"),
    "mapfuse": _Trained(kernels.MAPFUSE, "map_scores", "one MAP per run"),
    "bayesfuse": _Trained(kernels.BAYESFUSE, "log_odds", "one array of 1000 log odds per run"),
}


def train(
    method: str,
    qrels: Any,
    runs: Sequence[Any] | AlignedRuns,
    *,
    n_segments: int | None = None,
    top_k_in: int | None = None,
    duplicates: str = "last",
) -> dict[str, Any]:
    """Train a fusion method on judged runs, as ranx 0.3.21's ``<method>_train(qrels, runs, ...)``.

    Parameters
    ----------
    method
        ``"probfuse"``, ``"segfuse"``, ``"slidefuse"``, ``"posfuse"``, ``"mapfuse"`` or ``"bayesfuse"``.
    qrels
        The judgments: a :class:`~retrieval_eval.Qrels` or anything ``Qrels.read`` reads, in the
        plain qrels layout. A document judged 1 or more is relevant.
    runs
        The runs, as :func:`~retrieval_eval.fusion.align` takes them (or already aligned).
    n_segments
        ProbFuse's number of segments (required for it, refused for the others).
    top_k_in, duplicates
        As for :func:`~retrieval_eval.fusion.align`.

    Returns
    -------
    dict
        The trained parameters under ranx's names, ready for ``fuse(runs, method, **trained)``
        (or ranx's ``params=``), in the shapes ranx returns: ``probfuse``: ``{"probs":
        float64[n_runs, n_segments]}``; ``segfuse``, ``slidefuse``, ``posfuse``: ``{"probs": [one
        float64 array per run]}`` (SlideFuse's ``w`` is a parameter of the fusion, not trained);
        ``mapfuse``: ``{"map_scores": [one float per run]}``; ``bayesfuse``: ``{"log_odds": [one
        float64[1000] per run]}``.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "c": 2}}
    >>> runs = [{"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q1": {"b": 2.0, "c": 1.0}}]
    >>> train("probfuse", qrels, runs, n_segments=2)["probs"].tolist()
    [[0.5, 1.0], [0.0, 1.0]]
    >>> train("mapfuse", qrels, runs)
    {'map_scores': [0.8333333333333333, 0.25]}
    >>> train("probfuse", qrels, runs)
    Traceback (most recent call last):
    ...
    retrieval_eval.errors.ConfigError: training probfuse needs n_segments= (a positive integer: the segments of each run)
    """
    name = method.lower() if isinstance(method, str) else method
    if name not in _TRAINED:
        raise ConfigError(f"train takes one of the trained fusion methods ({', '.join(_TRAINED)}), got {method!r}")
    aligned = runs if isinstance(runs, AlignedRuns) else align(runs, top_k_in=top_k_in, duplicates=duplicates)
    estimates = _train(name, Qrels.read(qrels), aligned, n_segments, _deepest(aligned.depths))
    kept = [estimates.values[r, : estimates.lengths[r]].copy() for r in range(aligned.n_runs)]
    if name == "probfuse":
        return {"probs": estimates.values.copy()}
    if name == "mapfuse":
        return {"map_scores": [float(v[0]) for v in kept]}
    return {_TRAINED[name].estimates: kept}


def _deepest(*depths: np.ndarray) -> int:
    """The most documents any of the runs ranks for one query."""
    return max(int(d.max(initial=0)) for d in depths)


def _segments(method: str, n_segments: int | None, deepest: int) -> int:
    """ProbFuse's checked number of segments (0 for the methods without), at most ``deepest``.

    A run of d documents for a query has segments of ``ceil(d / S)`` positions, one position each
    once S reaches d: segments past the deepest run's documents are always empty, every S from
    ``deepest`` up trains and fuses alike, and refusing them bounds the estimates (n_runs x S
    numbers) by the runs' size.
    """
    check = _count("n_segments", "the segments of each run", least=1, optional=True)
    value = check(n_segments, 0)
    if method == "probfuse" and value is None:
        raise ConfigError("training probfuse needs n_segments= (a positive integer: the segments of each run)")
    if method != "probfuse" and value is not None:
        raise ConfigError(f"{method} takes no n_segments= (ProbFuse's alone)")
    if value is not None and value > deepest:
        raise ConfigError(
            f"n_segments={value} is more segments than the deepest run ranks documents for a query ({deepest}): "
            f"the segments past it are empty; use n_segments={deepest} or fewer (every value from {deepest} up fuses alike)"
        )
    return value or 0


def _train(method: str, qrels: Qrels, aligned: AlignedRuns, n_segments: int | None, deepest: int) -> Estimates:
    """The estimates of ``method`` from ``qrels`` over the aligned runs (module docstring of the kernels).

    A judged query no run has counts as retrieving nothing (ranx's ``Run.make_comparable``), but
    qrels that judge none of the runs' queries train nothing (every estimate 0, every fused
    score alike): an error, as evaluating a run against such qrels is on the command line.
    """
    train_queries, n_relevant = _judged_queries(qrels, aligned)
    if not (train_queries >= 0).any():
        raise InputError(
            f"no judged query is a query of the runs fused ({', '.join(aligned.run_names)}), so {method} has nothing "
            "to train on (are the query ids of another collection, or of another kind?)",
            source=qrels.source,
        )
    segments = _segments(method, n_segments, deepest)
    relevant = read_only(_row_labels(qrels, aligned) >= 1)
    values, lengths = kernels.train_statistics(
        aligned.offsets, aligned.ranks, aligned.depths, relevant, train_queries, n_relevant, _TRAINED[method].code, segments
    )
    if method == "mapfuse":
        # ranx's evaluate takes numpy's mean of the per-query values, in query order.
        values = np.array([[np.mean(values[r])] for r in range(aligned.n_runs)], dtype=np.float64).reshape(-1, 1)
        lengths = np.ones(aligned.n_runs, dtype=np.int64)
    return Estimates(read_only(values), read_only(lengths))


def _judged_queries(qrels: Qrels, aligned: AlignedRuns) -> tuple[np.ndarray, np.ndarray]:
    """The judged queries in ranx's order (ids sorted as strings): each one's aligned query (-1: none) and relevant count."""
    if qrels.judgments != "qrels":
        raise ConfigError(f"training reads plain qrels (ranx's), got judgments={qrels.judgments!r}")
    if qrels.n_queries == 0:
        raise ConfigError(f"the qrels ({qrels.source}) judge no query: there is nothing to train on")
    _same_kind(qrels.query_ids, aligned.query_ids, "query_id", qrels)
    qrels_of_aligned = qrels.query_lookup.positions(aligned.query_ids)
    aligned_of_qrels = np.full(qrels.n_queries, -1, dtype=np.int64)
    found = qrels_of_aligned >= 0
    aligned_of_qrels[qrels_of_aligned[found]] = np.flatnonzero(found)
    order = pc.sort_indices(pc.cast(qrels.query_ids, pa.string())).to_numpy().astype(np.int64)
    # Each judged query's documents judged 1 or more, counted in the judgment index (one label per document).
    relevant = np.concatenate(([0], np.cumsum(qrels.judged_labels >= 1)))
    starts = qrels.queries.offsets[:-1]
    n_relevant = relevant[starts + qrels.n_judged] - relevant[starts]
    return read_only(aligned_of_qrels[order]), read_only(n_relevant[order].astype(np.int64))


def _row_labels(qrels: Qrels, aligned: AlignedRuns) -> np.ndarray:
    """The judged label of each aligned row (0 when unjudged)."""
    _same_kind(qrels.doc_ids.values, aligned.doc_ids, "doc_id", qrels)
    docs = id_column(aligned.doc_ids, field="doc_id", source="<fused runs>")
    qrels_query = read_only(qrels.query_lookup.positions(aligned.query_ids).astype(np.int64))
    return kernels.row_labels(
        aligned.offsets, qrels_query, docs.keys, docs.offsets, docs.data, docs.is_string, qrels.judgment_arrays
    )


def _same_kind(judged: pa.Array, fused: pa.Array, field: str, qrels: Qrels) -> None:
    kinds = ("strings", "integers")
    a, b = pa.types.is_integer(judged.type), pa.types.is_integer(fused.type)
    if a != b:
        raise InputError(
            f"{field}s are {kinds[a]} in the qrels but {kinds[b]} in the runs; convert one side so that both are "
            "strings or both integers",
            source=qrels.source,
            field=field,
        )


# The methods ----------------------------------------------------------------------------------


def _kernel(code: int) -> Any:
    """The method's kernel: :func:`~retrieval_eval.kernels.fusion.fusion_trained.trained_points` with its code."""

    def kernel(
        offsets: np.ndarray, scores: np.ndarray, ranks: np.ndarray, depths: np.ndarray,
        values: np.ndarray, lengths: np.ndarray, window: int,
    ) -> np.ndarray:
        return kernels.trained_points(offsets, scores, ranks, depths, code, values, lengths, window)

    return kernel


def _arguments(method: str) -> Any:
    """The hook giving the kernel the trained values: those passed, or those trained on these runs from ``qrels``."""
    trained = _TRAINED[method]

    def arguments(aligned: AlignedRuns, normalized: Any, values: Mapping[str, Any], qrels: Any) -> tuple:
        given = values[trained.estimates]
        segments = values.get("n_segments")
        if given is not None and qrels is not None:
            raise ConfigError(f"fusion method {method!r}: give {trained.estimates}= or qrels= (to train it here), not both")
        if given is None and qrels is None:
            segmented = method == "probfuse"
            raise ConfigError(
                f"fusion method {method!r} is trained: pass {trained.estimates}= ({trained.description}: "
                f"retrieval_eval.fusion.train({method!r}, qrels, runs{', n_segments=' if segmented else ''}...) "
                f"or ranx's {method}_train) or qrels={' with n_segments=' if segmented else ''} to train it on these runs"
            )
        if given is not None and segments is not None:
            raise ConfigError(
                f"fusion method {method!r}: n_segments= is for training from qrels=; {trained.estimates}= holds the segments"
            )
        # Trained here, ProbFuse's segments bounded by the normalized runs too (borda's list every candidate).
        deepest = _deepest(aligned.depths, normalized.depths)
        estimates = given if given is not None else _train(method, Qrels.read(qrels), aligned, segments, deepest)
        if method == "bayesfuse":
            _check_depths(aligned, normalized, estimates)
        return estimates.values, estimates.lengths, values.get("w", 0)

    return arguments


def _check_depths(aligned: AlignedRuns, normalized: Any, estimates: Estimates) -> None:
    """BayesFuse: every position of every run must have its log odds (ranx reads past the array otherwise)."""
    short = normalized.depths > estimates.lengths[None, :]
    if short.any():
        q, r = (int(i[0]) for i in np.nonzero(short))
        raise ConfigError(
            f"bayesfuse: run {aligned.run_names[r]!r} ranks {int(normalized.depths[q, r])} documents for query "
            f"{aligned.query_ids[q].as_py()!r} and its log odds cover {int(estimates.lengths[r])} positions; "
            f"cut the runs with top_k_in={int(estimates.lengths[r])}"
        )


def _method(name: str, aliases: tuple[str, ...], definition: str, *extra: Parameter, **check: Any) -> FusionMethod:
    """A trained method: its estimates' parameter (None: train from ``qrels=``), checked by ``check``, then ``extra``."""
    trained = _TRAINED[name]
    validate = _run_numbers(trained.estimates, "MAP") if name == "mapfuse" else _vectors(trained.estimates, **check)
    estimates = Parameter(trained.estimates, f"{trained.description} (trained), or None to train from qrels=", validate, None)
    return FusionMethod(
        name, aliases, definition, _kernel(trained.code), (estimates, *extra), trained=True, arguments=_arguments(name)
    )


METHODS: tuple[FusionMethod, ...] = (
    _method(
        "probfuse", ("prob_fuse",),
        "sum over the runs having the document of P_r[k] / (k + 1), k its segment (ceil(depth_r / S) positions each)",
        Parameter(
            "n_segments", "the segments of each run, to train from qrels=",
            _count("n_segments", "the segments of each run", least=1, optional=True), None,
        ),
        what="probabilities", least=1,
    ),
    _method(
        "segfuse", ("seg_fuse",),
        "sum over the runs having the document of P_r[k] * (s_r + 1), k its segment of 5, 10, 20, 40, ... positions",
        what="probabilities", most=SEGFUSE_SEGMENTS,
    ),
    _method(
        "slidefuse", ("slide_fuse",),
        "sum over the runs having the document of the mean of P_r over the positions within w of its own",
        Parameter("w", "the window: positions on each side (0 or more)", _count("w", "positions on each side", least=0)),
        what="probabilities",
    ),
    _method("posfuse", ("pos_fuse",), "sum over the runs having the document of P_r at its position", what="probabilities"),
    _method("mapfuse", ("map_fuse",), "sum over the runs having the document of MAP_r / rank_r"),
    _method(
        "bayesfuse", ("bayes_fuse",),
        "sum over runs of the log odds of relevance at the document's position (log(0.001 / 0.999) where a run lacks it)",
        what="log odds",
    ),
)
