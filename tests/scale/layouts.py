"""Random collections, the ways a run can be laid out in parquet files, and the comparison with evaluate().

Whatever the layout, the run is the concatenation of its files in order, so the in-memory
:func:`evaluate` of that concatenation is the oracle.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from retrieval_eval.scale import budget

LAYOUTS = ("sorted_split_mid_query", "whole_queries_per_file", "shuffled")
TREC_METRICS = ["ndcg_cut@10", "map", "P@5", "recall@10", "recip_rank", "Rprec", "gm_map", "bpref"]


def assert_same(streamed, expected) -> None:
    """The same per-query rows (in any order) and exactly the same summary and counts."""
    got = streamed.read_per_query().sort_values("query_id", ignore_index=True)
    want = expected.per_query.sort_values("query_id", ignore_index=True)
    got["query_id"] = got["query_id"].astype(want["query_id"].dtype)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    pd.testing.assert_frame_equal(streamed.summary, expected.summary, check_exact=True)
    assert streamed.query_counts == expected.query_counts
    assert streamed.passed == expected.passed


def random_collection(seed: int, *, n_queries: int = 60, int_ids: bool = False, repeats: bool = True):
    """(qrels, run) DataFrames: ties (scores on a coarse grid), repeated documents (when ``repeats``),
    unjudged retrieved documents, judged queries without results and retrieved queries without judgments."""
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for q in range(n_queries):
        query = q if int_ids else f"q{q}"
        n_docs = int(rng.integers(1, 25))
        docs = rng.integers(0, 40, n_docs) if repeats else rng.choice(40, size=min(n_docs, 40), replace=False)
        if q % 7 != 3:  # some judged queries retrieve nothing
            for doc in docs:
                run_rows.append((query, _doc(doc, int_ids), float(rng.integers(0, 8)) / 4))
        if q % 11 != 5:  # some retrieved queries are not judged
            for doc in rng.choice(40, size=int(rng.integers(1, 8)), replace=False):
                qrels_rows.append((query, _doc(doc, int_ids), int(rng.integers(0, 5))))
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    return qrels, run


def _doc(doc: int, int_ids: bool):
    return int(doc) if int_ids else f"d{doc}"


def write_layout(run: pd.DataFrame, directory: Path, layout: str, n_files: int, seed: int) -> pd.DataFrame:
    """Write ``run`` as ``n_files`` parquet files laid out as ``layout``; return the run as the files hold it, in order."""
    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True, exist_ok=True)
    if layout == "sorted_split_mid_query":
        parts = _split_rows(run, n_files, rng)
    elif layout == "whole_queries_per_file":
        owner = {query: int(rng.integers(0, n_files)) for query in run["query_id"].unique()}
        files = run["query_id"].map(owner).to_numpy()
        # Within a file, queries interleave; each query keeps its own row order.
        parts = []
        for index in range(n_files):
            rows = run[files == index]
            interleaved = rows.iloc[np.argsort(rng.random(len(rows)), kind="stable")]
            parts.append(_keep_query_order(interleaved, rows))
    elif layout == "shuffled":
        parts = _split_rows(run.iloc[rng.permutation(len(run))], n_files, rng)
    else:
        raise ValueError(layout)
    for index, part in enumerate(parts):
        pq.write_table(pa.Table.from_pandas(part, preserve_index=False), directory / f"part-{index}.parquet")
    return pd.concat(parts, ignore_index=True)


def _split_rows(run: pd.DataFrame, n_files: int, rng: np.random.Generator) -> list[pd.DataFrame]:
    cuts = np.sort(rng.integers(0, len(run) + 1, n_files - 1))
    bounds = [0, *cuts.tolist(), len(run)]
    return [run.iloc[bounds[i] : bounds[i + 1]] for i in range(n_files)]


def _keep_query_order(interleaved: pd.DataFrame, original: pd.DataFrame) -> pd.DataFrame:
    """Rows placed as in ``interleaved`` but, within each query, in ``original``'s order."""
    slots = interleaved.groupby("query_id", sort=False).cumcount().to_numpy()
    labels = {query: group.index.to_numpy() for query, group in original.groupby("query_id", sort=False)}
    return original.loc[[labels[query][slot] for query, slot in zip(interleaved["query_id"], slots)]]


def set_chunk_rows(monkeypatch, rows: int) -> None:
    """Make a chunk hold about ``rows`` run rows within the smallest budget (tiny data, many chunks)."""
    monkeypatch.setattr(budget, "SCORING_OVERHEAD_PER_ROW", (budget.MIN_BUDGET - budget.KERNEL_CODE) // rows)
