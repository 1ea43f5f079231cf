"""Regenerate the bundled sample (run from the repository root: python data/make_sample.py)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.workload import (  # noqa: E402
    make_workload,
    second_retriever,
    write_azure_jsonl,
    write_texts,
    write_trec,
    write_trec_run,
)

if __name__ == "__main__":
    workload = make_workload(25, seed=7, retrieved=(10, 20), judged_per_query=8)
    write_trec(workload, HERE / "qrels.trec", HERE / "run.trec")
    workload.qrels.to_parquet(HERE / "qrels.parquet", index=False)
    workload.run.to_parquet(HERE / "run.parquet", index=False)
    write_azure_jsonl(workload, HERE / "azure_rows.jsonl")
    # A dense retriever's run of the same queries, to fuse with run.trec (hybrid search).
    dense = second_retriever(workload)
    write_trec_run(dense, HERE / "run_dense.trec", tag="dense")
    # Query and document texts, for a judge (retrieval-eval judge) and for explain's titles.
    write_texts(workload, [workload.run, dense], HERE / "topics.tsv", HERE / "docs.jsonl")
