"""Fusion sweeps: the same best configuration and score as ranx.optimize_fusion on the same grid, each
configuration's score that of its fused run evaluated alone, one normalization per norm, one fused run at a time,
and the grid checked before any run is read."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest

from retrieval_eval import EvaluationOptions, evaluate
from retrieval_eval.data import Run
from retrieval_eval.errors import ConfigError, OutputError
from retrieval_eval.fusion import fuse
from retrieval_eval.sweep import fused as sweep_module
from retrieval_eval.sweep.fused import FusedRuns, fused_runs, fusion_sweep
from retrieval_eval.sweep.grids import ranx_weight_grid

DATA = Path(__file__).resolve().parents[2] / "data"
QRELS, BM25, DENSE = str(DATA / "qrels.trec"), str(DATA / "run.trec"), str(DATA / "run_dense.trec")
FAST = {"resamples": 200, "rounds": 200}
RANX = EvaluationOptions(ties="ranx")


def small_collection(seed: int = 3) -> tuple[dict, dict, dict]:
    """Qrels and two overlapping runs as nested dicts, every query in all three (ranx refuses others).

    Run "a" has scores rounded to one decimal (ties), run "b" finer ones; 12 queries, 10 documents
    per run out of 14, judged documents with labels 0..2.
    """
    rng = np.random.default_rng(seed)
    qrels, a, b = {}, {}, {}
    for q in range(12):
        query = f"q{q}"
        labels = rng.choice(3, size=14, p=[0.55, 0.3, 0.15])
        labels[rng.integers(14)] = 2
        judged = rng.random(14) < 0.7
        qrels[query] = {f"d{d}": int(labels[d]) for d in range(14) if judged[d] or labels[d]}
        key_a = labels + rng.normal(0, 1.2, 14)
        key_b = labels * 0.8 + rng.normal(0, 1.0, 14)
        a[query] = {f"d{d}": float(np.round(5 + key_a[d], 1)) for d in np.argsort(-key_a)[:10]}
        b[query] = {f"d{d}": float(1 / (1 + np.exp(-key_b[d]))) for d in np.argsort(-key_b)[:10]}
    return qrels, a, b


# As tests/fusion/test_fusion_ranx.py: ranx's compiled fusion functions are compiled again in every process (their
# parallel builds are not cached; a minute here), so ranx is met without the JIT, where it runs as Python and orders
# ties with numpy's argsort, as our kernels then do. With the JIT, benchmarks/bench_fusion.py meets compiled ranx.
@pytest.mark.skipif(not numba.config.DISABLE_JIT, reason="ranx's compiled fusion takes a minute per process: met without the JIT")
def test_the_best_configuration_and_score_are_ranx_optimize_fusions():
    ranx = pytest.importorskip("ranx")
    qrels, a, b = small_collection()
    ranx_qrels, runs = ranx.Qrels(qrels), [ranx.Run(a, name="a"), ranx.Run(b, name="b")]
    grid = [{"method": "rrf", "k": [10, 20, 60, 100]}, {"method": "wsum", "norm": ["min-max", "max"], "weights": {"step": 0.1}}]
    result = fusion_sweep(qrels, {"a": a, "b": b}, grid, ["ndcg"], options=RANX, **FAST)
    means = result.table["ndcg"]

    # ranx, as optimize_fusion runs it: per norm, its weight trials in order, the last of the best kept (>=).
    best_name, best_score = None, 0.0
    for k in [10, 20, 60, 100]:  # optimize_rrf's loop over these k: fuse, evaluate
        score = ranx.evaluate(ranx_qrels, ranx.fuse(runs, norm=None, method="rrf", params={"k": k}), "ndcg",
                              save_results_in_run=False)  # fmt: skip
        assert means[f"rrf,k={k}"] == pytest.approx(score, rel=1e-12, abs=0)
        if score >= best_score:
            best_name, best_score = f"rrf,k={k}", score
    for norm in ["min-max", "max"]:
        chosen, report = ranx.optimize_fusion(ranx_qrels, runs, norm=norm, method="wsum", metric="ndcg", step=0.1,
                                              show_progress=False, return_optimization_report=True)  # fmt: skip
        assert len(report.configs) == 11
        # Its trials are ranx_weight_grid's, in its order (tests/sweep/test_fusion_grid.py).
        for vector, score in zip(ranx_weight_grid(0.1, 2), report.results):
            weights = "/".join(map(repr, vector))
            assert means[f"wsum,norm={norm},w={weights}"] == pytest.approx(score, rel=1e-12, abs=0)
        if max(report.results) >= best_score:
            best_score = max(report.results)
            best_name = f"wsum,norm={norm},w=" + "/".join(repr(float(w)) for w in chosen["weights"])
    # Where the best is alone (so ranx's last-of-equals and the leaderboard's first-by-name agree), it is the same.
    assert (means == means.max()).sum() == 1
    assert result.table.index[0] == best_name
    assert means.iloc[0] == pytest.approx(best_score, rel=1e-12, abs=0)


def test_each_configuration_scores_as_its_fused_run_evaluated_alone():
    grid = [{"method": "rrf", "k": [20, 60]}, {"method": "wsum", "norm": ["min-max", "zmuv"], "weights": [[0.3, 0.7], [0.8, 0.2]]},
            {"method": "mnz", "norm": "none"}, {"method": "rrf", "norm": "borda"}]  # fmt: skip
    result = fusion_sweep(QRELS, {"bm25": BM25, "dense": DENSE}, grid, ["ndcg@10", "map"], top_k_in=30, top_k_out=12, **FAST)
    parameters = result.parameters
    assert len(result.table) == 8 and set(result.table.index) == set(parameters.index)
    for name, row in parameters.iterrows():
        params = {key: row[key] for key in ("k",) if not pd.isna(row[key])}
        if row["method"] == "wsum":
            params["weights"] = [row["w_bm25"], row["w_dense"]]
        norm = None if row["norm"] == "none" else row["norm"]
        run = fuse([BM25, DENSE], row["method"], norm=norm, params=params, top_k_in=30, top_k_out=12)
        alone = evaluate(QRELS, run, ["ndcg@10", "map"]).summary["mean"]
        assert result.table.loc[name, "ndcg@10"] == alone["ndcg@10"] and result.table.loc[name, "map"] == alone["map"]
    assert {"method", "norm", "k", "w_bm25", "w_dense", "rank", "tied_with_best"} <= set(result.table.columns)
    assert result.sources == (QRELS, BM25, DENSE)
    with pytest.raises(OutputError, match="it is the input"):
        result.write(BM25)


def test_trained_methods_learn_from_the_sweeps_qrels():
    grid = [{"method": "probfuse", "n_segments": [2, 5]}, {"method": "slidefuse", "w": 2}]
    result = fusion_sweep(QRELS, {"bm25": BM25, "dense": DENSE}, grid, ["ndcg@10"], **FAST)
    for name, params in [("probfuse,n_segments=2", {"n_segments": 2}), ("probfuse,n_segments=5", {"n_segments": 5}),
                         ("slidefuse,w=2", {"w": 2})]:  # fmt: skip
        run = fuse([BM25, DENSE], name.split(",")[0], params=params, qrels=QRELS)
        assert result.table.loc[name, "ndcg@10"] == evaluate(QRELS, run, ["ndcg@10"]).summary["mean"]["ndcg@10"]
    with pytest.raises(ConfigError, match="the trained fusion method 'probfuse' needs qrels"):
        fused_runs({"bm25": BM25, "dense": DENSE}, grid)


def test_each_norm_is_computed_once_and_no_fused_run_is_kept(monkeypatch):
    calls = []
    real = sweep_module.normalize
    monkeypatch.setattr(sweep_module, "normalize", lambda aligned, norm: calls.append(norm) or real(aligned, norm))
    grid = [{"method": "wsum", "norm": ["max", "sum"], "weights": {"step": 0.25}}, {"method": "rrf", "norm": "max"}]
    scored = []
    result = fusion_sweep(QRELS, [BM25, DENSE], grid, ["ndcg@10"], progress=lambda done, total, name: scored.append(name),
                          **FAST)  # fmt: skip
    assert sorted(calls) == ["max", "sum"] and len(scored) == len(result.table) == 11
    assert list(result.parameters.columns) == ["method", "norm", "k", f"w_{BM25}", f"w_{DENSE}"]  # a path named by itself
    named = fusion_sweep(QRELS, [Run.read(BM25, name="bm25"), pd.read_parquet(DATA / "run.parquet")], [{"method": "rrf"}],
                         **FAST)  # fmt: skip
    assert list(named.parameters.columns) == ["method", "norm", "k"] and named.sources == (QRELS,)
    assert list(fused_runs([Run.read(BM25, name="bm25"), DENSE], [{"method": "wsum", "weights": [1, 0]}]).grid.run_names) == [
        "bm25", DENSE]  # fmt: skip
    assert fused_runs([pd.read_parquet(DATA / "run.parquet"), DENSE], [{"method": "rrf"}]).grid.run_names == ("run1", DENSE)

    fused = fused_runs({"bm25": BM25, "dense": DENSE}, grid)
    assert isinstance(fused, FusedRuns) and len(fused) == 11 and list(fused)[0] == "wsum,norm=max,w=0.0/1.0"
    first = fused["rrf,norm=max"]
    again = weakref.ref(first)
    assert fused["rrf,norm=max"] is not first and fused.configuration("rrf,norm=max").params == {"k": 60}
    del first
    gc.collect()
    assert again() is None  # made at each lookup, held by nobody


def test_the_grid_and_settings_are_checked_before_any_run_is_read(tmp_path):
    missing = [str(tmp_path / "a.trec"), str(tmp_path / "b.trec")]
    with pytest.raises(ConfigError, match=r"^fusion grid entry 1: unknown fusion method 'rff'"):
        fusion_sweep(QRELS, dict(zip("ab", missing)), [{"method": "rff"}])
    with pytest.raises(ConfigError, match="unknown sweep setting 'rounds_'"):
        fusion_sweep(QRELS, dict(zip("ab", missing)), [{"method": "rrf"}], rounds_=3)
    with pytest.raises(ConfigError, match="options must be an EvaluationOptions"):
        fusion_sweep(QRELS, dict(zip("ab", missing)), [{"method": "rrf"}], options={"ties": "ranx"})
    with pytest.raises(ConfigError, match="runs must be the runs to fuse"):
        fusion_sweep(QRELS, BM25, [{"method": "rrf"}])
    with pytest.raises(ConfigError, match=r"^fusion grid entry 1 \(wsum\): weights must be 3 numbers"):
        fusion_sweep(QRELS, [*missing, pd.DataFrame()], [{"method": "wsum", "weights": [0.5, 0.5]}])
    with pytest.raises(ConfigError, match="top_k_out must be a positive integer"):
        fusion_sweep(QRELS, {"a": BM25, "b": DENSE}, [{"method": "rrf"}], top_k_out=0)
