"""Hostile Dask arguments and files: one parser of the address for the API and the CLI, an error at once, never a
hang; a bad file is the error the in-memory path gives, naming the file, row and field."""

from __future__ import annotations

import math
import os

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from retrieval_eval import ConfigError, EvaluationOptions, InputError, evaluate, evaluate_dataset
from retrieval_eval.scale.budget import ChunkSizing
from tests.scale.layouts import assert_same, random_collection, write_layout
from tests.test_cli import run_cli

pytest.importorskip("distributed")

from retrieval_eval.scale.cluster import LOCAL_WORKERS_PER_CORE, LocalWorkers, dask_target  # noqa: E402

MOST = LOCAL_WORKERS_PER_CORE * (os.cpu_count() or 1)
INVALID = ["local:abc", "bogus", "local:-1", "local:0", f"local:{MOST + 1}", "local:", "local:2.5", "local:٣",
           "tcp://host", "tcp://host:0", "tcp://host:65536", "udp://host:8786", "host:port", "", "  ", "tcp://:8786"]  # fmt: skip


def _message(value: object) -> str:
    return (
        "dask must be a distributed.Client, a scheduler address such as 'tcp://host:8786', or 'local' / 'local:N' "
        f"with N from 1 to {MOST} worker processes ({os.cpu_count() or 1} cores here); got {value!r}"
    )


@pytest.mark.parametrize(
    ("value", "target"),
    [("local", LocalWorkers(os.cpu_count() or 1)), ("local:1", LocalWorkers(1)), (f" local:{MOST} ", LocalWorkers(MOST)),
     ("tcp://scheduler:8786", "tcp://scheduler:8786"), ("scheduler.example.org:8786", "scheduler.example.org:8786"),
     ("tls://10.0.0.1:1", "tls://10.0.0.1:1"), ("ws://[::1]:65535", "ws://[::1]:65535"), (LocalWorkers(3), LocalWorkers(3))],
)  # fmt: skip
def test_the_forms_of_a_dask_target(value, target):
    assert dask_target(value) == target


def test_a_client_is_used_as_it_is(dask_client):
    assert dask_target(dask_client) is dask_client


@pytest.mark.parametrize("value", [*INVALID, 3, None, b"local:2"], ids=repr)
def test_anything_else_is_one_error_naming_the_forms(value):
    with pytest.raises(ConfigError) as raised:
        dask_target(value)
    assert str(raised.value) == _message(value)


@pytest.mark.parametrize("value", INVALID, ids=repr)
def test_the_cli_refuses_a_bad_address_at_once_with_the_same_message(capsys, value):
    # The qrels do not exist: the address is refused before any file is read, or any connection tried.
    code, out, err = run_cli(capsys, "evaluate", "no-such-qrels.trec", "no-such-run", "--dask", value)
    assert (code, out, err) == (2, "", f"retrieval-eval: error: {_message(value)}\n")


@pytest.mark.parametrize("value", ["local:abc", "bogus", "local:-1"])
def test_the_api_refuses_the_reported_addresses(tmp_path, value):
    qrels, run = random_collection(seed=31)
    write_layout(run, tmp_path / "run", "sorted_split_mid_query", n_files=1, seed=32)
    with pytest.raises(ConfigError, match="^dask must be a distributed.Client"):
        evaluate_dataset(qrels, tmp_path / "run", dask=value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


@pytest.mark.parametrize("value", ["local:abc", "bogus"])
def test_the_api_refuses_a_bad_address_before_reading_anything(value):
    """As the CLI: the address is checked before the qrels or the run are read (neither exists here)."""
    with pytest.raises(ConfigError, match="^dask must be a distributed.Client"):
        evaluate_dataset("no-such-qrels.trec", "no-such-run", dask=value)


# Hostile files on the Dask path: each piece is read and checked as the in-memory path reads a file,
# so the error is the same one, naming the file, the row of that file and the field.

GOOD = pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "x", "b"], "score": [1.0, 0.5, 0.3]})
HOSTILE = {
    "query ids of another kind": pa.table({"query_id": [3, 3], "doc_id": ["c", "y"], "score": [1.0, 0.2]}),
    "doc ids of another kind": pa.table({"query_id": ["q3", "q3"], "doc_id": [7, 8], "score": [1.0, 0.2]}),
    "a missing column": pa.table({"query_id": ["q3"], "doc_id": ["c"]}),
    "a null score": pa.table({"query_id": ["q3", "q3"], "doc_id": ["c", "z"], "score": pa.array([0.1, None])}),
    "a NaN score": pa.table({"query_id": ["q3", "q3"], "doc_id": ["c", "z"], "score": pa.array([0.1, math.nan], from_pandas=False)}),
    "a null query id": pa.table({"query_id": pa.array(["q3", None]), "doc_id": ["c", "z"], "score": [0.1, 0.2]}),
    "float doc ids": pa.table({"query_id": ["q3", "q3"], "doc_id": [1.5, 2.5], "score": [0.1, 0.2]}),
    "text scores": pa.table({"query_id": ["q3", "q3"], "doc_id": ["c", "z"], "score": ["high", "low"]}),
}  # fmt: skip
QRELS = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"], "relevance": [1, 1, 1]})


