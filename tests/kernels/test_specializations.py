"""Every kind of input reaches the kernels with the same array types, so each build compiles once
(a second specialization would cost seconds of compilation on the first large input), and those
types are the ones :func:`compile_all` compiles ahead of time."""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import retrieval_eval as rev
from retrieval_eval.azure import DocumentRetrievalEvaluator
from retrieval_eval.executions.batch.engine import plan_checks, plan_per_record, run_checks
from retrieval_eval.executions.batch.tables import flatten_records
from retrieval_eval.kernels import _config, compile_all
from retrieval_eval.kernels.ahead_of_time import compile_in_processes
from retrieval_eval.sweep.tukey import randomised_tukey_hsd
from tests.executions.fixtures import ODSP, example_telemetry

DATA = Path(__file__).resolve().parents[2] / "data"
TREC = ["map", "ndcg@10", "P@5", "recall@100", "iprec_at_recall_0.5", "bpref"]
CHECKS = {
    "RetrievalQuery": {"capability": ODSP, "selector": "MORTGAGE", "includes": ["mortgage", "joint check"]},
    "RetrievalResult": {"capability": ODSP, "expected_items": [{"retrievalExtract_contains": "joint check"}]},
}


def score_every_kind_of_input(tmp_path: Path) -> None:
    """The library's paths into the kernels: files, tables, chunked columns, integer ids, both families, the checks."""
    for metrics in (None, TREC):
        rev.evaluate(DATA / "qrels.trec", DATA / "run.trec", metrics)
        rev.evaluate(DATA / "qrels.parquet", DATA / "run.parquet", metrics)
    # Multi-chunk columns are copied by Arrow (writable) where single chunks are zero-copy views.
    run = pq.read_table(DATA / "run.parquet")
    pq.write_table(run, tmp_path / "run.parquet", row_group_size=50)
    rev.evaluate(DATA / "qrels.trec", tmp_path / "run.parquet")
    # A run over some of the judged queries looks its queries up in the qrels.
    rev.evaluate(pd.read_parquet(DATA / "qrels.parquet"), pa.concat_tables([run.slice(0, 100), run.slice(100, 50)]), TREC)
    ints = pd.DataFrame({"query_id": [1, 2], "doc_id": [3, 4], "relevance": [1, 0]})
    rev.evaluate(ints, ints.rename(columns={"relevance": "score"}).astype({"score": float}), TREC)
    DocumentRetrievalEvaluator().evaluate_table(DATA / "azure_rows.jsonl")
    truth = [{"document_id": 1, "query_relevance_label": 1}]
    DocumentRetrievalEvaluator()(retrieval_ground_truth=truth, retrieved_documents=[])
    records = [example_telemetry(), None, [{"capability": "Email", "queries": [{"queryString": "Straße"}]}]]
    run_checks(flatten_records(records), plan_per_record([CHECKS, {"RetrievalQuery": CHECKS["RetrievalQuery"]}, {}]))
    run_checks(flatten_records(records[:1]), plan_checks(1, CHECKS))
    # A sweep's statistics over its configurations x queries matrix (a transposed view is what they permute).
    randomised_tukey_hsd(np.linspace(0, 1, 12).reshape(3, 4), permutations=10)


def example_types(kernel: _config.Kernel) -> tuple:
    """The argument types :func:`compile_all` compiles a kernel's builds for: numba's types of its example."""
    return tuple(numba.typeof(argument) for argument in kernel.example())


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no compilation without the JIT")
def test_the_library_passes_the_types_compile_all_compiles(tmp_path, monkeypatch):
    """Checked on the serial builds: the parallel build of a kernel is handed the same arguments
    (``Kernel.__call__`` picks one of the two), so compiling every parallel build here would add
    a minute of compilation and check nothing more."""
    monkeypatch.setenv(_config.MODE_VARIABLE, "compiled")
    # Only what this test compiles counts: another test of this process may have compiled a second
    # specialization on purpose (float64 labels compile their own, only when fractional labels come).
    before = {kernel.name: set(kernel.serial.signatures) for kernel in _config.kernels()}
    score_every_kind_of_input(tmp_path)
    for kernel in _config.kernels():
        compiled = set(kernel.serial.signatures) - before.get(kernel.name, set())
        if kernel.example is None:
            continue  # helpers may serve several types by design (stable_order sorts keys, labels and scores)
        assert len(compiled) <= 1, (kernel.name, compiled)
        assert compiled <= {example_types(kernel)}, (
            kernel.name, "compile_all compiles", example_types(kernel), "the library passed", compiled
        )


# Three kernels that compile in about a second together: one with a parallel build, two without.
SMALL = ("hashing.fnv1a_hashes", "lookup.positions_by_key", "resampling.sign_flips")


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no compilation without the JIT")
def test_compile_all_compiles_and_reports_each_build_in_order(monkeypatch):
    small = [kernel for kernel in _config.kernels() if kernel.name in SMALL]
    assert len(small) == len(SMALL)
    monkeypatch.setattr(_config, "kernels", lambda: small)
    calls = []
    seconds = compile_all(lambda done, total, name: calls.append((done, total, name)))
    expected = [
        f"{kernel.name} (parallel)" if parallel else kernel.name
        for kernel in small
        for parallel in (False, True)[: 1 + kernel.is_parallel]
    ]
    assert "hashing.fnv1a_hashes (parallel)" in expected and "lookup.positions_by_key (parallel)" not in expected
    assert list(seconds) == expected and all(s >= 0 for s in seconds.values())
    assert calls == [(done, len(expected), name) for done, name in enumerate(expected, 1)]
    for kernel in small:
        builds = [kernel.serial, kernel.parallel] if kernel.is_parallel else [kernel.serial]
        assert all(list(build.signatures) == [example_types(kernel)] for build in builds), kernel.name


@pytest.mark.skipif(not numba.config.DISABLE_JIT, reason="only without the JIT")
def test_compile_all_refuses_without_the_jit():
    with pytest.raises(RuntimeError, match="NUMBA_DISABLE_JIT"):
        compile_all()


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="compiles: needs the JIT")
def test_builds_compiled_in_worker_processes_land_in_the_cache_this_process_loads(tmp_path, monkeypatch):
    # A fresh cache directory: the two worker processes compile (not load) and this process then loads.
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    names = ["lookup.positions_by_key", "hashing.fnv1a_hashes", "hashing.fnv1a_hashes (parallel)"]
    done = []
    seconds = compile_in_processes(names, 2, lambda count, total, name: done.append((count, total, name)))
    assert list(seconds) == names and all(s > 0 for s in seconds.values())
    assert [(count, total) for count, total, _ in done] == [(1, 3), (2, 3), (3, 3)] and {n for *_, n in done} == set(names)
    assert len(list(tmp_path.rglob("*.nbi"))) >= 2  # an index per compiled function, written by the workers


def test_compile_all_refuses_a_number_of_jobs_below_one():
    with pytest.raises(ValueError, match="jobs must be an integer >= 1, got 0"):
        compile_all(jobs=0)
