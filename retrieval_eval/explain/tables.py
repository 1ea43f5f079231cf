"""The tables of an explanation: per query its metric values, each run's top N with labels, the
relevant documents a run missed, and between two runs the documents that entered, left or moved.

Definitions (N = ``top``; "the order" is the one the first metric is computed in: the
:class:`~retrieval_eval.Evaluator`'s tie rule and duplicate policy for that metric's family,
applied by :func:`~retrieval_eval.data.join.rank_run`):

- ``ranked``: a run's distinct documents of a query at ranks 1..N of that order, each with the
  score it was ranked by and its label; an unjudged document has label NaN (a *hole*).
- ``missed``: the documents judged relevant (label >= ``options.rel_level``) for a query that the
  run did not retrieve at any depth (not only outside the top N).
- ``changes`` (two runs): per query, a document in B's top N and not in A's *entered*, one in A's
  and not in B's *left*, one in both at different ranks *moved*.
- ``outcome`` (two runs): for B on the first metric, "win" when B is better (higher, or lower for a
  lower-is-better metric such as holes), "loss" when worse, "tie" when equal, missing (NA) when either is NaN.

Metric values are the Evaluator's, never recomputed here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .. import views
from ..constraints import documents_per_query
from ..data import Qrels, Run
from ..data.join import RankedRun, rank_run
from ..errors import ConfigError
from ..io.label_sources import read_label_sources
from ..io.text_rows import join_text
from ..metrics.evaluator import EvaluationPlan, Evaluator
from ..metrics.names import Metric
from ..metrics.options import EvaluationOptions
from ..metrics.registry import REGISTRY
from ..progress import phase
from .shared import comparison_note, lacking, mean_delta, shared_means

RUNS = ("a", "b")
#: The columns of ``queries`` that are not metrics: a metric asked by one of these names would be lost.
RESERVED = ("query_id", "text", "holes", "missed", "holes_b", "missed_b", "outcome")


@dataclass(frozen=True, eq=False)
class Explanation:
    """What :func:`explain` gives: four pandas tables and what they were made from.

    ``queries``: one row per evaluated query: ``query_id``, ``text`` (None without topics), one
    column per metric of run A (its name as asked), with a run B ``<metric>_b`` and
    ``<metric>_delta`` (B - A) per metric and ``outcome``; ``holes`` (unjudged documents in A's
    top N), ``missed`` (relevant documents A did not retrieve), and ``holes_b``/``missed_b`` with B.
    ``ranked``: ``query_id``, ``run`` ("a"/"b"), ``rank`` (1-based), ``doc_id``, ``score``,
    ``label`` (NaN: a hole), ``title`` (None without document texts), and ``label_source`` when the qrels say
    where their labels came from (``human`` or ``judge:<fingerprint>``: a ``source`` column, or the sidecar of a
    judged TREC file, :mod:`retrieval_eval.io.label_sources`).
    ``missed``: ``query_id``, ``run``, ``doc_id``, ``label``, ``title`` (and ``label_source``).
    ``changes``: ``query_id``, ``doc_id``, ``change``, ``rank_a``, ``rank_b`` (NaN where absent
    from that top N); empty with one run.
    """

    queries: pd.DataFrame
    ranked: pd.DataFrame
    missed: pd.DataFrame
    changes: pd.DataFrame
    metrics: list[str]
    run_names: tuple[str, str | None]
    top: int
    sources: dict[str, str | None] = field(default_factory=dict)
    means: dict[str, dict[str, float]] = field(default_factory=dict)
    higher_is_better: dict[str, bool] = field(default_factory=dict)
    shared_means: dict[str, dict[str, float]] = field(default_factory=dict)
    lacking: dict[str, list] = field(default_factory=dict)

    def mean(self, run: str, metric: str) -> float:
        """Run ``run``'s ("a"/"b") mean of ``metric``: the Evaluator's (``means``) where the explanation has it,
        else the NaN-skipping mean of its column (an explanation built by hand)."""
        value = self.means.get(run, {}).get(metric)
        return float(self.queries[metric + ("_b" if run == "b" else "")].mean()) if value is None else float(value)

    def delta(self, metric: str) -> float:
        """B's mean of ``metric`` minus A's, over the queries where both define it (:mod:`.shared`)."""
        return mean_delta(self.queries, self.shared_means, metric)

    def comparison_note(self) -> str | None:
        """What each run lacks, when a delta is over fewer queries than the table has (None otherwise)."""
        return comparison_note(self.queries, self.metrics, self.lacking) if self.paired else None

    def __repr__(self) -> str:
        return views.explanation_repr(self)

    def _repr_html_(self) -> str:
        return views.explanation_html(self)

    @property
    def paired(self) -> bool:
        """Whether there is a run B."""
        return self.run_names[1] is not None

    def query(self, query_id: Any) -> "QueryExplanation":
        """The rows of one query in each table; a :class:`ConfigError` naming close ids when it is not evaluated."""
        ids = self.queries["query_id"]
        match = ids == _same_kind(query_id, ids)
        if not match.any():
            raise ConfigError(f"query {query_id!r} is not among the {len(ids)} evaluated queries")
        key = ids[match].iloc[0]
        return QueryExplanation(
            self.queries[match].iloc[0],
            *(table[table["query_id"] == key].reset_index(drop=True) for table in (self.ranked, self.missed, self.changes)),
        )


@dataclass(frozen=True, eq=False)
class QueryExplanation:
    """One query's row of ``queries`` and its rows of ``ranked``, ``missed`` and ``changes``."""

    row: pd.Series
    ranked: pd.DataFrame
    missed: pd.DataFrame
    changes: pd.DataFrame


