"""The multi-threaded path (large inputs) gives the same numbers as the single-threaded one and the oracle."""

from __future__ import annotations

import math

import numba
import pandas as pd
import pytest

from benchmarks.workload import make_workload
from retrieval_eval import evaluate
from retrieval_eval.kernels import _config
from tests.reference.azure_docret import reference_docret

METRICS = ["ndcg_exp@10", "xdcg@5", "fidelity", "top1_relevance", "max_relevance@3", "holes", "holes_ratio", "holes@10"]


# Without the JIT the parallel and the serial builds are the same Python function: comparing them
# cannot fail there.
needs_jit = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="one Python build without the JIT")


@pytest.fixture(scope="module")
def workload():
    # 67,260 run rows: enough queries for every thread to have a share of the parallel path.
    return make_workload(900, seed=3)


@pytest.fixture
def compiled(monkeypatch):
    """The compiled builds from the first call on (auto mode runs a process's first work as Python), and the
    parallel ones for this workload (its size alone is below SERIAL_BELOW, so the test need not be slow)."""
    monkeypatch.setenv(_config.MODE_VARIABLE, "compiled")
    monkeypatch.setattr(_config, "SERIAL_BELOW", 50_000)


@needs_jit
@pytest.mark.usefixtures("compiled")
def test_threads_do_not_change_results(workload, monkeypatch):
    assert len(workload.run) >= _config.SERIAL_BELOW  # large enough to take the parallel path
    parallel = evaluate(workload.qrels, workload.run, METRICS).per_query
    monkeypatch.setattr(_config, "SERIAL_BELOW", 10**12)
    serial = evaluate(workload.qrels, workload.run, METRICS).per_query
    pd.testing.assert_frame_equal(parallel, serial)


def test_large_input_matches_the_oracle(workload):
    table = evaluate(workload.qrels, workload.run, METRICS).per_query.set_index("query_id")
    judged = workload.qrels.groupby("query_id", sort=False)
    retrieved = workload.run.groupby("query_id", sort=False)
    for query in table.index[::18]:
        gt = list(zip(judged.get_group(query)["doc_id"], judged.get_group(query)["relevance"].astype(int)))
        ret = list(zip(retrieved.get_group(query)["doc_id"], retrieved.get_group(query)["score"]))
        for k in (10, 5, 3):
            expected = reference_docret(gt, ret, k=k, azure_gains=False)
            for name in METRICS:
                if name in expected:
                    got, want = float(table.loc[query, name]), expected[name]
                    assert got == want or (math.isnan(got) and math.isnan(want)), (query, name, got, want)


TREC = ["ndcg@10", "ndcg", "map", "map@5", "precision@10", "recall@20", "recip_rank", "rprec", "bpref", "infap", "judged@10"]


@needs_jit
@pytest.mark.usefixtures("compiled")
def test_trec_measures_take_the_parallel_path_unchanged(workload, monkeypatch):
    """Policies as the document-retrieval tests use them, should the generated data repeat a document."""
    options = {"run_duplicates": "last", "qrels_duplicates": "last"}
    parallel = evaluate(workload.qrels, workload.run, TREC, **options).per_query
    monkeypatch.setattr(_config, "SERIAL_BELOW", 10**12)
    serial = evaluate(workload.qrels, workload.run, TREC, **options).per_query
    pd.testing.assert_frame_equal(parallel, serial)
