"""``fuse``: ranx 0.3.21's ``ranx.fuse(runs, norm, method, params)``, and the steps a fusion sweep reuses.

A fusion is four steps, each public so that a sweep pays for each only once:

1. :func:`~retrieval_eval.fusion.align` the runs (once);
2. :func:`~retrieval_eval.fusion.normalize` them (once per normalization);
3. :func:`fused_scores`: a method's fused score of every aligned row (once per configuration);
4. :func:`fused_run`: the fused run in ranx's order, optionally cut to its top k.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ..constraints import documents_per_query
from ..data import Run
from ..data.ids import QueryGroups
from ..errors import ConfigError, InputError
from ..io.arrays import arrow_array, read_only
from ..kernels.fusion.fusion_order import fused_order
from .aligned import AlignedRuns, align
from .method import FusionMethod
from .methods import fusion_method
from .normalization import Normalized, normalization_name, normalize

_NO_INSERTION = read_only(np.empty(0, dtype=np.int64))


@dataclass(frozen=True)
class Fused:
    """A method's fused scores of the aligned rows, with what ordering them as ranx does needs.

    Attributes
    ----------
    scores
        float64[n_rows]: the fused score of each aligned row (read-only).
    method
        The method's canonical name.
    norm
        The normalization's canonical name (None: none).
    insertion
        int64[n_rows]: each row's position in the order ranx inserts the query's documents
        into the fused dict (the method's, else the normalized runs'), or None for the aligned
        rows' order.
    order_determined
        Whether ranx's own order of the fused run is determined (not under ``borda``, nor for a
        method that iterates a Python set): only then does the fused run claim ranx's order.
    """

    scores: np.ndarray
    method: str
    norm: str | None
    insertion: np.ndarray | None = None
    order_determined: bool = True


def fused_scores(
    aligned: AlignedRuns,
    normalized: Normalized,
    method: str | FusionMethod = "wsum",
    params: Mapping[str, Any] | None = None,
    *,
    qrels: Any = None,
) -> Fused:
    """The fused score of every aligned row under ``method`` with ``params``, over the ``normalized`` runs.

    ``method``: a name or alias of the registry (:data:`~retrieval_eval.fusion.methods.METHODS`);
    ``params``: its parameters by name (checked: an unknown, missing or bad one is a
    one-line ConfigError); ``qrels``: the judgments a trained method estimates from.

    A fused score with no value (NaN: an infinite input score fused with its opposite, or
    times 0) is an error naming the query and the document, never a silent NaN.
    """
    chosen = fusion_method(method)
    values = chosen.resolve(params, aligned.n_runs)
    arguments = chosen.kernel_arguments(aligned, normalized, values, qrels)
    scores = chosen.kernel(aligned.offsets, normalized.scores, normalized.ranks, normalized.depths, *arguments)
    _refuse_nan(aligned, scores, chosen.name)
    insertion = chosen.insertion(aligned, normalized, scores) if chosen.insertion is not None else normalized.insertion
    return Fused(
        read_only(scores),
        chosen.name,
        normalized.norm,
        None if insertion is None else read_only(np.ascontiguousarray(insertion, dtype=np.int64)),
        chosen.order_determined and normalized.order_determined,
    )


def fused_run(aligned: AlignedRuns, fused: Fused, *, top_k_out: int | None = None, name: str | None = None) -> Run:
    """The fused run: each query's documents in ranx's order of the fused Run, the first ``top_k_out`` kept.

    ranx orders a fused query by numba's quicksort of ``-score`` over the documents in the
    order it inserted them (:mod:`retrieval_eval.kernels.fusion.fusion_order`), which is reproduced:
    the same documents, scores and order, ties included. Queries are in the aligned order
    (ranx sorts them by id; no measure depends on it). The run is marked ``in_ranx_order``
    (``ties="ranx"`` keeps its order) unless ``fused.order_determined`` is False. ``name``
    defaults to the method's name.
    """
    rows, out_offsets = fused_rows(aligned, fused, top_k_out=top_k_out)
    queries = np.repeat(np.arange(aligned.n_queries, dtype=np.int64), np.diff(out_offsets))
    table = pa.table(
        {
            "query_id": aligned.query_ids.take(arrow_array(queries)),
            "doc_id": aligned.doc_ids.take(arrow_array(rows)),
            "score": arrow_array(fused.scores[rows]),
        }
    )
    label = name if name is not None else fused.method
    groups = QueryGroups(aligned.query_ids, read_only(np.arange(len(rows), dtype=np.int64)), out_offsets)
    return Run(table, source=f"<fused run {label!r}>", name=label, queries=groups, in_ranx_order=fused.order_determined)


def fused_rows(aligned: AlignedRuns, fused: Fused, *, top_k_out: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The rows of :func:`fused_run`: aligned row numbers in its order, query q's at ``out_offsets[q]:out_offsets[q + 1]``.

    Returns ``(rows, out_offsets)`` (int64, the offsets read-only), without the run's table.
    """
    counts = aligned.rows_per_query
    if top_k_out is not None:
        counts = np.minimum(counts, documents_per_query("top_k_out", top_k_out, optional=True))
    out_offsets = read_only(np.concatenate(([0], np.cumsum(counts))).astype(np.int64))
    insertion = _NO_INSERTION if fused.insertion is None else fused.insertion
    return fused_order(aligned.offsets, fused.scores, insertion, out_offsets), out_offsets


