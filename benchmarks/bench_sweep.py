"""Sweep benchmark: many configurations of one query set, ranked with paired statistics, against ranx's compare().

Workload (fixed seed): ``--configs`` runs of ``--queries`` queries x ``--docs`` retrieved
documents each, every run a noisy variant of one ranking, and qrels with ~10 judged documents
per query. Measured, each in one process from the same pandas DataFrames:

- retrieval_eval: ``sweep.leaderboard`` (ndcg@10 per query for every run from one shared Qrels,
  bootstrap CIs and the t-test and randomization test of every configuration against the best,
  Holm-adjusted), with ``--rounds`` bootstrap resamples and randomization rounds;
- ranx: building its Qrels and Runs from the DataFrames, then ``compare(qrels, runs,
  ["ndcg@10"], stat_test="fisher", n_permutations=--rounds)``, which tests every *pair* of runs
  (retrieval_eval tests each against the best: n - 1 comparisons instead of n(n - 1)/2).

Usage: ``python benchmarks/bench_sweep.py [--configs 50 --queries 10000 --docs 100 --rounds 10000]``.
The issue's workload is the default; it needs several GB of memory and minutes with ranx.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.provenance import commit, version  # noqa: E402


def workload(configs: int, queries: int, docs: int, seed: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Qrels and ``configs`` runs as DataFrames (string ids)."""
    rng = np.random.default_rng(seed)
    query_ids = np.array([f"q{q}" for q in range(queries)])
    doc_ids = np.array([f"d{d}" for d in range(docs)])
    judged = rng.random((queries, docs)) < 0.1
    labels = rng.integers(1, 4, size=(queries, docs))
    q_index, d_index = np.nonzero(judged)
    qrels = pd.DataFrame({"query_id": query_ids[q_index], "doc_id": doc_ids[d_index], "relevance": labels[q_index, d_index]})
    base = rng.random((queries, docs)) + judged * 0.3
    runs = {}
    for c in range(configs):
        scores = base + rng.normal(0, 0.2 + 0.01 * c, size=(queries, docs))
        runs[f"config{c:02d}"] = pd.DataFrame(
            {"query_id": np.repeat(query_ids, docs), "doc_id": np.tile(doc_ids, queries), "score": scores.ravel()}
        )
    return qrels, runs


def ours(qrels: pd.DataFrame, runs: dict[str, pd.DataFrame], rounds: int) -> tuple[float, pd.Series]:
    from retrieval_eval.sweep import leaderboard

    start = time.perf_counter()
    board = leaderboard(qrels, runs, ["ndcg@10"], resamples=rounds, rounds=rounds)
    return time.perf_counter() - start, board.table["ndcg@10"]


def theirs(qrels: pd.DataFrame, runs: dict[str, pd.DataFrame], rounds: int) -> tuple[float, pd.Series]:
    from ranx import Qrels, Run, compare

    start = time.perf_counter()
    # ranx wants object-dtype id columns (pandas 3 makes them strings): the copies count as its cost.
    ids = {"query_id": object, "doc_id": object}
    ranx_qrels = Qrels.from_df(qrels.astype(ids), q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
    ranx_runs = []
    for name, frame in runs.items():
        run = Run.from_df(frame.astype(ids), q_id_col="query_id", doc_id_col="doc_id", score_col="score")
        run.name = name
        ranx_runs.append(run)
    report = compare(
        ranx_qrels, ranx_runs, ["ndcg@10"], stat_test="fisher", n_permutations=rounds, rounding_digits=17,
        make_comparable=True,
    )  # fmt: skip
    elapsed = time.perf_counter() - start
    return elapsed, pd.Series({name: report.results[name]["ndcg@10"] for name in runs})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=50)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-ranx", action="store_true")
    args = parser.parse_args()
    qrels, runs = workload(args.configs, args.queries, args.docs, args.seed)
    print(f"commit {commit()}; retrieval_eval {version('retrieval_eval')}, ranx {version('ranx')}")
    # First calls (numba compilation or cache loading, imports) on a tiny workload, reported apart.
    tiny_qrels, tiny_runs = workload(2, 20, 20, args.seed)
    first_ours = ours(tiny_qrels, tiny_runs, 100)[0]
    first_ranx = None if args.skip_ranx else theirs(tiny_qrels, tiny_runs, 100)[0]
    print(f"first call on 2 x 20 x 20: retrieval_eval {first_ours:.2f} s" + ("" if first_ranx is None else f", ranx {first_ranx:.2f} s"))
    print(f"{args.configs} configurations x {args.queries} queries x {args.docs} documents, {len(qrels)} judgments, "
          f"{args.rounds} resamples and rounds")
    ours_s, ours_means = ours(qrels, runs, args.rounds)
    print(f"retrieval_eval leaderboard: {ours_s:.2f} s")
    if not args.skip_ranx:
        ranx_s, ranx_means = theirs(qrels, runs, args.rounds)
        difference = float((ours_means - ranx_means.reindex(ours_means.index)).abs().max())
        print(f"ranx compare: {ranx_s:.2f} s; ratio {ranx_s / ours_s:.1f}x; largest difference of the means {difference:.2e}")


if __name__ == "__main__":
    main()