def explain(
    qrels: Any,
    run_a: Any,
    run_b: Any = None,
    metrics: Iterable[str | Metric] | str | None = None,
    *,
    top: int = 20,
    options: EvaluationOptions | None = None,
    topics: Any = None,
    docs: Any = None,
) -> Explanation:
    """Explain an evaluation query by query (see the module's definitions).

    Parameters
    ----------
    qrels, run_a, run_b
        As :class:`~retrieval_eval.Evaluator` and its ``evaluate`` read them (paths, frames,
        tables, ...); ``run_b`` is optional.
    metrics, options
        As for the :class:`~retrieval_eval.Evaluator`; the first metric decides the order shown
        and the outcome.
    top
        N, how many documents of each run are shown per query (>= 1).
    topics, docs
        Query texts and document titles: a path read by
        :func:`~retrieval_eval.io.texts.read_query_texts` /
        :func:`~retrieval_eval.io.texts.read_doc_titles` (only the documents shown are kept), or a
        mapping id -> text.

    Examples
    --------
    >>> explanation = explain("data/qrels.trec", "data/run.trec", "data/run_dense.trec", ["ndcg@10"])  # doctest: +SKIP
    >>> explanation.queries.sort_values("ndcg@10_delta").head(10)  # doctest: +SKIP
    """
    top = documents_per_query("top", top)
    if metrics is None:
        # The Evaluator's default set, less Azure's `holes` (the count of unjudged retrieved documents),
        # whose name is the column of holes in the top N.
        metrics = [name for name, _ in EvaluationPlan.resolve(None, options=options).names if name not in RESERVED]
    evaluator = Evaluator(qrels, metrics, options=options)
    names = [name for name, _ in evaluator.names]
    clashes = [(name, metric) for name, metric in evaluator.names if name in RESERVED]
    if clashes:
        raise _clash(*clashes[0])
    runs = [Run.read(run) for run in (run_a, run_b) if run is not None]
    with phase("scoring the runs", total=len(runs), unit="runs") as scored:
        results = []
        for run in runs:
            results.append(evaluator.evaluate(run))
            scored.step(len(results))
        queries = _metric_table(results, names)
    ties = _tie_order(evaluator)
    evaluated = queries["query_id"]
    with phase(f"listing the top {top} documents of each run ({len(evaluated):,} queries)"):
        ranked = pd.concat(
            [_top_documents(evaluator.qrels, run, top, ties, evaluator.options.run_duplicates, key, evaluated)
             for key, run in zip(RUNS, runs)],
            ignore_index=True,
        )  # fmt: skip
    with phase(f"finding the relevant documents each run missed ({len(evaluated):,} queries)"):
        judged = _judged(evaluator.qrels, evaluator.options.qrels_duplicates)
        missed = pd.concat(
            [_missed(judged, run, evaluator.options.rel_level, key, evaluated) for key, run in zip(RUNS, runs)],
            ignore_index=True,
        )
    for key, suffix in zip(RUNS[: len(runs)], ("", "_b")):
        queries["holes" + suffix] = _count(evaluated, ranked[(ranked["run"] == key) & ranked["label"].isna()])
        queries["missed" + suffix] = _count(evaluated, missed[missed["run"] == key])
    if len(runs) == 2:
        _add_comparison(queries, names, evaluator.names[0][1])
    if len(runs) == 2:
        with phase(f"comparing the two runs' top {top} documents ({len(evaluated):,} queries)"):
            changes = _changes(ranked)
    else:
        changes = _empty_changes(evaluated)
    queries.insert(1, "text", _texts(evaluated, topics))
    # A's metrics, then B's, the deltas and the outcome, then the counts: the order a reader compares in.
    compared = [name + suffix for suffix in ("_b", "_delta") for name in names] + ["outcome"] if len(runs) == 2 else []
    counts = ["holes", "missed"] + (["holes_b", "missed_b"] if len(runs) == 2 else [])
    queries = queries[["query_id", "text", *names, *compared, *counts]]
    titles = _titles(ranked["doc_id"], missed["doc_id"], docs)
    ranked["title"] = _lookup(ranked["doc_id"], titles)
    missed["title"] = _lookup(missed["doc_id"], titles)
    sources = read_label_sources(qrels)
    if sources is not None:
        ranked["label_source"] = _label_sources(ranked, sources)
        missed["label_source"] = _label_sources(missed, sources)
    return Explanation(
        queries, ranked, missed, changes, names,
        (runs[0].name, runs[1].name if len(runs) == 2 else None), top,
        {"qrels": evaluator.qrels.source, "a": runs[0].source, "b": runs[1].source if len(runs) == 2 else None,
         "topics": _label(topics), "docs": _label(docs)},
        {key: {row.metric: row.mean for row in result.rows} for key, result in zip(RUNS, results)},
        {name: REGISTRY.definition(metric).higher_is_better for name, metric in evaluator.names},
        shared_means(queries, evaluator.names, evaluator.plan.geometric_metrics) if len(runs) == 2 else {},
        lacking(*(result.query_ids.to_pandas() for result in results)) if len(runs) == 2 else {},
    )  # fmt: skip


