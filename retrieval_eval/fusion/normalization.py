"""ranx's normalizations of the runs before fusion: per query and run (``borda``: across the runs).

The formulas and ranx's arithmetic are in :mod:`retrieval_eval.kernels.fusion.fusion_norm`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..io.arrays import read_only
from ..kernels.fusion import fusion_norm as kernels
from .aligned import AlignedRuns
from .method import unknown_name

#: The normalizations, by ranx's name (``ranx.fuse(norm=...)``); None fuses the scores as they are.
NORMALIZATIONS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
#: Other spellings: ranx's own (``min_max``) and the common name of ``zmuv``; "none" is None.
NORMALIZATION_ALIASES = {
    "min_max": "min-max",
    "minmax": "min-max",
    "min_max_inverted": "min-max-inverted",
    "z-score": "zmuv",
    "zscore": "zmuv",
    "z_score": "zmuv",
}
_CODES = {
    "min-max": kernels.MIN_MAX,
    "min-max-inverted": kernels.MIN_MAX_INVERTED,
    "max": kernels.MAX,
    "sum": kernels.SUM,
    "zmuv": kernels.ZMUV,
    "rank": kernels.RANK,
    "borda": kernels.BORDA,
}


@dataclass(frozen=True)
class Normalized:
    """The runs as ranx's fusion functions read them after a normalization.

    Attributes
    ----------
    norm
        The normalization's canonical name (None: the scores as they are).
    scores
        float64[n_rows, n_runs]: the normalized score of each aligned row in each run, NaN
        where the normalized run lacks the document. ``borda`` fills every cell (ranx gives a
        run's missing candidates a score too).
    ranks
        int64[n_rows, n_runs]: the document's 1-based position in the normalized run (what
        rank-based methods such as ``rrf`` read), 0 where it lacks it. The aligned ranks,
        except: ``min-max-inverted`` re-sorts each run by its new scores (as ranx does);
        ``borda`` lists every query's candidates in one order for every run, so a row's
        position is its position among the query's aligned rows.
    depths
        int64[n_queries, n_runs]: the normalized run's documents per query (``borda``: the
        query's candidates, for every run).
    insertion
        int64[n_rows]: each row's position within its query in the order ranx's fusion
        functions first meet the documents (run 0's in its normalized order, then those only
        run 1 has, ...), which orders the fused run's ties; None when that is the aligned
        rows' order (every normalization but ``min-max-inverted``).

    Every array is read-only.
    """

    norm: str | None
    scores: np.ndarray
    ranks: np.ndarray
    depths: np.ndarray
    insertion: np.ndarray | None = None

    @property
    def order_determined(self) -> bool:
        """False under ``borda``: ranx lists the candidates by iterating a Python set (module docstring)."""
        return self.norm != "borda"


def normalization_name(norm: str | None) -> str | None:
    """The canonical name of a normalization (None, or "none", for none); an unknown one is an error naming the closest."""
    if norm is None:
        return None
    if isinstance(norm, str):
        lowered = norm.lower()
        if lowered == "none":
            return None
        if lowered in NORMALIZATIONS:
            return lowered
        if lowered in NORMALIZATION_ALIASES:
            return NORMALIZATION_ALIASES[lowered]
    raise unknown_name("normalization", norm, [*NORMALIZATIONS, "none"], list(NORMALIZATION_ALIASES))


def normalize(aligned: AlignedRuns, norm: str | None = "min-max") -> Normalized:
    """The aligned runs normalized as ``ranx.fuse(runs, norm=norm)`` normalizes them.

    Parameters
    ----------
    aligned
        The runs (:func:`~retrieval_eval.fusion.align`).
    norm
        One of :data:`NORMALIZATIONS` (or an alias), or None (``"none"``) for none.

    ``borda`` builds, for each query, the candidates (the union of the runs' documents) from a
    Python ``set``, whose order ranx does not fix (it changes with ``PYTHONHASHSEED``), and
    every normalized run lists them in that order: here they are in the aligned rows' order
    (run 0's documents, then those only run 1 has, ...). The scores do not depend on it; what
    a method reads from the positions does (``rrf`` after ``borda`` gives each document
    ``n_runs / (k + position)``), and so does the order of ties in the fused run.

    An infinite input score has no normalized value where ranx computes NaN (``inf - inf``,
    ``inf / inf``): that is an error naming the run and the query, never a silent NaN. Finite
    scores never overflow a step (``zmuv`` of scores about 1e200, whose squares ranx overflows
    into z-scores of 0): they are normalized as ranx's arithmetic without an exponent limit
    (:mod:`~retrieval_eval.kernels.fusion.fusion_norm`); a normalized score itself beyond
    float64 (``max`` of scores all below -1.8e299, divided by ranx's floor 1e-9) is an error
    naming the run, the query and the score.

    Examples
    --------
    >>> from retrieval_eval.fusion import align
    >>> aligned = align([{"q": {"a": 3.0, "b": 1.0}}, {"q": {"b": 2.0}}])
    >>> normalize(aligned, "min-max").scores.tolist()
    [[1.0, nan], [0.0, 0.0]]
    >>> normalize(aligned, "borda").scores.tolist()
    [[1.0, 0.5], [0.5, 1.0]]
    """
    name = normalization_name(norm)
    if name is None:
        return Normalized(None, aligned.scores, aligned.ranks, aligned.depths)
    values, ranks, insertion = kernels.normalize_scores(
        aligned.offsets, aligned.scores, aligned.ranks, aligned.depths, _CODES[name]
    )
    values = read_only(values)
    if name == "borda":
        return Normalized(name, values, *_every_candidate(aligned))
    _refuse_undefined(aligned, values, name)
    if name == "min-max-inverted":  # ranx sorts the inverted runs again: their documents come in another order
        return Normalized(name, values, read_only(ranks), aligned.depths, read_only(insertion))
    return Normalized(name, values, aligned.ranks, aligned.depths)


def _every_candidate(aligned: AlignedRuns) -> tuple[np.ndarray, np.ndarray]:
    """The ranks and depths of runs that each list every candidate of the query, in the aligned rows' order."""
    counts = aligned.rows_per_query
    positions = np.arange(aligned.n_rows, dtype=np.int64) - np.repeat(aligned.offsets[:-1], counts) + 1
    ranks = np.repeat(positions[:, None], aligned.n_runs, axis=1)
    depths = np.repeat(counts[:, None], aligned.n_runs, axis=1)
    return read_only(ranks), read_only(depths)


def _refuse_undefined(aligned: AlignedRuns, values: np.ndarray, name: str) -> None:
    """An error naming the first run and query where a present document's normalized score is undefined.

    Undefined: NaN (from an infinite input score), or infinite from finite scores (an overflow);
    an infinity that infinite input scores give (``max`` of -inf) is ranx's value and stays.
    """
    present = aligned.ranks > 0
    if np.isfinite(values[present]).all():  # the common case, without the per-query counts below
        return
    infinite = np.isinf(aligned.scores) & present
    counts = np.concatenate((np.zeros((1, aligned.n_runs), dtype=np.int64), np.cumsum(infinite, axis=0)))
    has_infinity = np.repeat(counts[aligned.offsets[1:]] - counts[aligned.offsets[:-1]] > 0, aligned.rows_per_query, axis=0)
    undefined = present & (np.isnan(values) | (np.isinf(values) & ~has_infinity))
    if not undefined.any():
        return
    row, run = (int(i[0]) for i in np.nonzero(undefined))
    query = aligned.query_ids[int(np.searchsorted(aligned.offsets, row, side="right") - 1)].as_py()
    if has_infinity[row, run]:
        message = (
            f"query {query!r}: the scores include an infinity, which {name!r} normalization cannot scale (ranx gives "
            "NaN); use norm='rank', 'borda' or None"
        )
    else:
        message = (
            f"query {query!r}: {name!r} normalization takes the score {float(aligned.scores[row, run])!r} of document "
            f"{aligned.doc_ids[row].as_py()!r} beyond float64's range (its magnitude would pass 1.8e308); use "
            "norm='min-max', 'rank' or 'borda'"
        )
    raise InputError(message, source=aligned.run_names[run])
