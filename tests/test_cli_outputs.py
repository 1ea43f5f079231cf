"""No command writes over what it reads: every output of every command refuses every input, and each other.

An output is refused (exit 2, one line, nothing written) when it is an input (by name, hard link or
symlink), a directory holding an input, or a path inside an input directory; or the same path as
another output of the command.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow.dataset as pa_ds
import pyarrow.parquet as pq
import pytest

from tests.test_cli import run_cli

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def work(tmp_path, monkeypatch):
    """Every command's inputs, in a fresh working directory (relative paths, as a user types them)."""
    monkeypatch.chdir(tmp_path)
    for name in ("qrels.trec", "run.trec", "eval_document.json", "executions.jsonl", "checks.json"):
        shutil.copy(DATA / name, name)
    shutil.copy("run.trec", "other.trec")
    Path("run.json").write_text('{"top_k": 10}\n')  # the runs' sidecars, read by sweep: RUN.json and RUN.EXT.json
    Path("other.trec.json").write_text('{"top_k": 20}\n')
    Path("runs").mkdir()
    run = pq.read_table(DATA / "run.parquet")
    pq.write_table(run.slice(0, 40), "runs/part-0.parquet")
    pq.write_table(run.slice(40), "runs/part-1.parquet")
    return tmp_path