def _clash(name: str, metric: Metric) -> ConfigError:
    """The error for a metric asked by the name of a column of ``queries``: its other names, or that it has none."""
    others = [spelling for spelling in REGISTRY.spellings(metric) if spelling not in RESERVED]
    fix = (f"ask for it as {' or '.join(map(repr, others))}" if others else
           "it has no other name, so explain cannot show it; an Evaluator gives it per query "
           f"(retrieval-eval evaluate -m {name} -o per_query.parquet)")
    return ConfigError(f"the metric {name!r} has the name of a column of the explanation ({', '.join(RESERVED)}): {fix}")


def _tie_order(evaluator: Evaluator) -> str:
    """The tie order the first metric is computed under (its family's, or the options')."""
    first = evaluator.names[0][1]
    return next(ties for _, ties, group in evaluator.plan.groups if first in group)


def _metric_table(results: list, names: list[str]) -> pd.DataFrame:
    """query_id and each metric of A (and of B, suffixed ``_b``); the queries of A, then those only B has."""
    frames = []
    for result, suffix in zip(results, ("", "_b")):
        frame = pd.DataFrame({"query_id": result.query_ids.to_pandas()})
        for name in names:
            frame[name + suffix] = np.asarray(result.values(name), dtype=np.float64)
        frames.append(frame)
    if len(frames) == 1:
        return frames[0]
    a, b = (frame.set_index("query_id") for frame in frames)
    order = a.index.append(b.index[~b.index.isin(a.index)])
    return a.join(b, how="outer").reindex(order).rename_axis("query_id").reset_index()


