"""`retrieval-eval sweep`: run files with parameters, the leaderboard printed and written."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from tests.test_cli import run_cli

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS = str(DATA / "qrels.trec")
FAST = ["--resamples", "300", "--rounds", "300"]


def _runs(tmp_path: Path) -> list[str]:
    lines = (DATA / "run.trec").read_text(encoding="utf-8").splitlines()
    worse = []
    for index, line in enumerate(lines):
        query, q0, doc, rank, score, tag = line.split()
        worse.append(f"{query} {q0} {doc} {rank} {float(score) + (index % 7) * 0.3:.4f} {tag}")
    (tmp_path / "k10_hybrid.trec").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "k5_vector.trec").write_text("\n".join(worse) + "\n", encoding="utf-8")
    (tmp_path / "k10_hybrid.trec.json").write_text(json.dumps({"latency_ms": 120}), encoding="utf-8")
    (tmp_path / "k5_vector.trec.json").write_text(json.dumps({"latency_ms": 40}), encoding="utf-8")
    return [str(tmp_path / "k10_hybrid.trec"), str(tmp_path / "k5_vector.trec")]


def test_a_sweep_prints_and_writes_the_leaderboard(capsys, tmp_path):
    out = tmp_path / "leaderboard.parquet"
    pattern = r"k(?P<top_k>\d+)_(?P<mode>\w+)\."
    code, stdout, err = run_cli(
        capsys, "sweep", QRELS, *_runs(tmp_path), "-m", "ndcg@10", "--param-pattern", pattern,
        "--cost", "latency_ms", "-o", str(out), "--report", str(tmp_path / "report.html"), *FAST,
    )  # fmt: skip
    assert code == 0 and err == ""
    assert stdout.startswith("objective: ndcg@10\n") and "marginal effects:" in stdout
    table = pd.read_parquet(out)
    assert table["configuration"].tolist()[0] in {"k10_hybrid.trec", "k5_vector.trec"}
    assert {"rank", "ndcg@10", "ci_low", "p_randomization_holm", "tied_with_best", "top_k", "mode", "pareto"} <= set(
        table.columns
    )
    assert sorted(table["top_k"].tolist()) == [5, 10]
    assert (tmp_path / "report.html").read_text(encoding="utf-8").count("data:image/png;base64,") >= 3


def test_a_file_name_the_pattern_does_not_match_exits_2_naming_it(capsys, tmp_path):
    runs = _runs(tmp_path)
    code, stdout, err = run_cli(capsys, "sweep", QRELS, *runs, "--param-pattern", r"top(?P<k>\d+)", *FAST)
    assert code == 2 and stdout == ""
    assert "k10_hybrid.trec: the file name does not match the parameter pattern" in err
