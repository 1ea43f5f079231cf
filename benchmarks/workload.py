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
                    {"document_id": d, "query_relevance_label": int(label)} for d, label in zip(judged["doc_id"], judged["relevance"])
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
    write_trec_run(workload.run, run_path, tag="sample")


def write_trec_run(run: pd.DataFrame, path: Path, *, tag: str) -> None:
    """``run`` (rows in rank order per query) as a TREC run file: ``query Q0 doc rank score tag``."""
    rank = run.groupby("query_id", sort=False).cumcount() + 1
    pd.DataFrame({"q": run["query_id"], "Q0": "Q0", "d": run["doc_id"], "rank": rank, "s": run["score"], "tag": tag}).to_csv(
        path, sep=" ", header=False, index=False
    )


def write_azure_jsonl(workload: Workload, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for row in workload.azure_rows():
            out.write(json.dumps(row) + "\n")


_TOPICS = ("travel insurance claims", "vacation carry-over rules", "expense approval limits", "home office equipment",
           "parental leave", "meal allowance abroad", "pension contributions", "security badge renewal")


def write_texts(workload: Workload, runs: list[pd.DataFrame], topics_path: Path, docs_path: Path) -> None:
    """Query texts (TSV ``query_id<TAB>text``) and document texts (JSONL ``doc_id``, ``title``, ``text``) of every
    query and of every document judged or retrieved by ``runs``: made-up words, enough for a judge to read."""
    queries = sorted(workload.qrels["query_id"].unique(), key=lambda q: int(str(q)[1:]))
    topic_of = {query: _TOPICS[number % len(_TOPICS)] for number, query in enumerate(queries)}
    with open(topics_path, "w", encoding="utf-8") as out:
        out.write("query_id\ttext\n")
        for query in queries:
            out.write(f"{query}\twhat does the policy say about {topic_of[query]} ({query})\n")
    pairs = pd.concat([workload.qrels[["query_id", "doc_id"]], *(run[["query_id", "doc_id"]] for run in runs)])
    pairs = pairs.drop_duplicates("doc_id").sort_values("doc_id")
    with open(docs_path, "w", encoding="utf-8") as out:
        for query, doc in zip(pairs["query_id"], pairs["doc_id"]):
            topic = topic_of[query]
            record = {"doc_id": doc, "title": f"{topic.capitalize()} ({doc})",
                      "text": f"Section {doc[-3:]} of the handbook on {topic}: who it applies to, the limits, and whom "
                              f"to ask about {topic}."}
            out.write(json.dumps(record) + "\n")


def second_retriever(workload: Workload, *, seed: int = 1) -> pd.DataFrame:
    """A second run of the same queries, as a dense retriever beside a keyword one would give.

    Each query ranks the union of the run's documents and its judged documents by a noisy key
    that rises with the label (``normal + 0.25 * label``, unjudged label 0) and keeps as many as the
    run has, so the two runs overlap in part and each finds relevant documents the other misses.
    Scores are cosine-like, in (0, 1), rounded to 3 decimals (a few ties). Queries in the run's
    order, each query's rows in rank order.
    """
    rng = np.random.default_rng(seed)
    run, qrels = workload.run, workload.qrels
    candidates = pd.concat([run[["query_id", "doc_id"]], qrels[["query_id", "doc_id"]]]).drop_duplicates()
    candidates = candidates.merge(qrels, on=["query_id", "doc_id"], how="left")
    label = candidates["relevance"].fillna(0).to_numpy(dtype=np.float64)
    candidates["key"] = rng.normal(size=len(candidates)) + 0.25 * label
    candidates["query"] = candidates["query_id"].map({query: code for code, query in enumerate(run["query_id"].unique())})
    candidates = candidates.sort_values(["query", "key"], ascending=[True, False], kind="stable")
    depth = candidates["query_id"].map(run.groupby("query_id").size())
    rank = candidates.groupby("query_id", sort=False).cumcount()
    kept = candidates[rank < depth]
    key = kept["key"].to_numpy()
    score = np.round(1.0 / (1.0 + np.exp(-key / 2.0)), 3)
    return pd.DataFrame({"query_id": kept["query_id"].to_numpy(), "doc_id": kept["doc_id"].to_numpy(), "score": score})


def _ids(prefix: str, numbers: np.ndarray) -> np.ndarray:
    return np.char.add(prefix, numbers.astype(str)).astype(object)


# TREC Deep Learning track shape: 43 queries (DL 2019), runs of depth 100 or 1000, graded labels
# 0..3, a judgment pool drawn mostly from the top of the runs.
DL_LABEL_PROBABILITIES = (0.55, 0.20, 0.15, 0.10)
DL_POOL_DEPTH = 100  # retrieved documents at ranks below this are judged more often


def make_trec_dl_workload(n_queries: int = 43, *, depth: int = 1000, seed: int = 0) -> Workload:
    """A fixed-seed run shaped like a TREC DL submission, and its qrels.

    Every query retrieves exactly ``depth`` distinct documents, rows in rank order (score
    descending). A retrieved document is judged with probability 0.6 above rank
    ``DL_POOL_DEPTH`` and 0.12 below it; 20-99 judged documents per query were not retrieved.
    Labels 0..3 (probabilities ``DL_LABEL_PROBABILITIES``); the higher a document's label, the
    higher it tends to rank. Query and document ids are digit strings, as MS MARCO's are (so
    string order, which decides ties, differs from numeric order). Scores are multiples of 0.25
    below 2^10, exactly representable in float32, with about one tied neighbour in ten.

    ``top(k)`` of the workload truncates the run to each query's first ``k`` documents.
    """
    rng = np.random.default_rng(seed)
    query_numbers = 1_000_000 + rng.choice(9_000_000, size=n_queries, replace=False)
    base = rng.integers(0, 8_000_000, size=n_queries)
    labels = rng.choice(len(DL_LABEL_PROBABILITIES), size=(n_queries, depth), p=DL_LABEL_PROBABILITIES)
    judge_probability = np.where(np.arange(depth) < DL_POOL_DEPTH, 0.6, 0.12)
    judged = rng.random((n_queries, depth)) < judge_probability[None, :]
    labels = np.where(judged, labels, 0)
    # Rank by a noisy key that rises with the label; document p of query q is base[q] + 7p.
    key = rng.normal(size=(n_queries, depth)) + 0.8 * labels
    order = np.argsort(-key, axis=1, kind="stable")
    ranked_doc = base[:, None] + 7 * order
    score = np.floor(0.9 * (depth - np.arange(depth))) / 4.0
    run = pd.DataFrame({
        "query_id": np.repeat(query_numbers, depth).astype(str).astype(object),
        "doc_id": ranked_doc.ravel().astype(str).astype(object),
        "score": np.tile(score, n_queries),
    })

    # Judged but not retrieved: base[q] + 7j + 3, never a retrieved id.
    n_unretrieved = rng.integers(20, 100, size=n_queries)
    un_query = np.repeat(np.arange(n_queries), n_unretrieved)
    un_slot = np.arange(len(un_query)) - np.repeat(np.cumsum(n_unretrieved) - n_unretrieved, n_unretrieved)
    judged_query, judged_position = np.nonzero(judged)
    qrels_query = np.concatenate([judged_query, un_query])
    qrels_doc = np.concatenate([base[judged_query] + 7 * judged_position, base[un_query] + 7 * un_slot + 3])
    qrels_label = np.concatenate([labels[judged_query, judged_position],
                                  rng.choice(len(DL_LABEL_PROBABILITIES), size=len(un_query), p=DL_LABEL_PROBABILITIES)])
    by_query = np.argsort(qrels_query, kind="stable")
    qrels = pd.DataFrame({
        "query_id": query_numbers[qrels_query[by_query]].astype(str).astype(object),
        "doc_id": qrels_doc[by_query].astype(str).astype(object),
        "relevance": qrels_label[by_query].astype(np.int64),
    })
    return Workload(qrels, run)


def top(workload: Workload, k: int) -> Workload:
    """The same qrels with each query's run cut to its first ``k`` rows (the run in rank order)."""
    rank = workload.run.groupby("query_id", sort=False).cumcount()
    return Workload(workload.qrels, workload.run[rank < k].reset_index(drop=True))
