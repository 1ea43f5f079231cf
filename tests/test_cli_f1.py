"""``retrieval-eval f1``: the SDK's answer F1 over a file, against the scores recorded from azure-ai-evaluation."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from retrieval_eval.cli import main
from tests.test_azure_f1 import TEXT_PAIRS


def _answers(tmp_path, pairs=TEXT_PAIRS):
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"id": f"a{i}", "response": response, "ground_truth": truth}) + "\n"
                            for i, (response, truth, _) in enumerate(pairs)), encoding="utf-8")  # fmt: skip
    return path


def test_every_recorded_answer_scores_the_sdks_f1_and_the_summary_counts_them(tmp_path, capsys):
    threshold = 2 / 3  # a score the golden texts reach exactly
    out = tmp_path / "f1.parquet"
    code = main(["f1", str(_answers(tmp_path)), "--threshold", repr(threshold), "-o", str(out), "--format", "json"])
    summary = json.loads(capsys.readouterr().out)
    golden = [score for *_, score in TEXT_PAIRS]
    table = pd.read_parquet(out)
    assert code == 0
    assert table["id"].tolist() == [f"a{i}" for i in range(len(golden))]
    assert table["f1_score"].tolist() == golden
    assert table["f1_score_result"].tolist() == ["pass" if score >= threshold else "fail" for score in golden]
    passed = sum(score >= threshold for score in golden)
    assert summary["rows"] == len(golden) and summary["passed"] == passed and summary["threshold"] == threshold
    assert summary["pass_rate"] == passed / len(golden)
    assert summary["mean_f1"] == pytest.approx(math.fsum(golden) / len(golden), rel=1e-14)


@pytest.mark.parametrize(("rate", "code"), [("0", 0), ("0.5", 0), ("0.51", 1), ("1", 1)])
def test_min_pass_rate_gates_the_exit_code(tmp_path, capsys, rate, code):
    pairs = [("the cat sat", "a cat sat", 1.0), ("dog", "cat", 0.0)]  # one of two passes
    assert main(["f1", str(_answers(tmp_path, pairs)), "--min-pass-rate", rate]) == code
    assert "passed     1 row of 2 (50.00%) at F1 >= 0.5000" in capsys.readouterr().out


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--threshold", "nan", "argument --threshold: expected a finite number, got 'nan'"),
    ("--min-pass-rate", "1.5", "argument --min-pass-rate: expected a share from 0 to 1, got '1.5'"),
])  # fmt: skip
def test_a_bad_number_is_a_usage_error_naming_the_flag(tmp_path, capsys, flag, value, message):
    with pytest.raises(SystemExit) as exited:
        main(["f1", str(_answers(tmp_path)), flag, value])
    assert exited.value.code == 2 and capsys.readouterr().err.strip().endswith(message)


def test_a_row_without_its_ground_truth_is_one_line_naming_the_file_row_and_field(tmp_path, capsys):
    path = tmp_path / "answers.jsonl"
    path.write_text('{"response": "a cat"}\n', encoding="utf-8")
    assert main(["f1", str(path), "-o", str(tmp_path / "f1.csv")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not (tmp_path / "f1.csv").exists()
    assert len(captured.err.strip().splitlines()) == 1 and str(path) in captured.err and "ground_truth" in captured.err
