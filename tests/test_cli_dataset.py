"""retrieval-eval evaluate on streamed runs: directories, globs, several files, --memory-budget, --dask."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from retrieval_eval import evaluate
from tests.scale.layouts import random_collection, set_chunk_rows, write_layout
from tests.test_cli import run_cli


@pytest.fixture
def collection(tmp_path):
    """A qrels parquet file and a shuffled run in 3 parquet files, with the in-memory result."""
    qrels, run = random_collection(seed=31)
    rows = write_layout(run, tmp_path / "run", "shuffled", n_files=3, seed=32)
    qrels_path = tmp_path / "qrels.parquet"
    qrels.to_parquet(qrels_path)
    return str(qrels_path), tmp_path / "run", evaluate(qrels, rows, ["ndcg_exp@5", "fidelity"])


def means(out: str) -> dict[str, float]:
    return {name: row["mean"] for name, row in json.loads(out)["metrics"].items()}


@pytest.mark.parametrize("how", ["directory", "directory with a budget", "glob", "files"])
def test_streamed_runs_equal_in_memory(capsys, tmp_path, monkeypatch, collection, how):
    set_chunk_rows(monkeypatch, 50)
    qrels, run_dir, expected = collection
    runs = {
        "directory": [str(run_dir)],
        "directory with a budget": [str(run_dir), "--memory-budget", "128MiB"],
        "glob": [str(run_dir / "*.parquet")],
        "files": [str(run_dir / f"part-{i}.parquet") for i in range(3)],
    }[how]
    out_dir = tmp_path / "per_query"
    code, out, err = run_cli(capsys, "evaluate", qrels, *runs, "-m", "ndcg_exp@5", "-m", "fidelity",
                             "--format", "json", "-o", str(out_dir), "--summary-output", str(tmp_path / "s.json"))
    assert code == 0, err
    assert means(out) == expected.means
    assert json.loads((tmp_path / "s.json").read_text()) == json.loads(out)
    per_query = pd.read_parquet(out_dir).sort_values("query_id", ignore_index=True)
    pd.testing.assert_frame_equal(per_query, expected.per_query.sort_values("query_id", ignore_index=True),
                                  check_dtype=False)


def test_a_failed_threshold_exits_1(capsys, collection):
    qrels, run_dir, _ = collection
    code, out, _ = run_cli(capsys, "evaluate", qrels, str(run_dir), "--memory-budget", "1GiB",
                           "--threshold", "fidelity=0.99")
    assert code == 1 and "verdict: FAIL" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-o", "per_query.csv"], "-o takes a directory"),
        (["--trec"], "--trec scores one qrels file against one run file read whole"),
        (["--memory-budget", "lots"], "memory budget must be a size"),
    ],
)
def test_streamed_usage_errors(capsys, collection, extra, message):
    qrels, run_dir, _ = collection
    code, _, err = run_cli(capsys, "evaluate", qrels, str(run_dir / "*.parquet"), *extra)
    assert code == 2 and message in err


def test_azure_rows_are_not_streamed(capsys):
    code, _, err = run_cli(capsys, "evaluate", "--azure", "data/azure_rows.jsonl", "--memory-budget", "1GiB")
    assert code == 2 and "--azure reads one file of Azure rows whole" in err


def test_dask_scheduler_address(capsys, tmp_path, collection, dask_client):
    # The session's cluster, by its address: starting a cluster of our own ("local:N") is tested
    # once, in tests/scale/test_cluster.py, and each start costs seconds of worker imports.
    qrels, run_dir, expected = collection
    code, out, err = run_cli(capsys, "evaluate", qrels, str(run_dir), "-m", "ndcg_exp@5", "-m", "fidelity",
                             "--dask", dask_client.scheduler.address, "--format", "json", "-o", str(tmp_path / "pq"))
    assert code == 0, err
    assert means(out) == expected.means
