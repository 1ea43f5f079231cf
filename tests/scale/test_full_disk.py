"""A full disk while a streamed run writes its per-query parts or its buckets is one line naming the output (or the
temporary directory) and the reason, exit 2, with nothing left behind."""

from __future__ import annotations

import errno
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from retrieval_eval.errors import OutputError
from retrieval_eval.scale.buckets import write_buckets
from tests.scale.layouts import random_collection, write_layout
from tests.test_cli import run_cli


def _full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")


def test_a_full_disk_under_the_per_query_dataset_names_it(capsys, tmp_path, monkeypatch):
    qrels, run = random_collection(seed=51)
    write_layout(run, tmp_path / "run", "sorted_split_mid_query", n_files=2, seed=52)
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(pq, "write_table", _full)  # how pyarrow words ENOSPC
    code, out, err = run_cli(capsys, "evaluate", "qrels.csv", "run", "-o", "per_query", "--memory-budget", "1GiB")
    assert (code, out) == (2, "")
    assert err == "retrieval-eval: error: per_query: cannot write: No space left on device\n"
    assert sorted(os.listdir(tmp_path)) == ["qrels.csv", "run"]


def test_a_full_disk_under_the_buckets_names_the_temporary_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(pq.ParquetWriter, "write_table", _full)
    directory = tmp_path / ".buckets.0123456789ab.tmp"
    directory.mkdir()
    table = pa.table({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "score": [1.0, 0.5]})
    with pytest.raises(OutputError, match=rf"^{tmp_path}: cannot write the run's buckets there .*: No space left on device$"):
        write_buckets([table], 2, directory, salt=0, buffer_rows=1)
