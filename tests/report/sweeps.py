"""Sweeps the report tests read: a grid with a latency cost, a fusion-like mix of parameters, a
leaderboard whose marks do not follow its ranks, and comparisons made to the leaderboard's contract."""

from __future__ import annotations

import dataclasses
from itertools import combinations

import numpy as np
import pandas as pd

from retrieval_eval.sweep.analysis import SweepResult, sweep
from retrieval_eval.sweep.ranking import Leaderboard
from tests.sweep.test_leaderboard import FAST, qrels, run

TOP_K, CHUNKS = (5, 10, 20), (128, 256, 512, 1024)


def grid_sweep() -> SweepResult:
    """12 configurations, top_k x chunk (int64 columns, as pandas holds them), each with its own
    latency_ms (12 distinct costs), named ``k{top_k}_c{chunk}``."""
    rng = np.random.default_rng(15)
    names, rows, runs = [], [], {}
    for top_k in TOP_K:
        for chunk in CHUNKS:
            name = f"k{top_k}_c{chunk}"
            good = 0.3 + 0.02 * top_k + (0.1 if chunk == 512 else 0.0)
            runs[name] = run(good=good, seed=len(names))
            names.append(name)
            rows.append({"top_k": top_k, "chunk": chunk, "latency_ms": round(20 + 3.1 * top_k + chunk / 20 + rng.random() * 5, 1)})
    parameters = pd.DataFrame(rows, index=pd.Index(names, name="configuration"))
    return sweep(qrels(), runs, ["ndcg@5", "map"], parameters=parameters, costs=["latency_ms"], **FAST)


def fusion_parameters() -> pd.DataFrame:
    """A fusion sweep's parameters: rrf with k (no norm, no weight), a weighted sum with a norm and a weight
    (no k), one combmnz with a norm only; NaN where a parameter does not apply."""
    rows = [{"method": "rrf", "norm": np.nan, "k": k, "w0": np.nan} for k in (10, 20, 60, 100)]
    rows += [{"method": "wsum", "norm": norm, "k": np.nan, "w0": w} for norm in ("min-max", "max") for w in (0.0, 0.3, 0.5, 0.7, 1.0)]
    rows.append({"method": "combmnz", "norm": "min-max", "k": np.nan, "w0": np.nan})
    names = [",".join(f"{key}={value}" for key, value in row.items() if not pd.isna(value)) for row in rows]
    return pd.DataFrame(rows, index=pd.Index(names, name="configuration"))


def fusion_sweep() -> SweepResult:
    """The :func:`fusion_parameters` configurations, each a run of its own quality, with a cost (tokens)."""
    parameters = fusion_parameters()
    parameters["tokens"] = [900.0 + 37 * index for index in range(len(parameters))]
    runs = {name: run(good=0.2 + 0.6 * ((index * 7) % 11) / 10, seed=100 + index) for index, name in enumerate(parameters.index)}
    return sweep(qrels(), runs, ["ndcg@5"], parameters=parameters, costs=["tokens"], **FAST)


def _one_relevant(ranks: list[int]) -> pd.DataFrame:
    """A run of queries q00, q01, ... with one relevant document d0 at ``ranks[q]`` (0: not retrieved) among four others."""
    rows = []
    for query, rank in enumerate(ranks):
        docs = [f"x{index}" for index in range(4)]
        if rank:
            docs.insert(rank - 1, "d0")
        rows += [(f"q{query:02d}", doc, 10.0 - position) for position, doc in enumerate(docs)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def inversion_sweep() -> SweepResult:
    """Three configurations whose marks do not follow their ranks: ``steady`` is a little behind the best on
    half the queries and nowhere ahead (rank 2, significantly worse); ``noisy`` wins 10 queries and loses 11
    outright (rank 3, a lower mean, yet tied with the best: its differences swing too widely to tell)."""
    judged = pd.DataFrame([(f"q{query:02d}", "d0", 1) for query in range(30)], columns=["query_id", "doc_id", "relevance"])
    runs = {
        "best": _one_relevant([1] * 20 + [3] * 10),
        "steady": _one_relevant([2] * 15 + [1] * 5 + [3] * 10),
        "noisy": _one_relevant([1] * 9 + [0] * 11 + [1] * 10),
    }
    return sweep(judged, runs, ["ndcg@5"], **FAST)


def _pairwise(board: Leaderboard) -> pd.DataFrame:
    """A pairwise table to the contract: every pair a < b in rank order; p-values made up, significant below alpha."""
    means = board.table[board.objective]
    rows = []
    for index, (a, b) in enumerate(combinations(board.table.index, 2)):
        p = (index % 7) / 10
        rows.append({"a": a, "b": b, "mean_a": means[a], "mean_b": means[b], "difference": means[a] - means[b],
                     "p_t": p / 2, "p_t_holm": p, "p_randomization": p / 2, "p_randomization_holm": p,
                     "significant": p <= board.alpha})  # fmt: skip
    return pd.DataFrame(rows)


def _head_to_head(board: Leaderboard) -> pd.DataFrame:
    best, runner_up = board.per_query.iloc[0], board.per_query.iloc[1]
    rows = [
        {"query_id": query, "best": best[query], "runner_up": runner_up[query], "difference": best[query] - runner_up[query],
         "outcome": "win" if best[query] > runner_up[query] else ("tie" if best[query] == runner_up[query] else "loss")}
        for query in board.per_query.columns
    ]  # fmt: skip
    return pd.DataFrame(rows).sort_values("difference", ascending=False, kind="stable", ignore_index=True)


def with_comparisons(result):
    """``result`` with the comparisons of its leaderboard made here, from their definitions (the report is
    tested on what it is given, not on the statistics that compute them)."""
    board = result.leaderboard
    compared = dataclasses.replace(board, pairwise=_pairwise(board), head_to_head=_head_to_head(board))
    return dataclasses.replace(result, leaderboard=compared)
