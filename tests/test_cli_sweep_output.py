"""`retrieval-eval sweep`'s output: 100 columns in a pipe, --wide, --all-pairs, one JSON object, progress on a terminal."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.test_cli import run_cli

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS = str(DATA / "qrels.trec")
FAST = ["--resamples", "300", "--rounds", "300"]
SHIFTS = [0.0, 0.3, 0.5, 0.7, 1.1]


@pytest.fixture
def runs(tmp_path: Path) -> list[str]:
    """Five runs of the sample's queries with long names, and sidecars with a cost and long text parameters."""
    lines = (DATA / "run.trec").read_text(encoding="utf-8").splitlines()
    paths = []
    for number, shift in enumerate(SHIFTS):
        moved = []
        for index, line in enumerate(lines):
            query, q0, doc, rank, score, tag = line.split()
            moved.append(f"{query} {q0} {doc} {rank} {float(score) + (index % 7) * shift:.4f} {tag}")
        path = tmp_path / f"k{10 + 5 * number}_hybrid_rerank_crossencoder_minilm_l{number}_chunk512_overlap64.trec"
        path.write_text("\n".join(moved) + "\n", encoding="utf-8")
        sidecar = {"latency_ms": 40 + 30 * number, "reranker": "on" if number % 2 else "off",
                   "embedding_model": "text-embedding-3-large", "chunking": "recursive-character-splitter"}  # fmt: skip
        Path(f"{path}.json").write_text(json.dumps(sidecar), encoding="utf-8")
        paths.append(str(path))
    return paths


SWEEP = ["-m", "ndcg@10", "-m", "map", "-m", "recall@100", "-m", "P@5", "--param-pattern", r"k(?P<top_k>\d+)_", "--cost", "latency_ms"]


def test_the_leaderboard_fits_100_columns_and_says_what_it_left_out(capsys, runs):
    code, out, err = run_cli(capsys, "sweep", QRELS, *runs, *SWEEP, *FAST)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert max(map(len, lines)) <= 100
    assert lines[0] == "objective: ndcg@10" and (
        lines[1] == "5 configurations ranked by their mean over 25 queries in common (higher is better)")
    assert lines[2].split()[:2] == ["rank", "configuration"] and "latency_ms" in lines[2]
    assert any(line.startswith("not shown: ") and "recall@100" in line for line in lines)
    assert any(line.startswith("* best  † significantly worse than the best") for line in lines)
    assert any(line.startswith("the best against the runner-up (rank 2) on ndcg@10, per query: ") for line in lines)
    assert "marginal effects:" in lines and "all pairs" not in out


def test_wide_prints_every_column_and_all_pairs_every_pair(capsys, runs):
    code, out, _ = run_cli(capsys, "sweep", QRELS, *runs, *SWEEP, "--wide", "--all-pairs", *FAST)
    assert code == 0
    header = out.splitlines()[2].split()
    assert {"p_t", "p_t_holm", "effect_size", "queries_lost", "recall@100", "embedding_model", "chunking", "pareto"} <= set(header)
    assert any(len(line) > 100 for line in out.splitlines())
    pairs = out.splitlines()[out.splitlines().index("all pairs (Holm-adjusted over 10 pairs; * significant at 0.05):") + 1 :]
    assert pairs[0].split() == ["a", "b", "difference", "p", "t-test", "p", "randomization"] and pairs[11] == ""


def test_the_json_is_one_object_with_the_head_to_head_and_the_pairs(capsys, runs):
    code, out, _ = run_cli(capsys, "sweep", QRELS, *runs, *SWEEP, "--all-pairs", "--format", "json", *FAST)
    document = json.loads(out)
    assert code == 0 and document["objective"] == "ndcg@10" and document["queries"] == 25
    assert [record["rank"] for record in document["table"]] == [1, 2, 3, 4, 5]
    assert {"top_k", "latency_ms", "pareto", "tied_with_best"} <= set(document["table"][0])
    assert len(document["head_to_head"]) == 25 and {record["outcome"] for record in document["head_to_head"]} <= {"win", "tie", "loss"}
    assert len(document["pairwise"]) == 10 and document["pairwise"][0]["a"] == document["table"][0]["configuration"]
    code, out, err = run_cli(capsys, "sweep", QRELS, *runs, "--wide", "--format", "json", *FAST)
    assert (code, out) == (2, "") and err == "retrieval-eval: error: --wide goes with --format table (the JSON holds every column)\n"


def test_progress_on_a_terminal_names_each_phase_of_the_statistics(capsys, monkeypatch, runs):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr("retrieval_eval.progress.DELAY_SECONDS", 0.0)  # tiny phases print too
    code, _, err = run_cli(capsys, "sweep", QRELS, *runs[:2], "-m", "ndcg@10", "--all-pairs", *FAST)
    assert code == 0
    # Each phase's last line (the one with the seconds it took), without those seconds.
    ends = [part.strip() for part in re.split(r"[\r\n]", err) if re.search(r", \d+\.\d s *$", part)]
    shown = [re.sub(r", \d+\.\d s$", "", line) for line in ends]
    finished = [
        "retrieval-eval: scoring: 2/2 configurations",
        "retrieval-eval: aligning per-query scores: 1 metric x 2 configurations: 1/1",
        "retrieval-eval: bootstrap intervals: 300 resamples x 2 configurations: 300/300",
        "retrieval-eval: randomization tests: 300 rounds x 1 against the best: 300/300",
        "retrieval-eval: all pairs: 300 randomization rounds x 1 pair: 300/300",
    ]
    assert [line for line in shown if line in finished] == finished
