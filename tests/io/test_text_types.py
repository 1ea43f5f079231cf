"""TREC text is written from ids of every Arrow string type a reader hands over (pandas and pandas-written
parquet give ``large_string``, Arrow's readers ``string``, categoricals dictionaries), alone or mixed in one table."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from retrieval_eval.data import Run
from retrieval_eval.io.run_files import write_run
from retrieval_eval.pooling.files import write_qrels
from tests.test_cli import run_cli

DATA = Path(__file__).resolve().parents[2] / "data"
QUERIES, DOCS = ["q1", "q1", "q2"], ["d1", "d2", "d1"]
TYPES = {
    "string": lambda ids: pa.array(ids, pa.string()),
    "large_string": lambda ids: pa.array(ids, pa.large_string()),
    "dictionary": lambda ids: pa.array(ids, pa.string()).dictionary_encode(),
    "chunked large_string": lambda ids: pa.chunked_array([pa.array(ids[:1], pa.large_string()), pa.array(ids[1:], pa.large_string())]),
}


@pytest.mark.parametrize("doc_type", sorted(TYPES))
@pytest.mark.parametrize("query_type", sorted(TYPES))
def test_a_run_of_any_string_types_is_written_as_trec_lines(tmp_path, query_type, doc_type):
    table = pa.table({"query_id": TYPES[query_type](QUERIES), "doc_id": TYPES[doc_type](DOCS), "score": [2.0, 1.5, 0.25]})
    write_run(table, tmp_path / "run.trec", tag="t")
    assert (tmp_path / "run.trec").read_text() == "q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1.5 t\nq2 Q0 d1 1 0.25 t\n"


@pytest.mark.parametrize("id_type", sorted(TYPES))
def test_qrels_of_any_string_type_are_written_as_trec_lines(tmp_path, id_type):
    table = pa.table({"query_id": TYPES[id_type](QUERIES), "doc_id": pa.array(DOCS, pa.string()), "relevance": [1, 0, 2]})
    write_qrels(table, tmp_path / "qrels.txt")
    assert (tmp_path / "qrels.txt").read_text() == "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"


def test_a_run_read_from_pandas_written_parquet_is_written_back_as_the_same_run(tmp_path):
    run = Run.read(str(DATA / "run.parquet"))
    assert pa.types.is_large_string(run.table.schema.field("doc_id").type)  # what the case is about
    write_run(run.table, tmp_path / "run.trec")
    back = Run.read(str(tmp_path / "run.trec"))
    assert back.table["doc_id"].to_pylist() == run.table["doc_id"].to_pylist()
    assert back.table["score"].to_pylist() == run.table["score"].to_pylist()


def test_fuse_writes_trec_from_a_parquet_run_and_a_trec_run(capsys, tmp_path):
    out = tmp_path / "fused.trec"
    code, _, err = run_cli(capsys, "fuse", str(DATA / "run.parquet"), str(DATA / "run_dense.trec"), "--method", "rrf", "-o", str(out))
    assert code == 0 and err == ""
    assert len(out.read_text().splitlines()) == len(Run.read(str(out)))