def snapshot(root: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every path under ``root`` with its inode and (for files) bytes: an input rewritten or replaced shows."""
    return {
        str(path.relative_to(root)): (path.lstat().st_ino, None if path.is_dir() or path.is_symlink() else path.read_bytes())
        for path in sorted(root.rglob("*"))
    }


# Each command with its outputs (option -> a fresh path that would be fine) and the inputs it reads.
COMMANDS = {
    "evaluate": (["evaluate", "qrels.trec", "run.trec"], {"-o": "pq.parquet", "--summary-output": "s.json"},
                 ["qrels.trec", "run.trec"]),
    "evaluate streamed": (["evaluate", "qrels.trec", "runs"], {"-o": "per_query", "--summary-output": "s.json"},
                          ["qrels.trec", "runs", "runs/part-1.parquet"]),
    "evaluate glob": (["evaluate", "qrels.trec", "runs/*.parquet"], {"-o": "per_query", "--summary-output": "s.json"},
                      ["runs/part-0.parquet"]),
    "check document": (["check", "eval_document.json", "--executions", "executions.jsonl"],
                       {"-o": "scored.json", "--summary-output": "s.json"}, ["eval_document.json", "executions.jsonl"]),
    "check log": (["check", "--executions", "executions.jsonl", "--config", "checks.json"],
                  {"-o": "results.jsonl", "--summary-output": "s.json"}, ["executions.jsonl", "checks.json"]),
    "sweep": (["sweep", "qrels.trec", "run.trec", "other.trec"], {"-o": "board.csv", "--report": "report.html"},
              ["qrels.trec", "run.trec", "other.trec", "run.json", "other.trec.json"]),
}


def _is(source: str) -> str:
    return source


def _hard_link(source: str) -> str:
    os.link(source, "hard_link")
    return "hard_link"


def _symlink(source: str) -> str:
    os.symlink(os.path.abspath(source), "symlink")
    return "symlink"


def _directory_holding_it(source: str) -> str:
    return os.path.dirname(source) or "."


def _inside_it(source: str) -> str:
    return os.path.join(source, "out")


DIRECTORIES = {"runs"}
FILE_RELATIONS = [_is, _hard_link, _symlink, _directory_holding_it]
DIRECTORY_RELATIONS = [_is, _symlink, _directory_holding_it, _inside_it]  # a directory has no hard links
CASES = [
    pytest.param(command, option, source, relation, id=f"{command}-{option}-{source}-{relation.__name__.strip('_')}")
    for command, (_, outputs, inputs) in COMMANDS.items()
    for option in outputs
    for source in inputs
    for relation in (DIRECTORY_RELATIONS if source in DIRECTORIES else FILE_RELATIONS)
]


@pytest.mark.parametrize(("command", "option", "source", "relation"), CASES)
def test_every_output_refuses_every_input(capsys, work, command, option, source, relation):
    argv, outputs, _ = COMMANDS[command]
    output = relation(source)
    before = snapshot(work)
    others = [arg for name, path in outputs.items() if name != option for arg in (name, path)]
    code, out, err = run_cli(capsys, *argv, option, output, *others)
    assert code == 2 and out == ""
    assert err.startswith(f"retrieval-eval: error: {option} {os.path.normpath(output)}: refused: ") and err.count("\n") == 1
    assert snapshot(work) == before


@pytest.mark.parametrize("command", list(COMMANDS))
def test_two_outputs_of_one_command_may_not_be_one_file(capsys, work, command):
    argv, outputs, _ = COMMANDS[command]
    first, second = outputs
    before = snapshot(work)
    code, _, err = run_cli(capsys, *argv, first, "same.json", second, "./same.json")
    assert code == 2 and f"{second} same.json: refused: it is {first} same.json" in err
    assert snapshot(work) == before


def test_a_summary_inside_the_per_query_directory_is_refused(capsys, work):
    code, _, err = run_cli(capsys, "evaluate", "qrels.trec", "runs", "-o", "per_query", "--summary-output", "per_query/s.json")
    assert code == 2 and "--summary-output per_query/s.json: refused: it is inside -o per_query" in err


@pytest.mark.parametrize("command", list(COMMANDS))
def test_fresh_outputs_are_written(capsys, work, command):
    argv, outputs, _ = COMMANDS[command]
    code, _, err = run_cli(capsys, *argv, *(arg for pair in outputs.items() for arg in pair))
    assert code in (0, 1), err
    assert all(os.path.exists(path) for path in outputs.values())


# The reproductions of the report, one by one.
def test_evaluate_output_over_its_run(capsys, work):
    before = Path("run.trec").read_bytes()
    code, _, err = run_cli(capsys, "evaluate", "qrels.trec", "run.trec", "-o", "run.trec")
    assert code == 2 and err == "retrieval-eval: error: -o run.trec: refused: it is the input run.trec; write the output elsewhere\n"
    assert Path("run.trec").read_bytes() == before


def test_check_output_over_its_log(capsys, work):
    before = Path("executions.jsonl").read_bytes()
    code, _, err = run_cli(capsys, "check", "--executions", "executions.jsonl", "--config", "checks.json",
                           "-o", "executions.jsonl")
    assert code == 2 and "-o executions.jsonl: refused: it is the input executions.jsonl" in err
    assert Path("executions.jsonl").read_bytes() == before


def test_sweep_output_over_a_run(capsys, work):
    before = Path("other.trec").read_bytes()
    code, _, err = run_cli(capsys, "sweep", "qrels.trec", "run.trec", "other.trec", "-o", "other.trec")
    assert code == 2 and "-o other.trec: refused: it is the input other.trec" in err
    assert Path("other.trec").read_bytes() == before


def test_a_streamed_run_directory_written_by_pyarrow_as_its_own_output(capsys, work):
    pa_ds.write_dataset(pq.read_table(DATA / "run.parquet"), "dataset", format="parquet")
    assert os.listdir("dataset") == ["part-0.parquet"]  # the name of a per-query dataset's parts
    before = snapshot(work)
    code, _, err = run_cli(capsys, "evaluate", "qrels.trec", "dataset", "-o", "dataset")
    assert code == 2 and "-o dataset: refused: it is the input dataset" in err
    assert snapshot(work) == before


def test_output_equal_to_summary_output(capsys, work):
    code, _, err = run_cli(capsys, "evaluate", "qrels.trec", "run.trec", "-o", "x.json", "--summary-output", "x.json")
    assert code == 2 and "--summary-output x.json: refused: it is -o x.json" in err
    assert not os.path.exists("x.json")

