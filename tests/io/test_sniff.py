"""A file of another kind than its name says is one line naming what it is (issue 27, item 11), and BEIR's
qrels TSV and ranx's frames are read by their own column names (issue 27, item 7)."""

from __future__ import annotations

import gzip
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import InputError
from retrieval_eval.executions.batch.log import read_execution_log
from retrieval_eval.executions.model.document import read_document
from retrieval_eval.io import read_qrels_table, read_run_table
from retrieval_eval.io.columns import COLUMN_ALIASES
from retrieval_eval.io.sniff import HEAD_BYTES, content_kind, header_format

RUN = pa.table({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})
TREC_RUN = "q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 1.0 tag\n"


def message(read, path, **options) -> str:
    with pytest.raises(InputError) as raised:
        read(path, **options)
    return str(raised.value)


def test_parquet_under_a_text_name_is_said_to_be_parquet(tmp_path):
    for name in ("run.txt", "run.trec", "run.csv", "run.jsonl"):
        pq.write_table(RUN, tmp_path / name)
        assert message(read_run_table, tmp_path / name).endswith(
            "this is a parquet file, but its name says "
            + {"txt": "TREC text", "trec": "TREC text", "csv": "CSV", "jsonl": "JSON Lines"}[name.split(".")[1]] + ": name it .parquet"
        ), name


def test_text_under_a_parquet_name_is_not_parquet(tmp_path):
    (tmp_path / "run.parquet").write_text(TREC_RUN)
    assert "this is not a parquet file (it does not begin with PAR1), but its name says parquet" in message(
        read_run_table, tmp_path / "run.parquet"
    )
    (tmp_path / "rows.parquet").write_text(json.dumps(RUN.to_pylist()))
    assert message(read_run_table, tmp_path / "rows.parquet").endswith(
        "this is JSON, but its name says a parquet file: name it .jsonl (one object per line) or .json"
    )
    assert "but format='parquet' says parquet" in message(read_run_table, tmp_path / "run.parquet", format="parquet")


def test_json_lines_under_a_trec_name_is_said_to_be_json(tmp_path):
    (tmp_path / "run.trec").write_text("\n".join(json.dumps(row) for row in RUN.to_pylist()))
    assert message(read_run_table, tmp_path / "run.trec").endswith("this is JSON (its first line is a JSON object or array), "
                                                                   "not TREC text: name it .jsonl (one object per line) or .json")
    (tmp_path / "pretty.txt").write_text(json.dumps(RUN.to_pylist(), indent=2))
    assert "this is JSON" in message(read_run_table, tmp_path / "pretty.txt")


