"""A result is never written over the qrels or run it was scored from (the API, as the CLI)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from retrieval_eval import Evaluator, evaluate
from retrieval_eval.errors import OutputError

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    for name in ("qrels.trec", "run.trec"):
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path / "qrels.trec", tmp_path / "run.trec"


@pytest.mark.parametrize("which", ["qrels", "run", "a hard link to the run"])
@pytest.mark.parametrize("write", ["write", "write_summary"])
def test_results_refuse_their_sources(files: tuple[Path, Path], which: str, write: str) -> None:
    qrels, run = files
    result = evaluate(qrels, run, ["map"])
    target = {"qrels": qrels, "run": run}.get(which)
    if target is None:
        target = run.parent / "linked.csv"
        os.link(run, target)
    before = (qrels.read_bytes(), run.read_bytes())
    with pytest.raises(OutputError, match="refused"):
        getattr(result, write)(target)
    assert (qrels.read_bytes(), run.read_bytes()) == before


def test_an_evaluator_remembers_its_qrels_file_across_runs(files: tuple[Path, Path], tmp_path: Path) -> None:
    qrels, run = files
    evaluator = Evaluator(qrels, ["map"])
    with pytest.raises(OutputError, match="refused"):
        evaluator.evaluate(run).write(qrels)
    evaluator.evaluate(run).write(tmp_path / "per_query.parquet")
    assert (tmp_path / "per_query.parquet").stat().st_size > 0
