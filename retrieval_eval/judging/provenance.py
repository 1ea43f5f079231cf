"""Judgments with where each label came from: people (``"human"``) or a judge (``"judge:<fingerprint>"``).

A table of labelled judgments has the columns ``query_id``, ``doc_id``, ``relevance``, ``source``.
Written as a table (``.tsv``, ``.csv``, ``.jsonl``, ``.json``, ``.parquet``) it keeps ``source``
as a column; written as TREC qrels text, which has no column for it, the sources go to a sidecar
file beside it, ``<output>.sources.tsv`` (a header ``query_id<TAB>doc_id<TAB>source`` and one line
per label, in the qrels' order); :mod:`retrieval_eval.io.label_sources` reads either. A judge's
description (model, prompt, parameters) and the run's totals go to ``<output>.judge.json``.

Merging: a (query, document) that people judged keeps their label, whatever a judge said
(:func:`merge_labels`); a judge's label only fills a hole.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..io import read_qrels_table, write_table
from ..io.atomic import atomic_write
from ..io.label_sources import SOURCES_SUFFIX, is_table_path, is_trec_path, read_sources_sidecar, source_column
from ..pooling import write_qrels

HUMAN = "human"
JUDGE_PREFIX = "judge:"
LABELLED_COLUMNS = ("query_id", "doc_id", "relevance", "source")
JUDGE_SUFFIX = ".judge.json"


def judge_source(fingerprint: str) -> str:
    """The ``source`` of a label given by the judge of ``fingerprint``."""
    return f"{JUDGE_PREFIX}{fingerprint}"


def human_labels(qrels: Any, columns: Mapping[str, str] | None = None) -> pa.Table:
    """``qrels`` as labelled judgments: every label's source is ``"human"``, unless the input names its sources
    (a ``source`` column, or the sidecar of a TREC file this module wrote). ``columns``: as
    :func:`~retrieval_eval.io.read_qrels_table` takes it."""
    table = read_qrels_table(qrels, columns=columns)
    ids = {name: _one_type(table[name]) for name in ("query_id", "doc_id")}
    relevance = table["relevance"].combine_chunks().cast(pa.int64())
    if is_trec_path(qrels):
        sidecar = read_sources_sidecar(os.fspath(qrels) + SOURCES_SUFFIX)
        source = _keyed_sources(ids, sidecar) if sidecar is not None else None
    else:
        source = source_column(qrels)
    if source is None:
        source = pa.array([HUMAN] * table.num_rows, pa.string())
    return pa.table({**ids, "relevance": relevance, "source": pc.fill_null(source, HUMAN)})


def _keyed_sources(ids: Mapping[str, pa.Array], sources: pa.Table) -> pa.Array:
    """The source of each (query, document) of ``ids`` in ``sources`` (null where it names none)."""
    keys = pa.table({"query_id": ids["query_id"].cast(pa.string()), "doc_id": ids["doc_id"].cast(pa.string()),
                     "row": pa.array(range(len(ids["query_id"])), pa.int64())})
    found = keys.join(sources, ["query_id", "doc_id"], join_type="left outer").sort_by("row")
    return found["source"].combine_chunks()


def merge_labels(human: pa.Table, judged: pa.Table) -> pa.Table:
    """Every label of ``human`` unchanged, plus the judge's labels of pairs ``human`` lacks; by query id, then doc id."""
    fresh = judged.join(human.select(["query_id", "doc_id"]), ["query_id", "doc_id"], join_type="left anti")
    merged = pa.concat_tables([human, fresh.select(list(LABELLED_COLUMNS)).cast(human.schema)])
    order = pc.sort_indices(pa.table({"q": merged["query_id"].cast(pa.string()), "d": merged["doc_id"].cast(pa.string())}),
                            sort_keys=[("q", "ascending"), ("d", "ascending")])
    return merged.take(order)


def write_labels(labels: pa.Table, path: str | os.PathLike[str], *, judge: Mapping[str, Any] | None = None,
                 inputs: Iterable[str | os.PathLike[str]] = ()) -> list[str]:
    """Write labelled judgments to ``path`` (see the module); returns the paths written (sidecars first)."""
    target = os.fspath(path)
    inputs = list(inputs)
    written = []
    if judge is not None:
        text = json.dumps(judge, indent=2, sort_keys=True, default=str) + "\n"
        atomic_write(target + JUDGE_SUFFIX, lambda temp: Path(temp).write_text(text, encoding="utf-8"), inputs=inputs)
        written.append(target + JUDGE_SUFFIX)
    if is_table_path(target):
        write_table(labels, target, inputs=inputs)
    else:
        sources = labels.select(["query_id", "doc_id", "source"])
        write_table(sources, target + SOURCES_SUFFIX, format="tsv", inputs=inputs)
        written.append(target + SOURCES_SUFFIX)
        write_qrels(labels.select(["query_id", "doc_id", "relevance"]), target, inputs=inputs)
    return [*written, target]


def _one_type(column: pa.ChunkedArray) -> pa.Array:
    column = column.combine_chunks()
    return column.cast(pa.int64() if pa.types.is_integer(column.type) else pa.string())
