"""Regenerate the bundled sample (run from the repository root: python data/make_sample.py)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.workload import make_workload, second_retriever, write_azure_jsonl, write_trec, write_trec_run  # noqa: E402

if __name__ == "__main__":
    workload = make_workload(25, seed=7, retrieved=(10, 20), judged_per_query=8)
    write_trec(workload, HERE / "qrels.trec", HERE / "run.trec")
    workload.qrels.to_parquet(HERE / "qrels.parquet", index=False)
    workload.run.to_parquet(HERE / "run.parquet", index=False)
    write_azure_jsonl(workload, HERE / "azure_rows.jsonl")
    # A dense retriever's run of the same queries, to fuse with run.trec (hybrid search).
    write_trec_run(second_retriever(workload), HERE / "run_dense.trec", tag="dense")
