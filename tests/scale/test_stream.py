"""evaluate_dataset() streams a parquet run in chunks (or buckets) and equals evaluate() on the same rows."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import ConfigError, EvaluationOptions, InputError, OutputError, evaluate, evaluate_dataset
from retrieval_eval.scale import parse_memory_budget, stream
from tests.scale.layouts import LAYOUTS, TREC_METRICS, assert_same, random_collection, set_chunk_rows, write_layout


def progress_labels(calls: list) -> list[str]:
    return [label for _, _, label in calls]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("chunk_rows", [40, 10_000])
def test_azure_conventions_any_layout(tmp_path, monkeypatch, layout, chunk_rows):
    # Azure's conventions make row order matter (ties in input order, the last repeated row wins).
    set_chunk_rows(monkeypatch, chunk_rows)
    qrels, run = random_collection(seed=1)
    rows = write_layout(run, tmp_path / "run", layout, n_files=5, seed=2)
    calls = []
    streamed = evaluate_dataset(qrels, tmp_path / "run", output=tmp_path / "out", memory_budget="128MiB",
                                thresholds={"ndcg_exp@3": 0.5}, progress=lambda *a: calls.append(a))
    assert_same(streamed, evaluate(qrels, rows, thresholds={"ndcg_exp@3": 0.5}))
    bucketed = any(label.startswith("bucket") for label in progress_labels(calls))
    # Buckets are for rows not grouped by query that do not fit one chunk: shuffled rows, or
    # files of whole queries in mixed order that are bigger than a chunk.
    largest_file = max(pq.read_metadata(path).num_rows for path in (tmp_path / "run").iterdir())
    assert bucketed == {"sorted_split_mid_query": False, "shuffled": chunk_rows < len(rows),
                        "whole_queries_per_file": chunk_rows < largest_file}[layout]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("query_set", ["both", "qrels", "union"])
def test_trec_measures_any_layout(tmp_path, monkeypatch, layout, query_set):
    set_chunk_rows(monkeypatch, 50)
    qrels, run = random_collection(seed=3, repeats=False)
    rows = write_layout(run, tmp_path / "run", layout, n_files=4, seed=4)
    streamed = evaluate_dataset(qrels, str(tmp_path / "run" / "*.parquet"), TREC_METRICS, output=tmp_path / "out",
                                options=EvaluationOptions(query_set=query_set), memory_budget="128MiB")
    assert_same(streamed, evaluate(qrels, rows, TREC_METRICS, query_set=query_set))


def test_integer_ids_and_a_list_of_files(tmp_path, monkeypatch):
    set_chunk_rows(monkeypatch, 30)
    qrels, run = random_collection(seed=5, int_ids=True)
    rows = write_layout(run, tmp_path / "run", "shuffled", n_files=3, seed=6)
    files = [tmp_path / "run" / f"part-{i}.parquet" for i in range(3)]
    streamed = evaluate_dataset(qrels, files, ["ndcg_exp@5", "holes@5", "fidelity"], output=tmp_path / "out",
                                memory_budget="128MiB")
    assert_same(streamed, evaluate(qrels, rows, ["ndcg_exp@5", "holes@5", "fidelity"]))


# An example writes up to 6 files and streams them in up to ~60 chunks: 0.05 to 0.6 s, several
# times a typical property example. At most 40 of them, fewer if the profile says so.
@settings(max_examples=min(40, settings().max_examples))
@given(seed=st.integers(0, 10_000), n_files=st.integers(1, 6), chunk_rows=st.integers(5, 400),
       layout=st.sampled_from(LAYOUTS))
def test_random_partitionings_equal_in_memory(tmp_path_factory, seed, n_files, chunk_rows, layout):
    directory = tmp_path_factory.mktemp("random")
    with pytest.MonkeyPatch.context() as monkeypatch:
        set_chunk_rows(monkeypatch, chunk_rows)
        qrels, run = random_collection(seed=seed, n_queries=25)
        rows = write_layout(run, directory / "run", layout, n_files=n_files, seed=seed + 1)
        streamed = evaluate_dataset(qrels, directory / "run", output=directory / "out", memory_budget="128MiB")
    assert_same(streamed, evaluate(qrels, rows))


def test_an_unsorted_run_is_found_before_any_chunk_is_scored(tmp_path, monkeypatch):
    # Files smaller than a chunk: the second file's first batch meets queries of the first
    # file, so the one-pass way stops before it has scored anything.
    qrels, run = random_collection(seed=19, n_queries=80)
    rows = write_layout(run, tmp_path / "run", "shuffled", n_files=5, seed=20)
    set_chunk_rows(monkeypatch, len(rows) // 2)
    events = []
    real_score_piece = stream.score_piece
    monkeypatch.setattr(stream, "score_piece", lambda *a: events.append("score") or real_score_piece(*a))
    streamed = evaluate_dataset(qrels, tmp_path / "run", output=tmp_path / "out", memory_budget="128MiB",
                                progress=lambda done, total, label: events.append(label.split()[0]))
    assert_same(streamed, evaluate(qrels, rows))
    # One scored piece per bucket: nothing was scored before the run was found unsorted.
    assert events.count("score") == events.count("bucket") > 1


def test_a_bucket_over_the_budget_is_split_again(tmp_path, monkeypatch):
    # Rows of a few hundred queries into buckets of ~20 rows: hash skew leaves some buckets
    # over the chunk, which are split with another hash; the result does not change.
    set_chunk_rows(monkeypatch, 20)
    qrels, run = random_collection(seed=7, n_queries=200)
    rows = write_layout(run, tmp_path / "run", "shuffled", n_files=2, seed=8)
    streamed = evaluate_dataset(qrels, tmp_path / "run", output=tmp_path / "out", memory_budget="128MiB")
    assert_same(streamed, evaluate(qrels, rows))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_query_bigger_than_a_chunk(tmp_path, monkeypatch, layout):
    # One query of 300 rows against chunks of ~20: it is held back (one pass) or kept in one
    # bucket however often that bucket is split, and still scored whole.
    set_chunk_rows(monkeypatch, 20)
    qrels, run = random_collection(seed=41, n_queries=15)
    big = pd.DataFrame({"query_id": "q0", "doc_id": [f"big{i}" for i in range(300)], "score": np.arange(300) / 7})
    run = pd.concat([run[run["query_id"] != "q0"], big], ignore_index=True).sort_values("query_id", kind="stable")
    rows = write_layout(run, tmp_path / "run", layout, n_files=3, seed=42)
    streamed = evaluate_dataset(qrels, tmp_path / "run", output=tmp_path / "out", memory_budget="128MiB")
    assert_same(streamed, evaluate(qrels, rows))


def test_without_output_nothing_is_left_on_disk(tmp_path, monkeypatch):
    set_chunk_rows(monkeypatch, 40)
    qrels, run = random_collection(seed=9)
    rows = write_layout(run, tmp_path / "run", "shuffled", n_files=3, seed=10)
    temp = tmp_path / "temp"
    temp.mkdir()
    result = evaluate_dataset(qrels, tmp_path / "run", memory_budget="128MiB", temp_dir=temp)
    expected = evaluate(qrels, rows)
    pd.testing.assert_frame_equal(result.summary, expected.summary, check_exact=True)
    assert result.output is None and list(temp.iterdir()) == []
    with pytest.raises(ConfigError, match="no per-query dataset"):
        result.read_per_query()


def test_a_failing_bucket_leaves_no_buckets_and_no_output(tmp_path, monkeypatch):
    set_chunk_rows(monkeypatch, 40)
    qrels, run = random_collection(seed=11, repeats=False)
    run = pd.concat([run, run.iloc[[5]]], ignore_index=True)  # one document retrieved twice
    write_layout(run, tmp_path / "run", "shuffled", n_files=3, seed=12)
    temp = tmp_path / "temp"
    temp.mkdir()
    doc = run.iloc[5]
    with pytest.raises(InputError, match=f"query '{doc.query_id}' doc '{doc.doc_id}' is retrieved more than once"):
        evaluate_dataset(qrels, tmp_path / "run", ["map"], output=tmp_path / "out", memory_budget="128MiB", temp_dir=temp)
    assert list(temp.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run", "temp"]


def test_nan_score_names_the_file_and_its_row(tmp_path):
    directory = tmp_path / "run"
    directory.mkdir()
    good = pd.DataFrame({"query_id": ["a", "a"], "doc_id": ["x", "y"], "score": [1.0, 2.0]})
    bad = pa.table({"query_id": ["b", "b", "b"], "doc_id": ["x", "y", "z"], "score": np.array([1.0, 2.0, np.nan])})
    pq.write_table(pa.Table.from_pandas(good, preserve_index=False), directory / "part-0.parquet")
    pq.write_table(bad, directory / "part-1.parquet")
    qrels = pd.DataFrame({"query_id": ["a"], "doc_id": ["x"], "relevance": [1]})
    with pytest.raises(InputError, match=r"part-1\.parquet, row 3, field 'score': 1 NaN score"):
        evaluate_dataset(qrels, directory)


def test_id_kinds_must_agree_across_files(tmp_path):
    directory = tmp_path / "run"
    directory.mkdir()
    pq.write_table(pa.table({"query_id": ["a"], "doc_id": ["x"], "score": [1.0]}), directory / "part-0.parquet")
    pq.write_table(pa.table({"query_id": [7], "doc_id": ["x"], "score": [1.0]}), directory / "part-1.parquet")
    qrels = pd.DataFrame({"query_id": ["a"], "doc_id": ["x"], "relevance": [1]})
    with pytest.raises(InputError, match=r"part-1\.parquet, field 'query_id': query_ids are integers here but strings"):
        evaluate_dataset(qrels, directory)


def test_user_column_names(tmp_path):
    directory = tmp_path / "run"
    directory.mkdir()
    pq.write_table(pa.table({"topic": ["a", "a"], "docno": ["x", "y"], "points": [1.0, 2.0]}), directory / "p.parquet")
    qrels = pd.DataFrame({"query_id": ["a"], "doc_id": ["x"], "relevance": [1]})
    result = evaluate_dataset(qrels, directory, ["P@2"], run_columns={"query_id": "topic", "score": "points"})
    assert result.means == {"P@2": 0.5} and result.canonical_names == {"P@2": "precision@2"}


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("missing-dir", "file not found"),
        ("empty/*.parquet", "no parquet file matches this pattern"),
        ("empty", "no parquet file"),
        ("run.csv", "must be parquet"),
    ],
)
def test_run_sources_that_are_not_parquet_files(tmp_path, source, message):
    (tmp_path / "empty").mkdir()
    (tmp_path / "run.csv").write_text("query_id,doc_id,score\n")
    qrels = pd.DataFrame({"query_id": ["a"], "doc_id": ["x"], "relevance": [1]})
    with pytest.raises(InputError, match=message):
        evaluate_dataset(qrels, str(tmp_path / source))


def test_output_replaces_an_earlier_dataset_but_not_other_files(tmp_path):
    qrels, run = random_collection(seed=13)
    write_layout(run, tmp_path / "run", "sorted_split_mid_query", n_files=2, seed=14)
    out = tmp_path / "out"
    first = evaluate_dataset(qrels, tmp_path / "run", ["ndcg_exp@3"], output=out)
    second = evaluate_dataset(qrels, tmp_path / "run", ["ndcg_exp@5"], output=out)
    assert first.output == second.output == str(out)
    assert list(second.read_per_query().columns) == ["query_id", "ndcg_exp@5"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    (out / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match="not replaced"):
        evaluate_dataset(qrels, tmp_path / "run", ["ndcg_exp@5"], output=out)
    assert (out / "notes.txt").read_text() == "mine"


def test_hidden_and_underscore_files_of_a_directory_are_skipped(tmp_path):
    qrels, run = random_collection(seed=15)
    rows = write_layout(run, tmp_path / "run", "sorted_split_mid_query", n_files=2, seed=16)
    (tmp_path / "run" / "_SUCCESS").write_text("")
    pq.write_table(pa.table({"x": [1]}), tmp_path / "run" / "_metadata.parquet")
    assert_same(evaluate_dataset(qrels, tmp_path / "run", output=tmp_path / "out"), evaluate(qrels, rows))


def test_the_qrels_must_leave_room_in_the_budget(tmp_path, monkeypatch):
    qrels, run = random_collection(seed=17)
    write_layout(run, tmp_path / "run", "sorted_split_mid_query", n_files=1, seed=18)
    monkeypatch.setattr("retrieval_eval.data.qrels.Qrels.nbytes", property(lambda self: 30 << 20))
    with pytest.raises(ConfigError, match=r"the qrels \(45 MiB in memory\) and the compiled kernels \(80 MiB\) take "
                       "125 MiB of the 128 MiB memory budget"):
        evaluate_dataset(qrels, tmp_path / "run", memory_budget="128MiB")


@pytest.mark.parametrize(
    ("text", "size"),
    [("1GiB", 1 << 30), ("512MB", 512 * 10**6), ("2g", 2 * 10**9), ("1.5 GiB", 3 << 29), (1 << 28, 1 << 28)],
)
def test_memory_budget_sizes(text, size):
    assert parse_memory_budget(text) == size


@pytest.mark.parametrize("text", ["", "lots", "1 GiBs", "-1GiB", "100MiB", True])
def test_memory_budget_errors(text):
    with pytest.raises(ConfigError, match="memory budget"):
        parse_memory_budget(text)


def test_empty_files_and_no_rows(tmp_path):
    directory = tmp_path / "run"
    directory.mkdir()
    pq.write_table(pa.table({"query_id": pa.array([], pa.string()), "doc_id": pa.array([], pa.string()),
                             "score": pa.array([], pa.float64())}), directory / "part-0.parquet")
    qrels = pd.DataFrame({"query_id": ["a", "b"], "doc_id": ["x", "y"], "relevance": [1, 0]})
    result = evaluate_dataset(qrels, directory, ["ndcg@3"], output=tmp_path / "out", options=EvaluationOptions(query_set="qrels"))
    assert result.query_counts == {"evaluated": 2, "judged_only": 2, "retrieved_only": 0, "both": 0}
    assert result.means == {"ndcg@3": 0.0}
    assert os.path.isdir(tmp_path / "out")