@given(st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp")), min_size=1, max_size=12))
def test_a_trec_line_is_never_taken_for_json(query_id):
    # Whatever its first field, a TREC line has four or six fields: never one JSON value, never a lone bracket.
    assert content_kind(f"{query_id} Q0 d1 1 2.0 tag\n".encode()) is None
    assert content_kind(f"{query_id} 0 d1 1\n".encode()) is None


def test_a_gzip_file_is_told_by_its_bytes_whatever_its_name(tmp_path):
    (tmp_path / "run.trec").write_bytes(gzip.compress(TREC_RUN.encode()))
    assert read_run_table(tmp_path / "run.trec").to_pylist() == RUN.to_pylist()
    (tmp_path / "run.jsonl.gz").write_bytes(gzip.compress(TREC_RUN.encode()))  # the name's format is checked inside
    assert "this is JSON" not in message(read_run_table, tmp_path / "run.jsonl.gz")


def test_a_long_first_line_is_left_to_the_reader(tmp_path):
    long_line = json.dumps({"query_id": "q" * HEAD_BYTES, "doc_id": "d", "score": 1.0})
    assert content_kind(long_line.encode()[:HEAD_BYTES]) is None


def test_beir_qrels_tsv_is_read_by_its_header_under_any_name(tmp_path):
    beir = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\n"
    expected = [{"query_id": "q1", "doc_id": "d1", "relevance": 1}, {"query_id": "q1", "doc_id": "d2", "relevance": 0}]
    for name in ("test.tsv", "qrels.txt", "qrels"):
        (tmp_path / name).write_text(beir)
        assert read_qrels_table(tmp_path / name).to_pylist() == expected, name


def test_ranx_frames_are_read_by_their_column_names():
    # ranx's Qrels.to_dataframe() and Run.to_dataframe(): q_id, doc_id, score.
    ranx = pytest.importorskip("ranx")
    qrels, run = ranx.Qrels({"q1": {"d1": 1, "d2": 0}}), ranx.Run({"q1": {"d1": 2.0, "d2": 1.0}})
    assert read_qrels_table(qrels.to_dataframe()).to_pylist() == read_qrels_table(qrels).to_pylist()
    assert read_run_table(run.to_dataframe()).to_pylist() == read_run_table(run).to_pylist()


def test_a_score_beside_a_label_is_not_the_label():
    joined = pa.table({"query_id": ["q1"], "doc_id": ["d1"], "score": [0.5], "label": [2]})
    assert read_qrels_table(joined)["relevance"].to_pylist() == [2]


def test_an_unknown_header_names_the_known_names_and_the_flags(tmp_path):
    (tmp_path / "run.tsv").write_text("topic\tpassage\tsim\nq1\td1\t1.0\n")
    text = message(read_run_table, tmp_path / "run.tsv")
    assert "looked for ['query_id', 'qid', 'topic_id', 'q_id', 'query-id']" in text
    assert text.endswith("name yours with columns={'query_id': NAME} (command line: --qrels-column or --run-column query_id=NAME)")


def test_an_execution_log_given_as_a_document_names_executions(tmp_path):
    (tmp_path / "log.jsonl").write_text('{"id": "a"}\n{"id": "b"}\n')
    assert message(read_document, tmp_path / "log.jsonl").endswith(
        "this is JSON Lines (another JSON value begins at line 2), where one JSON value is expected: an execution log "
        "(one record per line) is passed with --executions (executions= in Python)"
    )
    pq.write_table(RUN, tmp_path / "doc.json")
    assert message(read_document, tmp_path / "doc.json").endswith("this is a parquet file (it begins with PAR1), not JSON text: "
                                                                   "give the JSON file (uncompressed)")


def test_an_execution_log_of_the_other_kind_is_named(tmp_path):
    pq.write_table(RUN, tmp_path / "log.jsonl")
    assert message(read_execution_log, tmp_path / "log.jsonl").endswith(
        "this is a parquet file, but its name says JSON Lines: name it .parquet"
    )
    (tmp_path / "log.parquet").write_text('{"id": "a"}\n')
    assert "this is JSON, but its name says a parquet file" in message(read_execution_log, tmp_path / "log.parquet")


def test_a_streamed_parquet_run_of_another_kind_is_named(tmp_path):
    from retrieval_eval.io.parquet_stream import run_column_names

    (tmp_path / "a.parquet").write_text(TREC_RUN)
    assert "this is not a parquet file (it does not begin with PAR1), but its name says parquet" in message(
        run_column_names, str(tmp_path / "a.parquet"))


@pytest.mark.parametrize(("header", "delimiter"), [("qid\tdocno\trel", "\t"), ("query_id,doc_id,relevance", ","),
                                                   ('"Topic_ID","DocNo","grade"', ",")])
def test_a_table_with_a_header_under_a_trec_name_is_read_as_its_kind(tmp_path, header, delimiter):
    (tmp_path / "qrels.txt").write_text(header + "\n" + delimiter.join(["q1", "d1", "1"]) + "\n")
    assert read_qrels_table(tmp_path / "qrels.txt").to_pylist() == [{"query_id": "q1", "doc_id": "d1", "relevance": 1}]


@given(st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp"), blacklist_characters=","), min_size=1, max_size=8),
       st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp"), blacklist_characters=","), min_size=1, max_size=8))
def test_a_trec_line_is_a_header_only_when_its_fields_name_the_id_columns(query, doc):
    # A space-separated TREC line never is; a tab-separated one only when its fields name a query id and a
    # document id column, which the ids of judged documents do not.
    assert header_format(f"{query} 0 {doc} 1\n".encode()) is None
    fields = {field.strip('"').casefold() for field in (query, "0", doc, "1")}
    names = {canonical: {name.casefold() for name in COLUMN_ALIASES[canonical]} for canonical in ("query_id", "doc_id")}
    expected = len(fields) >= 3 and all(not fields.isdisjoint(known) for known in names.values())
    assert (header_format(f"{query}\t0\t{doc}\t1\n".encode()) == "tsv") is expected


def test_pretty_printed_json_is_not_json_lines(tmp_path):
    (tmp_path / "run.jsonl").write_text(json.dumps(RUN.to_pylist(), indent=2))
    assert message(read_run_table, tmp_path / "run.jsonl").endswith(
        "this is one JSON document over several lines (its first line is a lone '{' or '['), not JSON Lines "
        "(a JSON value per line): name it .json")
    (tmp_path / "run.json").write_text(json.dumps(RUN.to_pylist(), indent=2))
    assert read_run_table(tmp_path / "run.json").to_pylist() == RUN.to_pylist()
    # An evaluation document given as a log: said so, and where each goes.
    (tmp_path / "document.json").write_text(json.dumps({"schemaVersion": "1.0", "items": []}, indent=2))
    assert message(read_execution_log, tmp_path / "document.json").endswith(
        "not JSON Lines (a JSON value per line): an evaluation document is check's DOCUMENT, a log goes with --executions")
