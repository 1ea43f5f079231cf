"""`retrieval-eval sweep`: run files with parameters, the leaderboard printed and written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

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


# numba's thread variables, checked before any command runs (sweep's kernels, like every command's).

_BAD_ENVIRONMENT = [
    ("NUMBA_NUM_THREADS", "abc", "NUMBA_NUM_THREADS must be a positive integer (numba's threads), got 'abc'"),
    ("NUMBA_NUM_THREADS", "0", "NUMBA_NUM_THREADS must be a positive integer (numba's threads), got '0'"),
    ("NUMBA_NUM_THREADS", "-3", "NUMBA_NUM_THREADS must be a positive integer (numba's threads), got '-3'"),
    ("NUMBA_NUM_THREADS", "2.5", "NUMBA_NUM_THREADS must be a positive integer (numba's threads), got '2.5'"),
    ("NUMBA_NUM_THREADS", "", "NUMBA_NUM_THREADS must be a positive integer (numba's threads), got ''"),
    ("NUMBA_THREADING_LAYER", "bogus",
     "NUMBA_THREADING_LAYER must be one of default, safe, forksafe, threadsafe, tbb, omp, workqueue, got 'bogus'"),
]  # fmt: skip


@pytest.mark.parametrize(("variable", "value", "message"), _BAD_ENVIRONMENT, ids=lambda v: str(v)[:20])
@pytest.mark.parametrize("command", ["sweep", "evaluate"])
def test_a_bad_numba_variable_is_one_line_naming_it(capsys, monkeypatch, tmp_path, variable, value, message, command):
    monkeypatch.setenv(variable, value)
    code, stdout, err = run_cli(capsys, command, QRELS, *_runs(tmp_path)[:1], *(FAST if command == "sweep" else []))
    assert (code, stdout, err) == (2, "", f"retrieval-eval: error: {message}\n")


@pytest.mark.parametrize("value", ["abc", "0", "", "2"])
def test_the_thread_counts_refused_are_those_numba_rejects_or_ignores(monkeypatch, value):
    # numba itself as the oracle: it raises on a count below 1 and warns (and ignores it) on text that is no integer.
    from retrieval_eval.kernels._config import check_numba_environment

    env = {**os.environ, "NUMBA_NUM_THREADS": value}
    numba = subprocess.run([sys.executable, "-W", "error", "-c", "import numba"], env=env, capture_output=True)
    monkeypatch.setenv("NUMBA_NUM_THREADS", value)
    try:
        check_numba_environment()
        refused = False
    except ValueError:
        refused = True
    assert refused == (numba.returncode != 0)


def _loads_tbb() -> bool:
    try:
        import numba.np.ufunc.tbbpool  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("layer", ["default", "safe", "forksafe", "threadsafe", "tbb", "omp", "workqueue", "TBB", "Workqueue"])
def test_every_threading_layer_numba_knows_passes_unless_its_library_is_missing(monkeypatch, layer):
    from retrieval_eval.kernels._config import check_numba_environment

    monkeypatch.setenv("NUMBA_THREADING_LAYER", layer)
    if layer.lower() in ("tbb", "safe") and not _loads_tbb():
        with pytest.raises(ValueError, match=rf"^NUMBA_THREADING_LAYER={layer} needs TBB \(pip install tbb\), which numba cannot load"):
            check_numba_environment()
    else:
        check_numba_environment()


def test_sweep_help_shows_the_settings_rules_without_loading_the_numerical_stack():
    from tests.test_cli_imports import loaded_after

    assert not loaded_after(["sweep", "--help"]) & {"pandas", "numba", "scipy", "pyarrow", "matplotlib", "dask"}


def _shared_flag_inputs(tmp_path: Path) -> tuple[str, str]:
    """A qrels with a label -1 and a query the run lacks, and a run with a query the qrels lack and a repeated document."""
    qrels = tmp_path / "qrels.trec"
    qrels.write_text((DATA / "qrels.trec").read_text(encoding="utf-8") + "q0 0 doc2548703x -1\nqlost 0 d1 1\n", encoding="utf-8")
    lines = (DATA / "run.trec").read_text(encoding="utf-8").splitlines()
    query, q0, doc, _, score, tag = lines[5].split()
    run = tmp_path / "run.trec"
    run.write_text("\n".join([*lines, f"{query} {q0} {doc} 99 {float(score) + 50} {tag}", "qrun Q0 d9 1 1.0 t"]) + "\n",
                   encoding="utf-8")  # fmt: skip
    return str(qrels), str(run)


@pytest.mark.parametrize(
    "flags, other",
    [
        (["-l", "2"], ["-l", "1"]),
        (["--rel-level", "2"], ["-l", "1"]),
        (["-M", "3"], ["-M", "1000"]),
        (["-c"], ["--query-set", "both"]),
        (["--query-set", "union"], ["--query-set", "both"]),
        (["--run-duplicates", "max"], ["--run-duplicates", "first"]),
        (["--label-min", "-1", "-m", "fidelity"], ["--label-min", "-1", "-m", "fidelity", "--label-max", "9"]),
    ],
)
def test_the_flags_sweep_shares_with_evaluate_give_evaluate_s_means(capsys, tmp_path, flags, other):
    """The same flags, the same run: the sweep's mean of every metric is evaluate's (and the flag changes it)."""
    qrels, run = _shared_flag_inputs(tmp_path)
    metrics = ["-m", "map", "-m", "P@5", "-m", "ndcg@10"]
    duplicates = [] if "--run-duplicates" in flags else ["--run-duplicates", "first"]

    def evaluated(given: list[str]) -> dict[str, float]:
        code, stdout, err = run_cli(capsys, "evaluate", qrels, run, *metrics, *duplicates, *given, "--format", "json")
        assert code == 0, err
        return {name: value["mean"] for name, value in json.loads(stdout)["metrics"].items()}

    code, stdout, err = run_cli(capsys, "sweep", qrels, run, *metrics, *duplicates, *flags, "--format", "json", *FAST)
    assert code == 0, err
    (row,) = json.loads(stdout)["table"]
    expected = evaluated(flags)
    assert {name: row[name] for name in expected} == expected
    assert expected != evaluated(other) or "--label-min" in flags
    if "--label-min" in flags:  # without it, the label -1 is outside the label range of fidelity
        code, _, err = run_cli(capsys, "sweep", qrels, run, *metrics, *duplicates, "-m", "fidelity", *FAST)
        assert code == 2 and "label" in err


def test_the_flags_shared_with_evaluate_are_one_definition():
    from retrieval_eval.cli import build_parser
    from retrieval_eval.cli.option_flags import SHARED_OPTIONS

    commands = next(action for action in build_parser()._actions if action.dest == "command").choices

    def shared(command: str) -> list[tuple]:
        return [(a.option_strings, a.dest, a.help, a.choices, a.default, a.type, a.const, a.nargs)
                for a in commands[command]._actions if a.dest in SHARED_OPTIONS]  # fmt: skip

    assert len(shared("sweep")) == 7 and shared("sweep") == shared("evaluate")
