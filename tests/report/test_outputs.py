"""A sweep's writers never write over the files the sweep read (its qrels and run paths)."""

from __future__ import annotations

import os

import pytest

from retrieval_eval.errors import OutputError
from retrieval_eval.report import write_report
from retrieval_eval.sweep.analysis import sweep
from tests.sweep.test_leaderboard import FAST, qrels, run


@pytest.fixture
def from_files(tmp_path):
    """A sweep of two runs read from parquet files, and the files."""
    paths = {name: tmp_path / f"{name}.parquet" for name in ("a", "b")}
    for seed, path in enumerate(paths.values()):
        run(good=0.5, seed=seed).to_parquet(path)
    qrels_path = tmp_path / "qrels.parquet"
    qrels().to_parquet(qrels_path)
    return sweep(qrels_path, {name: str(path) for name, path in paths.items()}, ["map"], **FAST), [qrels_path, *paths.values()]


def test_the_sources_are_the_paths_given(from_files):
    result, paths = from_files
    assert result.sources == tuple(map(str, paths))


@pytest.mark.parametrize("writer", ["table", "report"])
@pytest.mark.parametrize("which", [0, 1, 2], ids=["qrels", "first run", "second run"])
def test_no_writer_overwrites_a_source(from_files, tmp_path, writer, which):
    result, paths = from_files
    target = paths[which]
    os.link(target, tmp_path / "linked")
    before = {path: path.read_bytes() for path in paths}
    write = result.write if writer == "table" else lambda path: write_report(result, path, with_plots=False)
    for output in (target, tmp_path / "linked", tmp_path):
        with pytest.raises(OutputError, match=f"^output {output}: refused"):
            write(output)
    assert {path: path.read_bytes() for path in paths} == before


def test_in_memory_runs_have_no_sources(tmp_path):
    result = sweep(qrels(), {"a": run(good=0.5, seed=1)}, ["map"], **FAST)
    assert result.sources == ()
    result.write(tmp_path / "board.csv")
    assert (tmp_path / "board.csv").exists()
