"""The pool of several runs: the documents in the top ``depth`` of any run that are not judged yet.

Each run is ranked as the evaluation ranks it: score descending, ties by the options' ``ties``
(trec_eval's order by default: document id descending, compared as byte strings; ``"input"``:
input order), a document repeated within a query by the options' ``run_duplicates`` (trec_eval's
rule by default: an error). The pool lists each (query, document) once, with the runs that put it
within the depth and its best rank, in the order of a TREC pool file: queries by query id, then
documents by document id, both compared as strings by their bytes (integers by their decimal text),
ascending (trec_eval reads and orders queries by ``strcmp`` of their ids).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..constraints import is_integer, must_be
from ..data.join import docid_tie_keys
from ..data.qrels import Qrels
from ..data.run import Run, distinct_files
from ..errors import ConfigError, DuplicateError, InputError
from ..io.arrays import numpy_view
from ..io.pandas_objects import is_dataframe
from ..metrics.options import EvaluationOptions
from ..policies import POOL_TIES

if TYPE_CHECKING:
    import pandas as pd

POOL_COLUMNS = ("query_id", "doc_id", "runs", "best_rank", "n_runs")


def pool(
    runs: Iterable[Any] | Mapping[str, Any],
    depth: int,
    *,
    qrels: Any = None,
    options: EvaluationOptions | None = None,
) -> pd.DataFrame:
    """The documents in the top ``depth`` of any of ``runs``, minus those ``qrels`` judge.

    Parameters
    ----------
    runs
        Runs (anything :meth:`Run.read` reads), or a mapping ``{name: run}``; a run's name is its
        ``name`` (its source by default) and names must be distinct.
    depth
        The pool depth: a run contributes its documents at ranks 1..depth of each query (all of
        them where it has fewer).
    qrels
        Judgments already made: every judged (query, document) is left out, whatever its label
        (0 and negative labels too: the document has been looked at).
    options
        ``ties`` (``"docid"``, trec_eval's order, the default; or ``"input"``) and
        ``run_duplicates`` (``"raise"``, trec_eval's rule, the default; ``"first"``, ``"last"``,
        ``"max"`` choose the score that ranks a repeated document, which keeps its first position
        among ties) rank each run as an evaluation with those options ranks it. The other options do
        not change which documents a run has in its top ``depth`` (``judged_only`` is refused).

    Returns
    -------
    pandas.DataFrame
        One row per pooled (query, document): ``query_id``, ``doc_id``, ``runs`` (the names of the
        runs that retrieved it within the depth, in the order given), ``best_rank`` (its best
        1-based rank over them), ``n_runs``. Rows by query id, then doc id, both ascending as
        strings (byte order), as a TREC pool file lists them.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"query_id": ["1", "1", "1"], "doc_id": ["x", "y", "z"], "score": [3.0, 2.0, 2.0]})
    >>> b = pd.DataFrame({"query_id": ["1"], "doc_id": ["y"], "score": [1.0]})
    >>> pool({"a": a, "b": b}, 2).to_dict("list")["doc_id"]  # a's tie of y and z: z first (doc id descending)
    ['x', 'y', 'z']
    """
    return pool_table(runs, depth, qrels=qrels, options=options).to_pandas()


def pool_table(
    runs: Iterable[Any] | Mapping[str, Any],
    depth: int,
    *,
    qrels: Any = None,
    options: EvaluationOptions | None = None,
) -> pa.Table:
    """:func:`pool` as a pyarrow Table (``runs`` a list<string> column)."""
    depth = _depth(depth)
    options = options if options is not None else EvaluationOptions()
    ties = options.ties or "docid"
    if ties not in POOL_TIES:
        raise ConfigError(f"a pool ranks ties by {list(POOL_TIES)} ('docid', trec_eval's order, by default), got {ties!r}")
    if options.judged_only:
        raise ConfigError("judged_only ranks only judged documents, and a pool is the unjudged ones: leave it False")
    duplicates = options.run_duplicates or "raise"
    names: list[str] = []
    tops: list[pa.Table] = []
    first = ""
    # One run at a time: only its top depth is kept, so that memory holds one whole run, not all of them.
    for run in distinct_files(_read_runs(runs)):
        if run.name in names:
            raise ConfigError(f"runs must have distinct names, {run.name!r} is given more than once")
        tops.append(_top(run, depth, ties, duplicates, len(names)))
        names.append(run.name)
        if len(tops) == 1:
            first = _label(run)
        else:
            _same_kinds(tops[-1], tops[0], _label(run), first)
    if not tops:
        raise ConfigError("a pool needs at least one run")
    pooled = pa.concat_tables(tops)
    if qrels is not None:
        judged = Qrels.read(qrels)
        _same_kinds(judged.table, pooled, f"the qrels ({judged.source})", first)
        keys = pa.table({name: _one_type(judged.table[name].combine_chunks()) for name in ("query_id", "doc_id")})
        pooled = pooled.join(keys, ["query_id", "doc_id"], join_type="left anti")
    return _group(pooled, names)


def _depth(depth: Any) -> int:
    if not is_integer(depth) or depth < 1:
        raise must_be("depth", "a positive integer (the ranks 1..depth of each run are pooled)", depth)
    return int(depth)


def _read_runs(runs: Iterable[Any] | Mapping[str, Any]) -> Iterator[Run]:
    """The runs, read one by one as they are asked for."""
    one = isinstance(runs, (str, bytes, Run, pa.Table)) or is_dataframe(runs) or not isinstance(runs, Iterable)
    if one:
        raise ConfigError(f"runs must be a list of runs or a mapping {{name: run}}, got one {type(runs).__name__}: give [run]")
    if isinstance(runs, Mapping):
        return (_named(Run.read(source), str(name)) for name, source in runs.items())
    return (Run.read(source) for source in runs)


def _named(run: Run, name: str) -> Run:
    return Run(run.table, source=run.source, name=name, queries=run.queries)


def _top(run: Run, depth: int, ties: str, duplicates: str, index: int) -> pa.Table:
    """``run``'s documents at ranks 1..depth of each query: ``query_id``, ``doc_id``, ``run`` (its index), ``rank``."""
    groups = run.queries
    query = np.empty(len(run), dtype=np.int64)
    query[groups.order] = np.repeat(np.arange(groups.n_queries, dtype=np.int64), groups.rows_per_query)
    scores = run.scores
    rows = np.arange(len(run), dtype=np.int64)
    if ties == "docid":
        tie_key = docid_tie_keys(run)
        # The rows in trec_eval's order of ties (by query, doc id descending, input order among equal ids):
        # a repeated document's rows are adjacent in it, so the repeats are found without sorting again.
        by_document = np.empty(len(run), dtype=np.int64)
        by_document[tie_key] = rows
    else:
        tie_key = rows
        by_document = _rows_by_document(run, query)
    keep, scores = _one_row_per_document(run, query, by_document, scores, duplicates)
    rows, query, scores, tie_key = rows[keep], query[keep], scores[keep], tie_key[keep]
    order = np.lexsort((tie_key, -scores, query))
    query = query[order]
    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]]) if len(query) else np.empty(0, dtype=np.int64)
    counts = np.diff(np.r_[starts, len(query)])
    rank = np.arange(len(query), dtype=np.int64) - np.repeat(starts, counts) + 1
    within = rank <= depth
    taken = pa.array(rows[order][within])
    return pa.table({
        "query_id": _one_type(groups.query_ids.take(pa.array(query[within]))),
        "doc_id": _one_type(run.table["doc_id"].take(taken).combine_chunks()),
        "run": pa.array(np.full(int(within.sum()), index, dtype=np.int64)),
        "rank": pa.array(rank[within]),
    })


