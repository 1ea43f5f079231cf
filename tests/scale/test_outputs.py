"""evaluate_dataset's output: never over an input, and what a killed run left is cleared by the next one."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.dataset as pa_ds
import pytest

from retrieval_eval import evaluate
from retrieval_eval.errors import OutputError
from retrieval_eval.scale import evaluate_dataset
from tests.scale.layouts import random_collection, set_chunk_rows, write_layout


def _tree(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.fixture
def collection(tmp_path):
    qrels, run = random_collection(seed=5, n_queries=20, repeats=False)
    rows = write_layout(run, tmp_path / "run", "shuffled", n_files=2, seed=6)
    qrels_path = tmp_path / "qrels.parquet"
    qrels.to_parquet(qrels_path)
    return str(qrels_path), rows


def test_a_run_directory_written_by_pyarrow_is_not_its_own_output(tmp_path, collection):
    # Reproduction: write_dataset's part-0.parquet looks like a per-query dataset's part, so
    # the run directory given as its own output used to be deleted and replaced.
    qrels, rows = collection
    run_dir = tmp_path / "dataset"
    pa_ds.write_dataset(pa.Table.from_pandas(rows, preserve_index=False), run_dir, format="parquet")
    before = {p: p.read_bytes() for p in run_dir.iterdir()}
    with pytest.raises(OutputError, match=rf"^output {run_dir}: refused: it is the input {run_dir}"):
        evaluate_dataset(qrels, run_dir, ["map"], output=run_dir)
    assert {p: p.read_bytes() for p in run_dir.iterdir()} == before
    assert _tree(tmp_path).count("dataset") == 1 and not any(name.startswith(".") for name in _tree(tmp_path))


@pytest.mark.parametrize(
    "output",
    ["run", "run/out", ".", "qrels.parquet", "run/part-0.parquet"],
    ids=["the run directory", "inside it", "holding everything", "the qrels", "a run file"],
)
def test_no_output_over_an_input(tmp_path, monkeypatch, collection, output):
    monkeypatch.chdir(tmp_path)
    qrels, _ = collection
    before = _tree(tmp_path)
    with pytest.raises(OutputError, match=f"^output {output}: refused"):
        evaluate_dataset(qrels, "run", ["map"], output=output)
    assert _tree(tmp_path) == before


def test_a_file_of_the_glob_is_an_input(tmp_path, collection):
    qrels, _ = collection
    os.link(tmp_path / "run" / "part-1.parquet", tmp_path / "linked")
    with pytest.raises(OutputError, match="it is the same file as the input"):
        evaluate_dataset(qrels, str(tmp_path / "run" / "*.parquet"), ["map"], output=tmp_path / "linked")


def test_stale_staging_of_the_target_is_cleared_and_a_live_one_kept(tmp_path, monkeypatch, collection):
    from retrieval_eval.io.scratch import claim_scratch

    set_chunk_rows(monkeypatch, 40)
    qrels, rows = collection
    out = tmp_path / "out"
    # As a killed run leaves them: a staging directory with a part, and buckets in the temp directory.
    stale = tmp_path / ".out.0123456789ab.tmp"
    stale.mkdir()
    (stale / "part-00000.parquet").write_bytes(b"half")
    temp = tmp_path / "temp"
    (temp / ".retrieval-eval-buckets.0123456789ab.tmp").mkdir(parents=True)
    (temp / ".retrieval-eval-buckets.0123456789ab.tmp" / "bucket-0-00000.parquet").write_bytes(b"half")
    live = claim_scratch(out, directory=True)  # another run, still going, writing the same target
    try:
        result = evaluate_dataset(qrels, tmp_path / "run", ["map"], output=out, memory_budget="128MiB", temp_dir=temp)
        assert not stale.exists() and live.path.is_dir()
        assert os.listdir(temp) == []
    finally:
        live.remove()
    assert result.means == evaluate(qrels, rows, ["map"]).means
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "qrels.parquet", "run", "temp"]
