"""``retrieval-eval ragas``: ragas' deterministic retrieval metrics over a file of samples, its means and its gate."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from retrieval_eval.cli import main
from retrieval_eval.ragas import evaluate_samples

SAMPLES = [
    {"id": "q1", "retrieved_context_ids": ["a", "b", "a"], "reference_context_ids": ["a", "c"],
     "retrieved_contexts": ["the cat", "a dog"], "reference_contexts": ["the cat!"], "verdicts": [1, 0]},
    {"id": "q2", "retrieved_context_ids": [], "reference_context_ids": ["x"],
     "retrieved_contexts": ["y"], "reference_contexts": ["y", "z"], "verdicts": [0]},
]  # fmt: skip


def _samples(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in SAMPLES), encoding="utf-8")
    return path


def test_per_sample_table_and_means_are_the_library_s(tmp_path, capsys):
    out = tmp_path / "scores.parquet"
    code = main(["ragas", str(_samples(tmp_path)), "--distance", "jaro", "-o", str(out), "--format", "json"])
    summary = json.loads(capsys.readouterr().out)
    expected = evaluate_samples(SAMPLES, distance="jaro")
    table = pd.read_parquet(out)
    assert code == 0
    pd.testing.assert_frame_equal(table, expected)
    assert table["id"].tolist() == ["q1", "q2"]
    assert math.isnan(table["id_based_context_precision"][1])  # nothing retrieved: ragas' NaN, left out of the mean
    assert summary["means"]["id_based_context_precision"] == 0.5 and summary["nan_samples"]["id_based_context_precision"] == 1
    assert summary["means"]["non_llm_context_recall"] == expected["non_llm_context_recall"].mean()
    assert summary["samples"] == 2 and summary["failed"] == []


def test_min_gates_the_exit_code(tmp_path, capsys):
    samples = str(_samples(tmp_path))
    assert main(["ragas", samples, "--min", "id_based_context_recall=0.25"]) == 0  # a mean equal to the bound passes
    assert main(["ragas", samples, "--min", "id_based_context_recall=0.26"]) == 1  # the mean is (1/2 + 0) / 2
    assert "FAIL (min 0.2600)" in capsys.readouterr().out
    assert main(["ragas", samples, "-m", "context_precision", "--min", "id_based_context_recall=0.1"]) == 2
    assert "was not scored" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"verdicts": [1, 3]}, "samples.jsonl, row 1, field 'verdicts': a verdict is 0 or 1, got 3"),
        ({"retrieved_contexts": ["a"], "reference_contexts": [1]}, "samples.jsonl, row 1, field 'reference_contexts'"),
        ({"other": 1}, "samples.jsonl: the samples have none of the fields"),
    ],
)
def test_bad_samples_are_one_line_and_exit_2(tmp_path, capsys, row, message):
    path = tmp_path / "samples.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert main(["ragas", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