def _top_documents(
    qrels: Qrels, run: Run, top: int, ties: str, duplicates: str, key: str, evaluated: pd.Series
) -> pd.DataFrame:
    """The top ``top`` documents of each evaluated query of ``run`` in the metrics' order, labelled."""
    labelled = rank_run(qrels, run, duplicates=duplicates, ties=ties)
    rows = _rows_in_rank_order(run, duplicates, ties)
    n = np.minimum(labelled.n_ranked, top)
    query = np.repeat(np.arange(len(n), dtype=np.int64), n)
    before = np.cumsum(n) - n
    rank = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(before, n)
    slots = labelled.offsets[:-1][query] + rank
    row = rows.labels[slots]
    labels = np.where(labelled.judged[slots], labelled.labels[slots].astype(np.float64), np.nan)
    frame = pd.DataFrame(
        {
            "query_id": run.query_ids.take(pa.array(query)).to_pandas(),
            "run": key,
            "rank": rank + 1,
            "doc_id": run.table["doc_id"].take(pa.array(row)).to_pandas(),
            "score": _kept_scores(run, row, duplicates, labelled),
            "label": labels,
        }
    )
    return frame[_among(frame["query_id"], evaluated)].reset_index(drop=True)


def _rows_in_rank_order(run: Run, duplicates: str, ties: str) -> RankedRun:
    """The run's row (of a document's first occurrence) at each rank, as ``labels`` of a :class:`RankedRun`.

    The ranking is :func:`rank_run`'s own: the run is joined against "judgments" whose label of
    each document is the row where the query first retrieves it, so the labels in rank order are
    the rows in rank order, under exactly the tie rule and duplicate policy the metrics used.
    """
    positions = pa.table(
        {
            "query_id": run.table["query_id"],
            "doc_id": run.table["doc_id"],
            "relevance": pa.array(np.arange(len(run), dtype=np.int64)),
        }
    )
    return rank_run(Qrels(positions, source=run.source, duplicates="first"), run, duplicates=duplicates, ties=ties)


def _kept_scores(run: Run, rows: np.ndarray, duplicates: str, ranked: RankedRun) -> np.ndarray:
    """The score each shown document was ranked by: its row's, or under repeats the one ``duplicates`` keeps."""
    scores = np.asarray(run.scores)[rows]
    if not (ranked.retrieved_rows != ranked.n_ranked).any() or duplicates == "first":
        return scores
    frame = pd.DataFrame({"query_id": run.table["query_id"].to_pandas(), "doc_id": run.table["doc_id"].to_pandas(), "score": run.scores})
    kept = frame.groupby(["query_id", "doc_id"], sort=False)["score"].agg("max" if duplicates == "max" else "last")
    shown = pd.MultiIndex.from_arrays(
        [run.table["query_id"].take(pa.array(rows)).to_pandas(), run.table["doc_id"].take(pa.array(rows)).to_pandas()]
    )
    return kept.reindex(shown).to_numpy(dtype=np.float64)


def _judged(qrels: Qrels, duplicates: str) -> pd.DataFrame:
    """One row per judged (query, document) with the label that counts under ``duplicates``."""
    frame = qrels.table.select(["query_id", "doc_id", "relevance"]).to_pandas()
    frame["relevance"] = np.asarray(qrels.labels, dtype=np.float64)
    if duplicates == "max":
        return frame.groupby(["query_id", "doc_id"], sort=False, as_index=False)["relevance"].max()
    return frame.drop_duplicates(["query_id", "doc_id"], keep="first" if duplicates == "first" else "last")