def _rows_by_document(run: Run, query: np.ndarray) -> np.ndarray:
    """The rows by query, then doc id, in input order among equal ids (a stable sort)."""
    table = pa.table({"query": query, "doc": run.table["doc_id"]})
    return numpy_view(pc.sort_indices(table, sort_keys=[("query", "ascending"), ("doc", "ascending")])).astype(np.int64)


def _one_row_per_document(
    run: Run, query: np.ndarray, order: np.ndarray, scores: np.ndarray, duplicates: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Which rows rank (a repeated document's first row) and the scores they rank by (``duplicates``' choice).

    ``query``: each row's query code; ``order``: the rows with each query's rows of one document adjacent, in
    input order.
    """
    doc = run.table["doc_id"]
    sorted_doc = doc.take(pa.array(order)).combine_chunks()
    same = np.zeros(len(order), dtype=bool)
    if len(order) > 1:
        sorted_query = query[order]
        same[1:] = (sorted_query[1:] == sorted_query[:-1]) & numpy_view(pc.equal(sorted_doc[1:], sorted_doc[:-1]))
    if not same.any():
        return np.ones(len(order), dtype=bool), scores
    if duplicates == "raise":
        row = int(order[np.flatnonzero(same)].min())
        raise DuplicateError(
            f"document {doc[row].as_py()!r} of query {run.table['query_id'][row].as_py()!r} is retrieved more than once "
            "(run_duplicates='raise'; 'first', 'last' or 'max' keeps one score)",
            source=run.source, row=row + 1, field="doc_id",
        )
    starts = np.flatnonzero(~same)
    ordered_scores = scores[order]
    if duplicates == "first":
        chosen = ordered_scores[starts]
    elif duplicates == "last":
        chosen = ordered_scores[np.r_[starts[1:], len(order)] - 1]
    else:
        chosen = np.maximum.reduceat(ordered_scores, starts)
    keep = np.zeros(len(order), dtype=bool)
    keep[order[starts]] = True
    ranked = scores.copy()
    ranked[order[starts]] = chosen
    return keep, ranked


def _same_kinds(table: pa.Table, other: pa.Table, source: str, other_source: str) -> None:
    for field in ("query_id", "doc_id"):
        if pa.types.is_integer(table[field].type) != pa.types.is_integer(other[field].type):
            raise InputError(
                f"{field}s are {_kind(table[field])} in {source} but {_kind(other[field])} in {other_source}; "
                "convert one side so that both are strings or both integers",
                field=field,
            )


def _one_type(ids: pa.Array) -> pa.Array:
    """Ids as string or int64 whatever their source's type (large_string, int32...), so that runs concatenate and join."""
    return ids.cast(pa.int64() if pa.types.is_integer(ids.type) else pa.string())


def _label(run: Run) -> str:
    return f"run {run.name!r}" if run.name == run.source else f"run {run.name!r} ({run.source})"


def _kind(column: pa.ChunkedArray) -> str:
    return "integers" if pa.types.is_integer(column.type) else "strings"


def _group(pooled: pa.Table, names: list[str]) -> pa.Table:
    """One row per (query, document), by query then document as strings, with its runs in the order given."""
    order = pc.sort_indices(
        pa.table({"q": pooled["query_id"].cast(pa.string()), "d": pooled["doc_id"].cast(pa.string()), "r": pooled["run"]}),
        sort_keys=[("q", "ascending"), ("d", "ascending"), ("r", "ascending")],
    )
    pooled = pooled.take(order)
    n = pooled.num_rows
    query_ids = pooled["query_id"].combine_chunks()
    doc_ids = pooled["doc_id"].combine_chunks()
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = ~(numpy_view(pc.equal(query_ids[1:], query_ids[:-1])) & numpy_view(pc.equal(doc_ids[1:], doc_ids[:-1])))
    starts = np.flatnonzero(new)
    offsets = np.r_[starts, n].astype(np.int32)
    run_names = pa.array(names, pa.string()).take(pooled["run"].combine_chunks())
    ranks = numpy_view(pooled["rank"].combine_chunks())
    best = np.minimum.reduceat(ranks, starts) if n else np.empty(0, dtype=np.int64)
    index = pa.array(starts)
    return pa.table({
        "query_id": query_ids.take(index),
        "doc_id": doc_ids.take(index),
        "runs": pa.ListArray.from_arrays(pa.array(offsets), run_names),
        "best_rank": pa.array(best, pa.int64()),
        "n_runs": pa.array(np.diff(offsets).astype(np.int64)),
    })
