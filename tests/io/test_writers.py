"""Tests of the atomic writers: formats, JSON's NaN policy, and failures leaving nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from retrieval_eval.errors import OutputError
from retrieval_eval.io import read_run_table, write_json, write_table

TABLE = pa.table({"query_id": ["001", "a,b", 'q"x'], "doc_id": ["d 1", "d2", "d3"], "score": [1.5, 0.25, -3.0]})


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("ext", ["parquet", "pq", "csv", "tsv", "json", "jsonl", "ndjson"])
def test_write_table_round_trips_every_format(tmp_path, ext):
    path = tmp_path / f"out.{ext}"
    write_table(TABLE, path)
    assert read_run_table(path).to_pylist() == TABLE.to_pylist()
    assert leftovers(tmp_path) == []


def test_write_table_from_dataframe_named_index_becomes_a_column(tmp_path):
    frame = pd.DataFrame({"query_id": ["q1", "q2"], "ndcg@10": [0.5, 1.0]}).set_index("query_id")
    write_table(frame, tmp_path / "per_query.parquet")
    back = pq.read_table(tmp_path / "per_query.parquet")
    assert back.column_names == ["query_id", "ndcg@10"]
    plain = pd.DataFrame({"a": [1, 2]})
    write_table(plain, tmp_path / "plain.csv")
    assert (tmp_path / "plain.csv").read_text().splitlines()[0] == "a"  # RangeIndex dropped


def test_write_table_format_argument(tmp_path):
    path = tmp_path / "table.out"
    write_table(TABLE, path, format="tsv")
    assert "\t" in path.read_text().splitlines()[0]


def test_write_table_json_records_and_nan_as_null(tmp_path):
    table = pa.table({"m": [1.0, float("nan"), float("inf")], "q": ["a", "b", "c"]})
    write_table(table, tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text()) == [
        {"m": 1.0, "q": "a"}, {"m": None, "q": "b"}, {"m": None, "q": "c"},
    ]
    write_table(table, tmp_path / "t.jsonl")
    lines = (tmp_path / "t.jsonl").read_text().splitlines()
    assert [json.loads(line)["m"] for line in lines] == [1.0, None, None]


def test_write_table_empty_json_is_an_empty_array(tmp_path):
    write_table(TABLE.slice(0, 0), tmp_path / "e.json")
    assert json.loads((tmp_path / "e.json").read_text()) == []


def test_write_table_replaces_an_existing_file(tmp_path):
    path = tmp_path / "out.csv"
    path.write_text("old")
    write_table(TABLE, path)
    assert read_run_table(path).num_rows == 3


def test_write_json_pretty_with_numpy_and_nan(tmp_path):
    path = tmp_path / "summary.json"
    write_json({"ndcg": np.float32(0.5), "n": np.int64(3), "nan": float("nan"), "v": np.array([1, 2]), "t": (1, "x")}, path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("{\n  ")  # indented
    assert json.loads(text) == {"ndcg": 0.5, "n": 3, "nan": None, "v": [1, 2], "t": [1, "x"]}
    assert "NaN" not in text


def test_write_json_unicode_kept(tmp_path):
    write_json({"q": "café"}, tmp_path / "u.json")
    assert "café" in (tmp_path / "u.json").read_text(encoding="utf-8")


def test_written_file_mode_follows_umask(tmp_path):
    write_json({}, tmp_path / "m.json")
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "m.json").stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize("writer", [lambda p: write_table(TABLE, p), lambda p: write_json({"a": 1}, p)])
def test_missing_directory_leaves_nothing(tmp_path, writer):
    target = tmp_path / "no_such_dir" / "out.json"
    with pytest.raises(OutputError) as excinfo:
        writer(target)
    assert str(target) in str(excinfo.value) and "does not exist" in str(excinfo.value)
    assert not target.parent.exists()
    assert list(tmp_path.iterdir()) == []


def test_writer_failure_removes_temp_file_and_keeps_old_target(tmp_path):
    nested = pa.table({"x": pa.array([[1, 2]])})  # CSV cannot hold lists
    target = tmp_path / "out.csv"
    target.write_text("previous")
    with pytest.raises(OutputError) as excinfo:
        write_table(nested, target)
    assert str(target) in str(excinfo.value)
    assert target.read_text() == "previous"
    assert leftovers(tmp_path) == []


def test_write_json_unserializable(tmp_path):
    with pytest.raises(OutputError, match="not JSON serializable"):
        write_json({"a": object()}, tmp_path / "x.json")
    assert list(tmp_path.iterdir()) == []


def test_target_is_a_directory(tmp_path):
    (tmp_path / "out.json").mkdir()
    with pytest.raises(OutputError, match="out.json"):
        write_json({"a": 1}, tmp_path / "out.json")
    assert leftovers(tmp_path) == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores permissions")
def test_permission_denied(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="Permission denied"):
            write_json({"a": 1}, locked / "x.json")
    finally:
        locked.chmod(0o700)


def test_unknown_extension_lists_supported(tmp_path):
    with pytest.raises(OutputError) as excinfo:
        write_table(TABLE, tmp_path / "out.xlsx")
    message = str(excinfo.value)
    assert "out.xlsx" in message and ".parquet" in message and ".csv" in message and ".jsonl" in message
    with pytest.raises(OutputError, match="unknown format"):
        write_table(TABLE, tmp_path / "out.csv", format="xlsx")
    assert list(tmp_path.iterdir()) == []


def test_not_a_table(tmp_path):
    with pytest.raises(OutputError, match="DataFrame"):
        write_table({"a": [1]}, tmp_path / "x.csv")
