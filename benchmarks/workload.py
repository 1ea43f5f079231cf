"""Fixed-seed synthetic workloads: qrels and runs shaped like real retrieval logs.

Each query retrieves 50-100 distinct documents with float scores (a few ties) and has about 20
judged documents with labels 0..4, about half of which were retrieved. Ids are strings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Workload:
    qrels: pd.DataFrame
    run: pd.DataFrame

    def azure_rows(self) -> list[dict]:
        """One Azure-style row per query (``retrieval_ground_truth`` + ``retrieved_documents``)."""
        truth = {q: g for q, g in self.qrels.groupby("query_id", sort=False)}
        rows = []
        for query, group in self.run.groupby("query_id", sort=False):
            judged = truth[query]
            rows.append({
                "query_id": query,
                "retrieval_ground_truth": [
                    {"document_id": d, "query_relevance_label": int(l)} for d, l in zip(judged["doc_id"], judged["relevance"])
                ],
                "retrieved_documents": [
                    {"document_id": d, "relevance_score": float(s)} for d, s in zip(group["doc_id"], group["score"])
                ],
            })
        return rows


def make_workload(n_queries: int, *, seed: int = 0, judged_per_query: int = 20, retrieved=(50, 100)) -> Workload:
    """A fixed-seed workload of ``n_queries`` queries (vectorised; 100k queries take about a second)."""
    rng = np.random.default_rng(seed)
    n_retrieved = rng.integers(retrieved[0], retrieved[1] + 1, size=n_queries)
    run_query = np.repeat(np.arange(n_queries), n_retrieved)
    # Distinct docs per query: a per-query offset into a large id space plus a rank-dependent stride.
    rank = np.arange(len(run_query)) - np.repeat(np.cumsum(n_retrieved) - n_retrieved, n_retrieved)
    base = rng.integers(0, 10_000_000, size=n_queries)
    run_doc = np.repeat(base, n_retrieved) + rank * 7
    # Scores: descending by rank with noise, rounded so that some ties occur.
    score = np.round(100.0 - rank + rng.normal(0, 3, size=len(rank)), 1)

    judged_query = np.repeat(np.arange(n_queries), judged_per_query)
    slot = np.tile(np.arange(judged_per_query), n_queries)
    from_run = slot % 2 == 0  # about half the judged documents were retrieved
    run_rank = rng.integers(0, retrieved[0], size=len(slot))
    judged_doc = np.where(from_run, base[judged_query] + run_rank * 7, base[judged_query] + 1 + slot * 7)
    label = rng.choice(5, size=len(slot), p=[0.4, 0.25, 0.15, 0.12, 0.08])
    qrels = pd.DataFrame({"query_id": _ids("q", judged_query), "doc_id": _ids("doc", judged_doc), "relevance": label})
    qrels = qrels.drop_duplicates(["query_id", "doc_id"], keep="last").reset_index(drop=True)
    run = pd.DataFrame({"query_id": _ids("q", run_query), "doc_id": _ids("doc", run_doc), "score": score})
    return Workload(qrels, run)


def write_trec(workload: Workload, qrels_path: Path, run_path: Path) -> None:
    q = workload.qrels
    pd.DataFrame({"q": q["query_id"], "it": 0, "d": q["doc_id"], "r": q["relevance"]}).to_csv(
        qrels_path, sep=" ", header=False, index=False
    )
    r = workload.run
    rank = r.groupby("query_id", sort=False).cumcount() + 1
    pd.DataFrame({"q": r["query_id"], "Q0": "Q0", "d": r["doc_id"], "rank": rank, "s": r["score"], "tag": "sample"}).to_csv(
        run_path, sep=" ", header=False, index=False
    )


def write_azure_jsonl(workload: Workload, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for row in workload.azure_rows():
            out.write(json.dumps(row) + "\n")


def _ids(prefix: str, numbers: np.ndarray) -> np.ndarray:
    return np.char.add(prefix, numbers.astype(str)).astype(object)