def fuse(
    runs: Sequence[Any],
    method: str | FusionMethod = "wsum",
    *,
    norm: str | None = "min-max",
    params: Mapping[str, Any] | None = None,
    top_k_in: int | None = None,
    top_k_out: int | None = None,
    qrels: Any = None,
    duplicates: str = "last",
    name: str | None = None,
    **method_params: Any,
) -> Run:
    """Fuse two or more runs into one, as ``ranx.fuse(runs, norm=norm, method=method, params=params)``.

    Parameters
    ----------
    runs
        Two or more runs of any source ``Run.read`` reads (files, data frames, Arrow tables,
        nested dicts, ``ranx.Run``). Their queries need not be the same: the union is fused.
    method
        ranx's method string or an alias: ``"wsum"`` (ranx's default), ``"rrf"``, ``"sum"``
        (CombSUM), ``"mnz"`` (CombMNZ), ... (:data:`~retrieval_eval.fusion.methods.METHODS`).
    norm
        ranx's normalization: ``"min-max"`` (ranx's default), ``"max"``, ``"sum"``, ``"zmuv"``
        (z-score), ``"rank"``, ``"borda"``, ``"min-max-inverted"``, or None.
    params, **method_params
        The method's parameters (``weights=[0.3, 0.7]``, ``k=60``, ``gamma=``, ``sigma=``),
        as a dict like ranx's ``params`` or as keywords (not both for one name).
    top_k_in, top_k_out
        Keep each input run's first ``top_k_in`` documents per query (before normalizing), and
        the fused run's first ``top_k_out``. None keeps all.
    qrels
        Judgments, for the trained methods.
    duplicates
        A document repeated within a query of one run: ``"last"`` (ranx's reading: its first
        position, its last score), ``"first"``, ``"max"`` or ``"raise"``.
    name
        The fused run's name (default: the method's).

    Returns
    -------
    Run
        The fused run: the documents, scores and order of ranx's, queries in order of first
        appearance (module :mod:`retrieval_eval.fusion` for what differs).

    Examples
    --------
    >>> bm25 = {"q1": {"a": 12.0, "b": 9.5, "c": 3.0}}
    >>> dense = {"q1": {"b": 0.9, "d": 0.8}}
    >>> fused = fuse([bm25, dense], "rrf", k=60)
    >>> fused.table["doc_id"].to_pylist()
    ['b', 'a', 'd', 'c']
    >>> fuse([bm25, dense], "wsum", weights=[0.5, 0.5]).table["score"].to_pylist()
    [0.8611111111111112, 0.5, 0.0, 0.0]
    >>> fuse([bm25, dense], "wsum")
    Traceback (most recent call last):
    ...
    retrieval_eval.errors.ConfigError: fusion method 'wsum' needs weights= (one weight per run, in run order)
    """
    both = sorted(set(params or {}) & set(method_params))
    if both:
        raise ConfigError(f"fusion parameter {both[0]!r} is given twice (in params= and as a keyword)")
    chosen = fusion_method(method)
    normalization = normalization_name(norm)
    merged = {**(params or {}), **method_params}
    aligned = align(runs, top_k_in=top_k_in, duplicates=duplicates)
    chosen.resolve(merged, aligned.n_runs)  # a bad parameter fails before any normalization
    fused = fused_scores(aligned, normalize(aligned, normalization), chosen, merged, qrels=qrels)
    return fused_run(aligned, fused, top_k_out=top_k_out, name=name)


def _refuse_nan(aligned: AlignedRuns, scores: np.ndarray, method: str) -> None:
    nan = np.isnan(scores)
    if not nan.any():
        return
    row = int(np.flatnonzero(nan)[0])
    query = int(np.searchsorted(aligned.offsets, row, side="right") - 1)
    raise InputError(
        f"query {aligned.query_ids[query].as_py()!r} doc {aligned.doc_ids[row].as_py()!r}: the fused score "
        f"({method!r}) has no value (NaN), from infinite input scores; cut them or use a rank-based method",
        source="<fusion>",
    )
