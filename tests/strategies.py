"""Hypothesis strategies shared by the metric tests: several queries per example, with ties,
repeated documents on both sides, unjudged documents and queries that retrieved nothing."""

from __future__ import annotations

import math
import random

import pyarrow as pa
from hypothesis import strategies as st

from retrieval_eval import Metric, Qrels, Run

DOCS = [f"d{i}" for i in range(12)] + ["", "d 1", "é"]
SCORES = [-math.inf, -1.5, 0.0, 0.25, 0.25, 1.0, 2.0, 7.5, math.inf]


@st.composite
def label_scale(draw, low=-3):
    label_min = draw(st.integers(low, 2))
    label_max = draw(st.integers(label_min + 1, label_min + 12))
    return label_min, label_max


@st.composite
def collection(draw, label_min: int, label_max: int, int_ids: bool):
    """{query: (ground_truth rows, retrieved rows)}; every query has ground truth, some retrieved nothing."""
    n_queries = draw(st.integers(1, 6))
    docs = st.integers(0, 14) if int_ids else st.sampled_from(DOCS)
    queries = {}
    for q in range(n_queries):
        gt = draw(st.lists(st.tuples(docs, st.integers(label_min, label_max)), min_size=1, max_size=10))
        ret = draw(st.lists(st.tuples(docs, st.sampled_from(SCORES)), max_size=14))
        queries[q if int_ids else f"q{q}"] = (gt, ret)
    return queries


def tables(queries, shuffle_seed: int | None):
    qrels_rows = [(q, d, label) for q, (gt, _) in queries.items() for d, label in gt]
    run_rows = [(q, d, s) for q, (_, ret) in queries.items() for d, s in ret]
    if shuffle_seed is not None:
        # Shuffle across queries but keep each query's own row order, which ties and duplicates depend on.
        rng = random.Random(shuffle_seed)
        for rows in (qrels_rows, run_rows):
            by_query = {}
            for row in rows:
                by_query.setdefault(row[0], []).append(row)
            pending = {q: iter(r) for q, r in by_query.items()}
            interleaved = [row[0] for row in rows]
            rng.shuffle(interleaved)
            rows[:] = [next(pending[q]) for q in interleaved]
    qrels = pa.table({"query_id": [r[0] for r in qrels_rows], "doc_id": [r[1] for r in qrels_rows],
                      "relevance": pa.array([r[2] for r in qrels_rows], pa.int64())})
    run = pa.table({"query_id": pa.array([r[0] for r in run_rows], qrels["query_id"].type),
                    "doc_id": pa.array([r[1] for r in run_rows], qrels["doc_id"].type),
                    "score": pa.array([r[2] for r in run_rows], pa.float64())})
    return Qrels(qrels), Run(run)


def reads_standard_qrels(definition) -> bool:
    """Whether a registry metric scores qrels in the standard layout, the one these collections are in.

    The measures over judgment groups and preferences read other layouts and have invariant tests of their own.
    """
    from retrieval_eval.metrics.families import FAMILIES

    return "qrels" in FAMILIES[definition.family].judgments


def example_metric(definition, k: int) -> Metric:
    """A metric of ``definition`` at cutoff k, with a value for each parameter it requires (a recall level)."""
    required = tuple((key, "0.5") for key, default in definition.params if default is None)
    return Metric(definition.name, k if definition.cutoff else None, required)
