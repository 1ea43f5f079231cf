"""A scored document or log is never written over the files it was read from (the API, as the CLI)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from retrieval_eval.errors import OutputError
from retrieval_eval.executions import check_document, check_log

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    copies = {}
    for name in ("eval_document.json", "executions.jsonl", "checks.json"):
        copies[name] = tmp_path / name
        shutil.copy(DATA / name, copies[name])
    return copies


def _before(paths: dict[str, Path]) -> dict[str, bytes]:
    return {name: path.read_bytes() for name, path in paths.items()}


@pytest.mark.parametrize("target", ["the document", "a hard link to the document", "a hard link to the log"])
def test_a_document_check_refuses_its_sources(inputs: dict[str, Path], target: str) -> None:
    checked = check_document(inputs["eval_document.json"], executions=inputs["executions.jsonl"])
    path = inputs["eval_document.json"]
    if target != "the document":
        # A .json name (the only suffix a document is written as) for the same file.
        source = inputs["eval_document.json" if "document" in target else "executions.jsonl"]
        path = source.parent / "link.json"
        os.link(source, path)
    before = _before(inputs)
    with pytest.raises(OutputError, match="refused"):
        checked.write(path)
    assert _before(inputs) == before


@pytest.mark.parametrize("target", ["executions.jsonl", "checks.json"])
def test_a_log_check_refuses_its_sources(inputs: dict[str, Path], target: str) -> None:
    checked = check_log(inputs["executions.jsonl"], inputs["checks.json"])
    before = _before(inputs)
    with pytest.raises(OutputError, match="refused"):
        checked.write(inputs[target])
    assert _before(inputs) == before


def test_other_paths_are_written(inputs: dict[str, Path], tmp_path: Path) -> None:
    check_document(inputs["eval_document.json"], executions=inputs["executions.jsonl"]).write(tmp_path / "out.json")
    check_log(inputs["executions.jsonl"], inputs["checks.json"]).write(tmp_path / "out.jsonl")
    assert json.loads((tmp_path / "out.json").read_text())["items"]
    assert (tmp_path / "out.jsonl").read_text().count("\n") >= 1