def _error(call) -> str:
    with pytest.raises(InputError) as raised:
        call()
    return str(raised.value)


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_file_fails_on_dask_with_the_in_memory_error(tmp_path, dask_client, case):
    (tmp_path / "run").mkdir()
    pq.write_table(GOOD, tmp_path / "run" / "part0.parquet")
    pq.write_table(HOSTILE[case], tmp_path / "run" / "part1.parquet")
    expected = _error(lambda: evaluate_dataset(QRELS, tmp_path / "run", ["map"]))
    assert "part1.parquet" in expected and "Dask" not in expected
    got = _error(lambda: evaluate_dataset(QRELS, tmp_path / "run", ["map"], output=tmp_path / "out", dask=dask_client))
    assert got == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_an_error_deep_in_a_file_split_into_pieces_names_the_row_of_the_file(tmp_path, monkeypatch, dask_client):
    # Pieces of at most 4 rows: the bad row is the 10th of its file, in its third piece.
    sizing = ChunkSizing(chunk_rows=4, batch_rows=1, bucket_batch_rows=1)
    monkeypatch.setattr(ChunkSizing, "within", classmethod(lambda cls, *args: sizing))
    scores = [float(i) for i in range(12)]
    scores[9] = math.nan
    table = pa.table({"query_id": [f"q{i % 3 + 1}" for i in range(12)], "doc_id": [f"d{i}" for i in range(12)],
                      "score": pa.array(scores, from_pandas=False)})  # fmt: skip
    (tmp_path / "run").mkdir()
    pq.write_table(table, tmp_path / "run" / "part0.parquet", row_group_size=2)
    with pytest.raises(InputError, match=r"part0\.parquet, row 10, field 'score': 1 NaN score\(s\)"):
        evaluate_dataset(QRELS, tmp_path / "run", ["map"], dask=dask_client)


def test_each_file_resolves_its_own_column_names_on_dask(tmp_path, dask_client):
    (tmp_path / "run").mkdir()
    pq.write_table(GOOD, tmp_path / "run" / "part0.parquet")
    other = pa.table({"qid": ["q3", "q3"], "docno": ["c", "z"], "sim": [0.9, 0.2]})
    pq.write_table(other, tmp_path / "run" / "part1.parquet")
    rows = pd.concat([GOOD.to_pandas(), other.to_pandas().set_axis(["query_id", "doc_id", "score"], axis=1)])
    streamed = evaluate_dataset(QRELS, tmp_path / "run", ["map", "ndcg@3"], output=tmp_path / "out", dask=dask_client)
    assert_same(streamed, evaluate(QRELS, rows, ["map", "ndcg@3"]))


def test_an_unreachable_scheduler_is_one_line_after_dasks_connect_timeout(capsys, tmp_path):
    import dask

    qrels, run = random_collection(seed=33)
    write_layout(run, tmp_path / "run", "sorted_split_mid_query", n_files=1, seed=34)
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code, out, err = run_cli(capsys, "evaluate", str(tmp_path / "qrels.csv"), str(tmp_path / "run"),
                                 "--dask", "tcp://127.0.0.1:1", "-o", str(tmp_path / "out"))  # fmt: skip
    assert (code, out) == (2, "")
    assert err == "retrieval-eval: error: Timed out trying to connect to tcp://127.0.0.1:1 after 1 s\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qrels.csv", "run"]


# pandas writes the columns of an empty frame as doubles: a file without rows is never read for its types.
EMPTY = pa.Table.from_pandas(pd.DataFrame({"query_id": [], "doc_id": [], "score": []}), preserve_index=False)


@pytest.mark.parametrize("tables", [[GOOD, EMPTY], [EMPTY, GOOD], [EMPTY, EMPTY]], ids=["last-empty", "first-empty", "all-empty"])
def test_files_without_rows_score_on_dask_as_in_memory(tmp_path, dask_client, tables):
    (tmp_path / "run").mkdir()
    for index, table in enumerate(tables):
        pq.write_table(table, tmp_path / "run" / f"part{index}.parquet")
    options = EvaluationOptions(query_set="qrels")  # the judged queries no file retrieved for are scored too
    expected = evaluate_dataset(QRELS, tmp_path / "run", ["map"], output=tmp_path / "memory", options=options)
    got = evaluate_dataset(QRELS, tmp_path / "run", ["map"], output=tmp_path / "dask", options=options, dask=dask_client)
    pd.testing.assert_frame_equal(got.summary, expected.summary, check_exact=True)
    assert got.query_counts == expected.query_counts
    by_query = ["query_id"]
    pd.testing.assert_frame_equal(got.read_per_query().sort_values(by_query, ignore_index=True),
                                  expected.read_per_query().sort_values(by_query, ignore_index=True))  # fmt: skip