def _missed(judged: pd.DataFrame, run: Run, rel_level: int, key: str, evaluated: pd.Series) -> pd.DataFrame:
    """The relevant judged documents of each evaluated query that ``run`` does not retrieve."""
    relevant = judged[(judged["relevance"] >= rel_level) & _among(judged["query_id"], evaluated)]
    n = len(relevant)
    codes, _ = _pair_codes(
        [relevant["query_id"].to_numpy(), run.table["query_id"]], [relevant["doc_id"].to_numpy(), run.table["doc_id"]]
    )
    missed = relevant[~np.isin(codes[:n], codes[n:])]
    return pd.DataFrame(
        {"query_id": missed["query_id"].to_numpy(), "run": key, "doc_id": missed["doc_id"].to_numpy(),
         "label": missed["relevance"].to_numpy(dtype=np.float64)}
    )  # fmt: skip


def _among(ids: pd.Series, evaluated: pd.Series) -> np.ndarray:
    """Whether each id is an evaluated query's (Arrow's hash lookup: pandas' isin of Arrow strings loops in Python)."""
    found = pc.is_in(_as_text(ids.to_numpy()), value_set=_as_text(evaluated.to_numpy()))
    return found.to_numpy(zero_copy_only=False)


def _count(evaluated: pd.Series, rows: pd.DataFrame) -> np.ndarray:
    """How many of ``rows`` each evaluated query has."""
    return rows.groupby("query_id").size().reindex(evaluated, fill_value=0).to_numpy(dtype=np.int64)


def _add_comparison(queries: pd.DataFrame, names: list[str], first: Metric) -> None:
    """``<metric>_delta`` (B - A) per metric and B's ``outcome`` on the first metric."""
    for name in names:
        queries[name + "_delta"] = queries[name + "_b"] - queries[name]
    delta = queries[names[0] + "_delta"].to_numpy()
    if not REGISTRY.definition(first).higher_is_better:
        delta = -delta
    outcome = np.where(delta > 0, "win", np.where(delta < 0, "loss", "tie")).astype(object)
    outcome[np.isnan(delta)] = None
    queries["outcome"] = outcome


def _changes(ranked: pd.DataFrame) -> pd.DataFrame:
    """Per query the documents that entered, left or moved between A's top N and B's: A's documents
    in A's order, then those that entered B's."""
    in_a = (ranked["run"] == "a").to_numpy()
    codes, n_pairs = _pair_codes([ranked["query_id"].to_numpy()], [ranked["doc_id"].to_numpy()])
    rank_a, rank_b = np.full(n_pairs, np.nan), np.full(n_pairs, np.nan)
    ranks = ranked["rank"].to_numpy(dtype=np.float64)
    rank_a[codes[in_a]], rank_b[codes[~in_a]] = ranks[in_a], ranks[~in_a]
    # Each pair's first row: A's row where A has it (pairs are numbered in order of first appearance).
    first = np.unique(codes, return_index=True)[1]
    a, b = rank_a[codes[first]], rank_b[codes[first]]
    keep = np.isnan(a) | np.isnan(b) | (a != b)
    change = np.where(np.isnan(a), "entered", np.where(np.isnan(b), "left", "moved")).astype(object)
    rows = ranked.iloc[first[keep]]
    return pd.DataFrame(
        {"query_id": rows["query_id"].to_numpy(), "doc_id": rows["doc_id"].to_numpy(), "change": change[keep],
         "rank_a": a[keep], "rank_b": b[keep]}
    )  # fmt: skip


