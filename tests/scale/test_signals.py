"""A streamed `evaluate` stopped mid-run by a signal leaves nothing behind, and the next run succeeds.

Each test runs the command in a child process that stops for good once the first per-query
part is written (buckets on disk, a staging directory with a part in it), and sends the signal
then. SIGINT and SIGTERM unwind: the child removes its buckets and staging itself and exits
130 or 143 with one line. SIGKILL cannot be caught: what it leaves is removed by the next run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from retrieval_eval import evaluate
from retrieval_eval.cli import main
from tests.scale.layouts import random_collection, write_layout

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX signals")

# The child: many small chunks and buckets, and a stop after the first part is written.
CHILD = """
import sys, time
from pathlib import Path
from retrieval_eval.cli import main
from retrieval_eval.scale import budget, output

budget.SCORING_OVERHEAD_PER_ROW = (budget.MIN_BUDGET - budget.KERNEL_CODE) // 40
write_part = output.write_part

def write_part_then_wait(*args):
    write_part(*args)
    Path(sys.argv[1]).touch()
    time.sleep(120)

output.write_part = write_part_then_wait
sys.exit(main(sys.argv[2:]))
"""


@pytest.fixture
def collection(tmp_path):
    qrels, run = random_collection(seed=41, n_queries=30, repeats=False)
    rows = write_layout(run, tmp_path / "run", "shuffled", n_files=3, seed=42)
    qrels.to_parquet(tmp_path / "qrels.parquet")
    (tmp_path / "temp").mkdir()
    return qrels, rows


def _start(tmp_path: Path, argv: list[str]) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items() if key != "RETRIEVAL_EVAL_KERNELS"}  # tiny input: auto
    return subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path / "ready"), *argv], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_until_ready(child: subprocess.Popen, ready: Path) -> None:
    deadline = time.monotonic() + 120
    while not ready.exists():
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            pytest.fail(f"the child ended before its first part: {child.communicate()}")
        time.sleep(0.02)


def _scratch(tmp_path: Path) -> tuple[list[str], list[str]]:
    """The staging beside the target, and what is in the temporary directory."""
    return sorted(p.name for p in tmp_path.glob(".out.*")), sorted(os.listdir(tmp_path / "temp"))


ARGV = ["evaluate", "qrels.parquet", "run", "-m", "ndcg_exp@5", "-m", "fidelity", "-o", "out",
        "--memory-budget", "128MiB", "--temp-dir", "temp", "--format", "json"]


@pytest.mark.parametrize(
    ("number", "code", "line"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated"), (signal.SIGKILL, -signal.SIGKILL, None)],
    ids=["SIGINT", "SIGTERM", "SIGKILL"],
)
def test_a_signal_mid_run_leaves_nothing_and_the_next_run_succeeds(capsys, tmp_path, monkeypatch, collection,
                                                                  number, code, line):
    qrels, rows = collection
    child = _start(tmp_path, ARGV)
    _wait_until_ready(child, tmp_path / "ready")
    staging, temp = _scratch(tmp_path)
    # Mid-run indeed: a staging directory holding a part, and a directory of buckets.
    assert len(staging) == 1 and any(p.startswith("part-") for p in os.listdir(tmp_path / staging[0]))
    assert len(temp) == 1 and temp[0].startswith(".retrieval-eval-buckets.") and os.listdir(tmp_path / "temp" / temp[0])
    child.send_signal(number)
    out, err = child.communicate(timeout=60)
    assert child.returncode == code and out == ""
    if line is not None:
        assert err == f"retrieval-eval: {line}\n"
        assert _scratch(tmp_path) == ([], [])
    else:  # left behind, and cleared below by the next run
        assert _scratch(tmp_path) == (staging, temp)
    assert not (tmp_path / "out").exists()

    monkeypatch.chdir(tmp_path)
    assert main(ARGV) == 0
    assert _scratch(tmp_path) == ([], [])
    expected = evaluate(qrels, rows, ["ndcg_exp@5", "fidelity"]).per_query.sort_values("query_id", ignore_index=True)
    written = pd.read_parquet(tmp_path / "out").sort_values("query_id", ignore_index=True)
    pd.testing.assert_frame_equal(written, expected, check_dtype=False)
