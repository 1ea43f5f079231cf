"""Judge-filled holes: a judge labels exactly the unjudged documents in the top K of the runs.

The documents judged are the pool of :func:`~retrieval_eval.pooling.pool_table` (every document
in the top ``depth`` of any run, ranked as trec_eval ranks it, minus what the qrels already
judge): one request per (query, document), with the query's text and the document's text. The
labels come back merged with the human ones (:func:`~.provenance.merge_labels`): a human label is
never changed, and every label says where it came from. After it, ``holes@K`` is 0 for every
judged run, except at the items whose judgment errored, which are listed (never given a label).

Texts: ``topics`` and ``docs`` are what ``explain`` reads (:func:`~retrieval_eval.io.texts.read_query_texts`,
:func:`~retrieval_eval.io.texts.read_doc_texts`: TREC topics, JSONL, TSV, parquet), or mappings
``{id: text}``. A pooled query or document without a text, or with an empty one, is an error
naming it (and how many more) before any request is sent.

To check a judge against people, :func:`judge_judged` has it label pairs that people judged already
(all of them or a sample), for :func:`~retrieval_eval.judging.label_agreement`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ConfigError, InputError
from ..metrics.options import EvaluationOptions
from ..pooling import pool_table
from .judge import Judge
from .outcomes import Judgments, Totals
from .prompts import RELEVANCE, RELEVANCE_PARAMS, RELEVANCE_SCALE
from .provenance import HUMAN, LABELLED_COLUMNS, human_labels, judge_source, merge_labels
from .replies import LabelParser
from .settings import JudgeSettings

TextSource = str | os.PathLike[str] | Mapping[Any, str]


@dataclass(frozen=True)
class FilledQrels:
    """What :func:`judge_holes` gives: ``labels`` (``query_id``, ``doc_id``, ``relevance``, ``source``: the human
    labels unchanged and the judge's), ``judged`` (the judge's labels alone), ``errors`` (``query_id``, ``doc_id``,
    ``error`` of every pooled pair left unlabelled), the run's ``totals`` and the judge's ``fingerprint`` and
    ``description``."""

    labels: pa.Table
    judged: pa.Table
    errors: pa.Table
    totals: Totals
    fingerprint: str
    description: dict[str, Any]

    def summary(self) -> dict[str, Any]:
        """The judge and the run's counts, as written beside the labels."""
        return {"fingerprint": self.fingerprint, "judge": self.description, "totals": self.totals.to_dict(),
                "labels": self.labels.num_rows, "judged": self.judged.num_rows, "errors": self.errors.num_rows}


def relevance_judge(settings: JudgeSettings, scale: tuple[int, int] = RELEVANCE_SCALE) -> Judge:
    """The built-in relevance judge: :data:`~.prompts.RELEVANCE` on ``settings``' backend, the label read from the
    reply's ``label`` field on ``scale`` (0-3 by default)."""
    low, high = scale
    return settings.judge(RELEVANCE, RELEVANCE_PARAMS, LabelParser("label", low, high), scale=list(scale))


def judge_holes(
    qrels: Any,
    runs: Iterable[Any] | Mapping[str, Any],
    depth: int,
    *,
    topics: TextSource,
    docs: TextSource,
    settings: JudgeSettings,
    judge: Judge | None = None,
    options: EvaluationOptions | None = None,
    qrels_columns: Mapping[str, str] | None = None,
) -> FilledQrels:
    """Label the unjudged documents of the top ``depth`` of ``runs`` with ``judge`` (default :func:`relevance_judge`).

    Parameters
    ----------
    qrels
        The human judgments (anything :func:`~retrieval_eval.io.read_qrels_table` reads). A file this
        function wrote before keeps its sources: its judge labels count as judged and stay as they are.
    qrels_columns
        Canonical name -> column name of a qrels table, where the default names do not find it.
    runs, depth, options
        The pool, as :func:`~retrieval_eval.pooling.pool` builds it (ties and duplicates from ``options``).
    topics, docs
        The texts of the queries and the documents (see the module).
    settings
        The endpoint, cache, limits, retries and budget (:class:`~.settings.JudgeSettings`).
    """
    judge = judge or relevance_judge(settings)
    human, pooled, items, keys = _pooled_items(qrels, runs, depth, topics, docs, options, qrels_columns)
    judgments = settings.run(judge, items, keys=keys)
    return _filled(human, pooled, judgments)


