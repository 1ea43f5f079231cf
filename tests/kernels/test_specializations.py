"""Every kind of input reaches the kernels with the same array types, so each kernel compiles once
(a second specialization would cost seconds of compilation on the first large input)."""

from __future__ import annotations

from pathlib import Path

import numba
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import retrieval_eval as rev
from retrieval_eval.azure import DocumentRetrievalEvaluator
from retrieval_eval.kernels import docret, grouping, hashing, judgments, ranking

DATA = Path(__file__).resolve().parents[2] / "data"
KERNELS = [ranking.rank_and_label, judgments.index_judgments, docret.document_retrieval_metrics,
           hashing.fnv1a_hashes, grouping.segment_starts]


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no compilation without the JIT")
def test_one_specialization_per_kernel(tmp_path):
    rev.evaluate(DATA / "qrels.trec", DATA / "run.trec")
    rev.evaluate(DATA / "qrels.parquet", DATA / "run.parquet")
    # Multi-chunk columns are copied by Arrow (writable) where single chunks are zero-copy views.
    run = pq.read_table(DATA / "run.parquet")
    pq.write_table(run, tmp_path / "run.parquet", row_group_size=50)
    rev.evaluate(DATA / "qrels.trec", tmp_path / "run.parquet")
    rev.evaluate(pd.read_parquet(DATA / "qrels.parquet"), pa.concat_tables([run.slice(0, 100), run.slice(100)]))
    ints = pd.DataFrame({"query_id": [1, 2], "doc_id": [3, 4], "relevance": [1, 0]})
    rev.evaluate(ints, ints.rename(columns={"relevance": "score"}).astype({"score": float}))
    DocumentRetrievalEvaluator().evaluate_table(DATA / "azure_rows.jsonl")
    DocumentRetrievalEvaluator()(retrieval_ground_truth=[{"document_id": 1, "query_relevance_label": 1}], retrieved_documents=[])
    for kernel in KERNELS:
        for build in (kernel.serial, kernel.parallel):
            assert len(build.signatures) <= 1, (kernel.__name__, build.signatures)
