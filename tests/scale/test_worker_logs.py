"""A job failing on Dask with one of the library's errors prints that error, one line, and nothing of Dask's: the
workers drop their "Compute Failed" record of it while the job runs, and log as before once it ends."""

from __future__ import annotations

import logging
import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from retrieval_eval import InputError, evaluate_dataset

pytest.importorskip("distributed")

from retrieval_eval.scale.worker_logs import _ReportedByTheClient  # noqa: E402

ROOT = str(Path(__file__).resolve().parents[2])
QRELS = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"], "relevance": [1, 1, 1]})
GOOD = pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "x", "b"], "score": [1.0, 0.5, 0.3]})
BAD = pa.table({"query_id": ["q3", "q3"], "doc_id": ["c", "z"], "score": pa.array([0.1, math.nan], from_pandas=False)})


@pytest.fixture
def bad_run(tmp_path):
    (tmp_path / "run").mkdir()
    pq.write_table(GOOD, tmp_path / "run" / "part0.parquet")
    pq.write_table(BAD, tmp_path / "run" / "part1.parquet")
    (tmp_path / "qrels.trec").write_text("q1 0 a 1\nq2 0 b 1\nq3 0 c 1\n")
    return tmp_path


class _Kept(logging.Handler):
    """What a worker's ``distributed.worker`` logger logs, kept in the worker for the test to fetch."""

    records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        _Kept.records.append(record.getMessage())


def _listen() -> None:
    _Kept.records.clear()
    logging.getLogger("distributed.worker").addHandler(_Kept())


def _heard() -> list[str]:
    logger = logging.getLogger("distributed.worker")
    for handler in [h for h in logger.handlers if isinstance(h, _Kept)]:
        logger.removeHandler(handler)
    return list(_Kept.records)


def _our_filters() -> int:
    return sum(isinstance(f, _ReportedByTheClient) for f in logging.getLogger("distributed.worker").filters)


def test_the_workers_do_not_log_the_error_the_client_raises_and_log_as_before_afterwards(bad_run, dask_client):
    dask_client.run(_listen)
    with pytest.raises(InputError, match=r"part1\.parquet, row 2, field 'score': 1 NaN score"):
        evaluate_dataset(QRELS, bad_run / "run", ["map"], dask=dask_client)
    heard = [line for lines in dask_client.run(_heard).values() for line in lines]
    assert not [line for line in heard if "Compute Failed" in line], heard
    assert set(dask_client.run(_our_filters).values()) == {0}  # taken off again: other jobs' failures are logged


@pytest.mark.parametrize(("shown", "kept"), [
    ("InputError('bad.parquet, row 2, ...')", False), ("DuplicateError('...')", False), ("ConfigError('...')", False),
    ("ValueError('a bug')", True), ("KilledWorker('...')", True), ("InputErrorX('...')", True),
])  # fmt: skip
def test_only_the_libraries_errors_are_dropped(shown, kept):
    record = logging.LogRecord("distributed.worker", logging.ERROR, __file__, 1,
                               "Compute Failed\nKey:       %s\nState:     %s\nTask:  %s\nException: %r\nTraceback: %r\n",
                               ("key", "executing", "task", shown, "tb"), None)
    other = logging.LogRecord("distributed.worker", logging.ERROR, __file__, 1, "Failed to communicate", (), None)
    assert _ReportedByTheClient("job").filter(record) is kept
    assert _ReportedByTheClient("job").filter(other) is True


def test_a_failing_local_cluster_job_prints_only_its_one_line(bad_run):
    env = {key: value for key, value in os.environ.items() if key != "RETRIEVAL_EVAL_KERNELS"}
    env["PYTHONPATH"] = os.pathsep.join([ROOT, *filter(None, [env.get("PYTHONPATH")])])  # this checkout, for the workers too
    completed = subprocess.run(
        [sys.executable, "-m", "retrieval_eval.cli", "evaluate", "qrels.trec", "run", "--dask", "local:2", "-m", "map"],
        cwd=bad_run, env=env, capture_output=True, text=True, timeout=300,
    )
    assert (completed.returncode, completed.stdout) == (2, "")
    assert completed.stderr.splitlines() == [
        f"retrieval-eval: error: {os.path.join('run', 'part1.parquet')}, row 2, field 'score': 1 NaN score(s), "
        "first at query 'q3' doc 'z'; NaN cannot be ranked"
    ]