def judge_judged(
    qrels: Any,
    *,
    topics: TextSource,
    docs: TextSource,
    settings: JudgeSettings,
    judge: Judge | None = None,
    sample: int | None = None,
    seed: int = 0,
    qrels_columns: Mapping[str, str] | None = None,
) -> FilledQrels:
    """The judge's labels of pairs people already judged, to check it against them (:func:`~.agreement.label_agreement`).

    Every judged (query, document) of ``qrels``, or ``sample`` of them drawn uniformly without replacement
    with ``seed`` (in query, then document order). ``labels`` and ``judged`` hold the judge's labels only
    (``source`` its fingerprint): the human ones are the qrels themselves. ``qrels_columns``: as for :func:`judge_holes`.
    """
    judge = judge or relevance_judge(settings)
    human = human_labels(qrels, qrels_columns)
    pairs = human.filter(pc.equal(human["source"], HUMAN)).select(["query_id", "doc_id"])
    if sample is not None:
        if isinstance(sample, bool) or not isinstance(sample, int) or sample < 1:
            raise ConfigError(f"sample must be a positive number of pairs, got {sample!r}")
        chosen = np.sort(np.random.default_rng(seed).choice(pairs.num_rows, min(sample, pairs.num_rows), replace=False))
        pairs = pairs.take(pa.array(chosen))
    items, keys = _items(pairs, topics, docs)
    judgments = settings.run(judge, items, keys=keys)
    filled = _filled(human.slice(0, 0), pairs, judgments)
    return replace(filled, labels=filled.judged)


def pool_requests(qrels: Any, runs: Iterable[Any] | Mapping[str, Any], depth: int, *, topics: TextSource,
                  docs: TextSource, judge: Judge, options: EvaluationOptions | None = None,
                  qrels_columns: Mapping[str, str] | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The request bodies :func:`judge_holes` would send (before the cache), and the items' keys."""
    _, _, items, keys = _pooled_items(qrels, runs, depth, topics, docs, options, qrels_columns)
    return [judge.body(item, key) for item, key in zip(items, keys)], keys


def _pooled_items(qrels: Any, runs: Iterable[Any] | Mapping[str, Any], depth: int, topics: TextSource,
                  docs: TextSource, options: EvaluationOptions | None, qrels_columns: Mapping[str, str] | None
                  ) -> tuple[pa.Table, pa.Table, list[dict[str, str]], list[str]]:
    """The human labels, the pool, and per pooled (query, document) its texts and its key."""
    human = human_labels(qrels, qrels_columns)
    pooled = pool_table(runs, depth, qrels=human.select(["query_id", "doc_id", "relevance"]), options=options)
    items, keys = _items(pooled, topics, docs)
    return human, pooled, items, keys


def _items(pairs: pa.Table, topics: TextSource, docs: TextSource) -> tuple[list[dict[str, str]], list[str]]:
    """Per (query, document) of ``pairs`` its texts (the judge's item) and its key."""
    query_ids = [str(value) for value in pairs["query_id"].to_pylist()]
    doc_ids = [str(value) for value in pairs["doc_id"].to_pylist()]
    query_texts = _texts(topics, set(query_ids), "topics", "query", reader="query")
    doc_texts = _texts(docs, set(doc_ids), "docs", "document", reader="doc")
    items = [{"query": query_texts[q], "document": doc_texts[d]} for q, d in zip(query_ids, doc_ids)]
    return items, [f"query {q} doc {d}" for q, d in zip(query_ids, doc_ids)]


def _texts(source: TextSource, wanted: set[str], name: str, what: str, *, reader: str) -> dict[str, str]:
    """The texts of the ``wanted`` ids; an id without a text is an error naming it and the source."""
    if isinstance(source, Mapping):
        texts = {str(key): value for key, value in source.items()}
        label = f"the {name} mapping"
    else:
        from ..io.texts import read_doc_texts, read_query_texts

        texts = read_query_texts(source) if reader == "query" else read_doc_texts(source, wanted)
        label = os.fspath(source)
    missing = sorted(wanted - texts.keys())
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise InputError(f"{what} {missing[0]!r}{more} of the pool has no text; each pooled {what} needs one",
                         source=label, field=name)
    for key in sorted(wanted):
        text = texts[key]
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"the text of {what} {key!r} is empty; an empty text cannot be judged", source=label,
                             field=name)
    return texts


def _filled(human: pa.Table, pooled: pa.Table, judgments: Judgments) -> FilledQrels:
    ok = [item.ok for item in judgments.items]
    labelled = pooled.filter(pa.array(ok, pa.bool_()))
    judged = pa.table({
        "query_id": labelled["query_id"].cast(human["query_id"].type),
        "doc_id": labelled["doc_id"].cast(human["doc_id"].type),
        "relevance": pa.array([item.value for item in judgments.items if item.ok], pa.int64()),
        "source": pa.array([judge_source(judgments.fingerprint)] * labelled.num_rows, pa.string()),
    }).select(list(LABELLED_COLUMNS))
    failed = pooled.filter(pa.array([not flag for flag in ok], pa.bool_()))
    errors = pa.table({"query_id": failed["query_id"].cast(pa.string()), "doc_id": failed["doc_id"].cast(pa.string()),
                       "error": pa.array([item.error for item in judgments.items if not item.ok], pa.string())})
    return FilledQrels(merge_labels(human, judged), judged, errors, judgments.totals, judgments.fingerprint,
                       judgments.judge)
