"""Debugging benchmark: explain two runs query by query, write the explorer page, pool ten runs.

No peer explains runs or pools them (trec_eval, pytrec_eval, ranx, ir_measures and
azure-ai-evaluation have neither), so the pool is compared with what a user writes by hand in
pandas (sort each run by score descending and doc id descending, keep each query's top depth,
drop the judged pairs, group by query and document), checked equal first; explain and the page
are timed alone. Interleaved rounds, medians with their spread.

Workloads (fixed seeds, ``benchmarks.workload``): explain, ``--queries`` queries x 20 documents,
a keyword run and a dense run of the same queries (``second_retriever``); pooling, ten runs of
``--queries`` queries x 100 documents (the keyword run and nine noisy re-rankings of it) at
depth ``--depth``.

Usage: ``python benchmarks/bench_explain.py [--queries 10000 --depth 20 --rounds 3]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.harness import describe_machine, interleave, machine, print_table, ratios, timed  # noqa: E402
from benchmarks.workload import make_workload, second_retriever  # noqa: E402


def pool_runs(queries: int, seed: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Qrels and ten runs of the same documents: the keyword run and nine noisy re-scorings of it."""
    workload = make_workload(queries, seed=seed, retrieved=(100, 100))
    rng = np.random.default_rng(seed + 1)
    runs = {"run0": workload.run}
    for number in range(1, 10):
        noisy = workload.run.assign(score=np.round(workload.run["score"] + rng.normal(0, 5, len(workload.run)), 1))
        runs[f"run{number}"] = noisy
    return workload.qrels, runs


def pandas_pool(qrels: pd.DataFrame, runs: dict[str, pd.DataFrame], depth: int) -> pd.DataFrame:
    """The pool as one writes it in pandas: trec_eval's order within each run, the top depth, minus the judged."""
    tops = []
    for name, run in runs.items():
        ranked = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
        ranked = ranked.assign(rank=ranked.groupby("query_id").cumcount() + 1)
        tops.append(ranked[ranked["rank"] <= depth].assign(run=name))
    top = pd.concat(tops, ignore_index=True)
    judged = top.merge(qrels[["query_id", "doc_id"]], on=["query_id", "doc_id"], how="left", indicator=True)
    unjudged = judged[judged["_merge"] == "left_only"]
    pooled = unjudged.groupby(["query_id", "doc_id"], sort=True).agg(best_rank=("rank", "min"), n_runs=("run", "nunique"))
    return pooled.reset_index()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from retrieval_eval.explain import explain
    from retrieval_eval.pooling import pool
    from retrieval_eval.report.explorer_page import explorer_html

    print(describe_machine(machine()))
    workload = make_workload(args.queries, seed=args.seed, retrieved=(20, 20))
    dense = second_retriever(workload)
    explanation = explain(workload.qrels, workload.run, dense, ["ndcg@10", "map"])  # compiles once, outside the timing
    page = explorer_html(explanation)
    qrels, runs = pool_runs(args.queries, args.seed)
    ours = pool(runs, args.depth, qrels=qrels)
    theirs = pandas_pool(qrels, runs, args.depth)
    columns = ["query_id", "doc_id", "best_rank", "n_runs"]
    same = ours[columns].astype(str).reset_index(drop=True).equals(theirs[columns].astype(str).reset_index(drop=True))
    if not same:
        raise SystemExit("the pool differs from the pandas pool: not timed")

    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "explain.html"
        times = interleave(
            {
                "explain": timed(lambda: explain(workload.qrels, workload.run, dense, ["ndcg@10", "map"])),
                "page": timed(lambda: target.write_text(explorer_html(explanation), encoding="utf-8")),
                "pool (ours)": timed(lambda: pool(runs, args.depth, qrels=qrels)),
                "pool (pandas)": timed(lambda: pandas_pool(qrels, runs, args.depth)),
            },
            args.rounds,
        )
    rows = [["what", "seconds (median, min-max)", "note"]]
    for name, series in times.items():
        seconds = sorted(series)
        rows.append([name, f"{seconds[len(seconds) // 2]:.2f} ({seconds[0]:.2f}-{seconds[-1]:.2f})", ""])
    rows[1][2] = f"{args.queries} queries x 20 documents x 2 runs"
    rows[2][2] = f"{len(page.encode('utf-8')) / 1e6:.1f} MB"
    speedup = ratios(times["pool (pandas)"], times["pool (ours)"])
    rows[3][2] = f"{len(ours)} pooled rows of 10 runs x {args.queries} x 100 at depth {args.depth}; {speedup.median:.1f}x pandas"
    rows[4][2] = "the same rows (checked before timing)"
    print_table(rows, title="explain, the explorer page and pooling")


if __name__ == "__main__":
    main()
