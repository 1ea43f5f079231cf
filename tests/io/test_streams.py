"""Inputs that are not plain files on disk: stdin (``-``), pipes (``/dev/stdin``, ``<(...)``),
and gzip files that are corrupt or cut short (the error names the file)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from retrieval_eval.errors import InputError
from retrieval_eval.io import read_qrels_table, read_run_table, trec_run_tag

RUN = b"1 Q0 a 1 2.5 tagged\n1 Q0 b 2 1.5 tagged\n2 Q0 c 1 0.5 tagged\n"
ROWS = [("1", "a", 2.5), ("1", "b", 1.5), ("2", "c", 0.5)]


def _rows(table: pa.Table) -> list[tuple]:
    return [tuple(row.values()) for row in table.to_pylist()]


def _pipe(data: bytes) -> str:
    """A /dev/fd path whose reader gets ``data``, as bash's ``<(...)`` gives."""
    read_end, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "wb") as out:
            out.write(data)

    threading.Thread(target=feed, daemon=True).start()
    return f"/dev/fd/{read_end}"


def _python(code: str, stdin: bytes) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, timeout=120)


@pytest.mark.parametrize("name", ["-", "/dev/stdin"])
def test_stdin_is_read_for_text_formats(name):
    code = (
        "from retrieval_eval.io import read_run_table, trec_run_tag\n"
        f"t = read_run_table({name!r})\n"
        f"print(t.num_rows, t['score'].to_pylist(), trec_run_tag({name!r}))"
    )
    done = _python(code, RUN)
    assert done.returncode == 0, done.stderr
    # The tag is read after the table: the same bytes, not an exhausted stream.
    assert done.stdout.decode().split() == ["3", "[2.5,", "1.5,", "0.5]", "tagged"]


@pytest.mark.parametrize("fmt, data", [("csv", b"query_id,doc_id,score\n1,a,2.5\n1,b,1.5\n2,c,0.5\n"),
                                       ("tsv", b"query_id\tdoc_id\tscore\n1\ta\t2.5\n1\tb\t1.5\n2\tc\t0.5\n"),
                                       ("jsonl", b'{"query_id":"1","doc_id":"a","score":2.5}\n{"query_id":"1","doc_id":"b","score":1.5}\n'
                                                 b'{"query_id":"2","doc_id":"c","score":0.5}\n'),
                                       ("trec", RUN)])
def test_pipes_are_read_in_every_text_format(fmt, data):
    assert _rows(read_run_table(_pipe(data), format=fmt)) == ROWS


def test_a_gzip_pipe_is_recognised_by_its_content():
    assert _rows(read_run_table(_pipe(gzip.compress(RUN)))) == ROWS


def test_a_pipe_read_twice_gives_the_same_bytes():
    path = _pipe(RUN)
    assert _rows(read_run_table(path)) == ROWS
    assert trec_run_tag(path) == "tagged"


def test_a_parquet_pipe_is_read(tmp_path):
    pq.write_table(pa.table({"query_id": ["1"], "doc_id": ["a"], "score": [2.5]}), tmp_path / "r.parquet")
    assert _rows(read_run_table(_pipe((tmp_path / "r.parquet").read_bytes()), format="parquet")) == [("1", "a", 2.5)]


def test_empty_stdin_is_an_empty_file():
    done = _python("from retrieval_eval.io import read_run_table\nread_run_table('-')", b"")
    assert done.returncode == 1 and b"InputError: <stdin>: empty file" in done.stderr


def test_an_empty_path_is_named():
    with pytest.raises(InputError, match="empty path"):
        read_qrels_table("")


def _broken_gzips(text: bytes) -> dict[str, bytes]:
    whole = gzip.compress(text)
    return {
        "truncated": whole[: len(whole) // 2],
        "corrupt": whole[:10] + bytes(b ^ 0x5A for b in whole[10:]),
        "not gzip": b"plain text, not gzip\n",
    }


_QRELS_BY_FORMAT = {
    "q.txt.gz": b"1 0 a 1\n" * 2000,
    "q.csv.gz": b"query_id,doc_id,relevance\n" + b"1,a,1\n" * 2000,
    "q.tsv.gz": b"query_id\tdoc_id\trelevance\n" + b"1\ta\t1\n" * 2000,
    "q.jsonl.gz": b'{"query_id":"1","doc_id":"a","relevance":1}\n' * 2000,
}


@pytest.mark.parametrize("name", list(_QRELS_BY_FORMAT))
@pytest.mark.parametrize("damage", ["truncated", "corrupt", "not gzip"])
def test_a_broken_gzip_file_is_named(tmp_path, name, damage):
    path = tmp_path / name
    path.write_bytes(_broken_gzips(_QRELS_BY_FORMAT[name])[damage])
    with pytest.raises(InputError) as excinfo:
        read_qrels_table(path)
    assert excinfo.value.source == str(path)


def test_a_broken_gzip_parquet_file_is_named(tmp_path):
    pq.write_table(pa.table({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}), tmp_path / "q.parquet")
    path = tmp_path / "q.parquet.gz"
    path.write_bytes(_broken_gzips((tmp_path / "q.parquet").read_bytes())["truncated"])
    with pytest.raises(InputError) as excinfo:
        read_qrels_table(path)
    assert excinfo.value.source == str(path)


def test_a_large_truncated_gzip_trec_file_is_named(tmp_path):
    # Large enough for the multi-threaded line reader (more than one 4 MiB block).
    path = tmp_path / "run.gz"
    lines = b"".join(b"%d Q0 doc%d 1 %d.5 t\n" % (i % 97, i, i) for i in range(400_000))
    path.write_bytes(gzip.compress(lines, compresslevel=1)[:-5000])
    with pytest.raises(InputError, match="gzip") as excinfo:
        read_run_table(path)
    assert excinfo.value.source == str(path) and Path(excinfo.value.source).name == "run.gz"


def test_stdin_is_named_the_same_by_the_reader_and_the_data_layer():
    code = "from retrieval_eval import Qrels\nQrels.read('-', duplicates='raise')"
    done = _python(code, b"1 0 a 1\n1 0 a 2\n")
    assert done.returncode == 1
    last = done.stderr.decode().strip().splitlines()[-1]
    # DuplicateError is the InputError of a repeated document.
    assert last.startswith("retrieval_eval.errors.DuplicateError: <stdin>, row 2"), last