def _pair_codes(query_ids: list[Any], doc_ids: list[Any]) -> tuple[np.ndarray, int]:
    """A code per row for its (query id, doc id) pair, the pieces of each list concatenated, numbered in
    order of first appearance; and how many pairs.

    The key is ``len(query):query:doc`` as text, which no two different pairs share (the length says
    where the query id ends), so one factorization of one column replaces a two-column join.
    """
    queries, docs = (pa.chunked_array([_as_text(piece) for piece in pieces], pa.string()) for pieces in (query_ids, doc_ids))
    key = join_text([pc.utf8_length(queries), queries, docs], ":")
    # Arrow's hash of the strings, not pandas' of Python objects made from them (2x faster at 4M rows); the
    # chunks of a chunked column share one dictionary, numbered in order of first appearance as factorize does.
    encoded = pc.dictionary_encode(key)
    chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
    if not chunks:
        return np.empty(0, dtype=np.intp), 0
    codes = np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in chunks]).astype(np.intp)
    return codes, len(chunks[-1].dictionary)


def _as_text(piece: Any) -> pa.Array:
    """An id column (numpy, or Arrow) as Arrow strings: integers as their decimal text."""
    if isinstance(piece, pa.ChunkedArray):
        piece = piece.combine_chunks()
    return (piece if isinstance(piece, pa.Array) else pa.array(piece)).cast(pa.string())


def _empty_changes(evaluated: pd.Series) -> pd.DataFrame:
    return pd.DataFrame(
        {"query_id": evaluated.iloc[:0].to_numpy(), "doc_id": pd.Series([], dtype=object), "change": pd.Series([], dtype=object),
         "rank_a": np.empty(0), "rank_b": np.empty(0)}
    )  # fmt: skip


def _texts(evaluated: pd.Series, topics: Any) -> pd.Series:
    """Each evaluated query's text, None where there is none."""
    if topics is None:
        return pd.Series([None] * len(evaluated), dtype=object)
    if not isinstance(topics, Mapping):
        from ..io.texts import read_query_texts

        topics = read_query_texts(topics)
    return _lookup(evaluated, topics)


def _titles(ranked: pd.Series, missed: pd.Series, docs: Any) -> Mapping[Any, str]:
    """The titles (or texts) of the shown documents (ranked or missed)."""
    if docs is None:
        return {}
    if isinstance(docs, Mapping):
        return docs
    from ..io.texts import read_doc_titles

    return read_doc_titles(docs, pd.concat([ranked, missed], ignore_index=True).unique())


def _label_sources(rows: pd.DataFrame, sources: pa.Table) -> np.ndarray:
    """Where each row's label came from (``human``, ``judge:<fingerprint>``; None for a hole)."""
    keys = pa.table({"query_id": _as_text(rows["query_id"].to_numpy()), "doc_id": _as_text(rows["doc_id"].to_numpy()),
                     "row": pa.array(np.arange(len(rows), dtype=np.int64))})
    found = keys.join(sources, ["query_id", "doc_id"], join_type="left outer").sort_by("row")
    source = np.asarray(found["source"].to_pylist(), dtype=object)
    source[rows["label"].isna().to_numpy()] = None
    return source


def _lookup(ids: pd.Series, texts: Mapping[Any, str]) -> pd.Series:
    """``texts`` of ``ids`` by id (ids compared as text, so that ``7`` finds ``"7"``), None where absent."""
    if not texts:
        return pd.Series([None] * len(ids), dtype=object)
    by_text = pd.Series(list(texts.values()), index=pd.Index([str(key) for key in texts]), dtype=object)
    found = by_text.reindex(ids.astype(str).to_numpy()).to_numpy(dtype=object, copy=True)
    found[pd.isna(found)] = None
    return pd.Series(found, dtype=object)


def _same_kind(query_id: Any, ids: pd.Series) -> Any:
    """``query_id`` as the kind of the ids (an id typed on the command line is text)."""
    if pd.api.types.is_integer_dtype(ids) and isinstance(query_id, str) and query_id.lstrip("-").isdigit():
        return int(query_id)
    return str(query_id) if not pd.api.types.is_integer_dtype(ids) else query_id


def _label(source: Any) -> str | None:
    return None if source is None else (str(source) if not isinstance(source, Mapping) else "<mapping>")
