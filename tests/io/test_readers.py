"""Tests of the readers: every format, column aliasing, and every input error."""

from __future__ import annotations

import gzip
import json
import string
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.io import (
    AzureRows,
    read_azure_rows,
    read_qrels_table,
    read_run_table,
    write_table,
)

TREC_TEST = Path(__file__).resolve().parents[3] / "shared" / "peers" / "trec_eval_test"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def rows(table: pa.Table) -> list[tuple]:
    return [tuple(r.values()) for r in table.to_pylist()]


def error(excinfo: pytest.ExceptionInfo) -> str:
    return str(excinfo.value)


# ---------------------------------------------------------------- TREC text


def test_trec_qrels_basic_keeps_order_and_leading_zeros(tmp_path):
    path = write(tmp_path / "qrels.txt", "002 0 d9 1\n001 0 007 0\n002\t0\t  d1  2\n")
    table = read_qrels_table(path)
    assert table.column_names == ["query_id", "doc_id", "relevance"]
    assert table.schema.field("query_id").type == pa.string()
    assert table.schema.field("relevance").type == pa.int64()
    assert rows(table) == [("002", "d9", 1), ("001", "007", 0), ("002", "d1", 2)]


def test_trec_run_basic_with_tabs_and_trailing_text(tmp_path):
    path = write(tmp_path / "run", "1 Q0 a 1 2.5 tag\n1\tQ0\tb\t2\t  -1e-3\ttag junk after tag\n")
    table = read_run_table(path)
    assert table.column_names == ["query_id", "doc_id", "score"]
    assert table.schema.field("score").type == pa.float64()
    assert rows(table) == [("1", "a", 2.5), ("1", "b", -0.001)]


@pytest.mark.parametrize("name", ["x.trec", "x.qrels", "x.run", "x", "x.2024", "x.txt.gz"])
def test_trec_is_the_default_for_other_names(tmp_path, name):
    path = tmp_path / name
    data = b"q 0 d 1\n"
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    assert rows(read_qrels_table(path)) == [("q", "d", 1)]


def test_trec_hash_inside_docno_is_not_a_comment(tmp_path):
    path = write(tmp_path / "q.txt", "# comment\n301 0 CR#93E-1860 0\n301 0 #x 1\n")
    assert rows(read_qrels_table(path)) == [("301", "CR#93E-1860", 0), ("301", "#x", 1)]
    run = write(tmp_path / "r.txt", "# comment\n  # indented comment\n301 Q0 #x 1 2.5 t\n")
    assert rows(read_run_table(run)) == [("301", "#x", 2.5)]


def test_trec_line_numbers_count_comments_and_blank_lines(tmp_path):
    path = write(tmp_path / "q.txt", "# c\n\n1 0 a 1\n   \n# c2\n1 0 b 2\n1 0 c x\n")
    with pytest.raises(InputError) as excinfo:
        read_qrels_table(path)
    assert excinfo.value.row == 7
    assert "q.txt" in error(excinfo) and "row 7" in error(excinfo)
    assert "relevance must be a number" in error(excinfo) and "'x'" in error(excinfo)


def test_trec_crlf_and_bom(tmp_path):
    path = tmp_path / "q.txt"
    path.write_bytes(b"\xef\xbb\xbf1 0 a 1\r\n\r\n1 0 b 2\r\n")
    assert rows(read_qrels_table(path)) == [("1", "a", 1), ("1", "b", 2)]


@pytest.mark.parametrize(
    "reader, text, line, expected",
    [
        (read_qrels_table, "1 0 a 1\n1 0 b\n", 2, "expected 4 whitespace-separated fields (qid iter docno rel), found 3"),
        (read_qrels_table, "1 0 a 1\n\n1 0 b 1 5\n", 3, "found 5"),
        (read_qrels_table, "1 0 a 1.5x\n", 1, "relevance must be a number, got '1.5x'"),
        (read_run_table, "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0\n", 2, "expected at least 6 whitespace-separated fields"),
        (read_run_table, "# c\n1 Q0 a 1 high t\n", 2, "score must be a number, got 'high'"),
    ],
)
def test_trec_malformed_lines(tmp_path, reader, text, line, expected):
    path = write(tmp_path / "bad.txt", text)
    with pytest.raises(InputError) as excinfo:
        reader(path)
    assert excinfo.value.row == line
    assert excinfo.value.source == str(path)
    assert "bad.txt" in error(excinfo) and expected in error(excinfo)


def test_trec_error_line_number_in_a_later_chunk(tmp_path):
    # Large enough for several parallel chunks: the reported line must be global.
    lines = [f"q{i % 97} Q0 d{i} {i} {i * 0.5} t" for i in range(300_000)]
    lines[250_001] = "q1 Q0 dX 1 notanumber t"
    lines.insert(10, "# a comment")
    path = write(tmp_path / "big.run", "\n".join(lines) + "\n")
    with pytest.raises(InputError) as excinfo:
        read_run_table(path)
    assert excinfo.value.row == 250_003  # +1 for the comment, +1 for 1-based


def test_trec_large_file_reads_all_rows_in_order(tmp_path):
    n = 300_000
    lines = "".join(f"q{i // 100}\tQ0\td{i:07d}\t{i}\t{i / 7}\tTAG\n" for i in range(n))
    table = read_run_table(write(tmp_path / "r.run", lines))
    assert table.num_rows == n
    assert table["doc_id"][123_456].as_py() == "d0123456"
    assert table["score"][n - 1].as_py() == (n - 1) / 7


def test_trec_byte_01_inside_a_line_is_kept(tmp_path):
    # \x01 is the fast path's field delimiter; the exact path must take over.
    path = tmp_path / "q.txt"
    path.write_bytes(b"1 0 a\x01z 1\n2 0 b 1\n")
    assert rows(read_qrels_table(path)) == [("1", "a\x01z", 1), ("2", "b", 1)]


def test_trec_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "q.txt"
    path.write_bytes(b"1 0 a 1\n# c\n2 0 b\xff 1\n")
    with pytest.raises(InputError) as excinfo:
        read_qrels_table(path)
    assert excinfo.value.row == 3 and "UTF-8" in error(excinfo)


@pytest.mark.parametrize("name", ["e.jsonl", "e.json", "e.csv"])
def test_blank_structured_files_are_empty(tmp_path, name):
    with pytest.raises(InputError, match="empty file"):
        read_run_table(write(tmp_path / name, "\n\n"))


@pytest.mark.parametrize("text", ["", "# only a comment\n\n   \n"])
def test_trec_empty_file(tmp_path, text):
    path = write(tmp_path / "empty.qrels", text)
    with pytest.raises(InputError, match="empty file") as excinfo:
        read_qrels_table(path)
    assert "empty.qrels" in error(excinfo)


def test_trec_rejects_columns_override(tmp_path):
    with pytest.raises(ConfigError, match="positional"):
        read_qrels_table(write(tmp_path / "q.txt", "1 0 a 1\n"), columns={"query_id": "x"})


@pytest.mark.skipif(not TREC_TEST.is_dir(), reason="trec_eval test data not available")
def test_trec_eval_test_data_with_comments():
    plain = read_qrels_table(TREC_TEST / "qrels.test")
    commented = read_qrels_table(TREC_TEST / "qrels.test.with-comments")
    assert commented.num_rows == plain.num_rows == 3681
    assert "CR#93E-1860" in commented["doc_id"].to_pylist()
    run = read_run_table(TREC_TEST / "results.comment.test")
    assert run.num_rows == 30_100
    assert run["doc_id"][0].as_py() == "msmarco_v2.1_doc_50_2286987788#13_3087841662"
    assert read_run_table(TREC_TEST / "results.trunc").num_rows == 584  # junk after tags


# ------------------------------------------------------- CSV / TSV / JSON / parquet


def test_csv_aliases_are_case_insensitive_and_ids_stay_strings(tmp_path):
    path = write(tmp_path / "q.csv", "QID,Docno,Grade,extra\n001,0042,1,x\n002,d2,2,y\n")
    table = read_qrels_table(path)
    assert rows(table) == [("001", "0042", 1), ("002", "d2", 2)]
    assert table.schema.field("query_id").type == pa.string()


def test_tsv_and_gzip(tmp_path):
    tsv = write(tmp_path / "r.tsv", "QID\tdocument_id\trelevance_score\n01\ta b\t0.5\n")
    assert rows(read_run_table(tsv)) == [("01", "a b", 0.5)]
    gz = tmp_path / "r.csv.gz"
    gz.write_bytes(gzip.compress(b"topic_id,doc,sim\n7,d,3\n"))
    assert rows(read_run_table(gz)) == [("7", "d", 3.0)]


def test_format_argument_overrides_extension(tmp_path):
    path = write(tmp_path / "judgments.dat", "qid,docid,rel\n1,a,1\n")
    assert rows(read_qrels_table(path, format="csv")) == [("1", "a", 1)]
    with pytest.raises(ConfigError, match="unknown input format"):
        read_qrels_table(path, format="xlsx")


def test_columns_override(tmp_path):
    path = write(tmp_path / "q.csv", "topic,passage,judgment\n1,p,3\n")
    table = read_qrels_table(
        path, columns={"query_id": "topic", "doc_id": "PASSAGE", "relevance": "judgment"}
    )
    assert rows(table) == [("1", "p", 3)]


def test_columns_override_resolves_ambiguity(tmp_path):
    path = write(tmp_path / "q.csv", "qid,topic_id,docno,rel\n1,7,d,1\n")
    with pytest.raises(InputError, match="ambiguous column for 'query_id'") as excinfo:
        read_qrels_table(path)
    assert "'qid', 'topic_id'" in error(excinfo) and "columns=" in error(excinfo)
    assert rows(read_qrels_table(path, columns={"query_id": "qid"})) == [("1", "d", 1)]


def test_columns_override_with_unknown_key(tmp_path):
    path = write(tmp_path / "q.csv", "qid,docno,rel\n1,d,1\n")
    with pytest.raises(ConfigError, match="score"):
        read_qrels_table(path, columns={"score": "rel"})


def test_missing_column_message(tmp_path):
    path = write(tmp_path / "q.csv", "qid,docno,points\n1,d,1\n")
    with pytest.raises(InputError) as excinfo:
        read_qrels_table(path)
    message = error(excinfo)
    assert "q.csv" in message and "missing column 'relevance'" in message
    assert "'label'" in message and "'grade'" in message  # names looked for
    assert "columns found: ['qid', 'docno', 'points']" in message
    assert excinfo.value.field == "relevance"


def test_missing_override_column(tmp_path):
    path = write(tmp_path / "q.csv", "qid,docno,rel\n1,d,1\n")
    with pytest.raises(InputError, match="looked for \\['topic'\\]"):
        read_qrels_table(path, columns={"query_id": "topic"})


@pytest.mark.parametrize(
    "body, row, field, expected",
    [
        ("1,d,1\n2,e,x\n", 2, "rel", "relevance must be a number, got 'x'"),
        ("1,d,1\n2,e,1.5.1\n", 2, "rel", "relevance must be a number, got '1.5.1'"),
        ("1,d,1\n2,,1\n", 2, "docno", "1 missing (null) value(s)"),
        ("1,d,1\n2,e,\n3,f,\n", 2, "rel", "2 missing (null) value(s)"),
        ("1,d,true\n", 1, "rel", "relevance must be a number, got 'true'"),
    ],
)
def test_csv_value_errors(tmp_path, body, row, field, expected):
    path = write(tmp_path / "q.csv", "qid,docno,rel\n" + body)
    with pytest.raises(InputError) as excinfo:
        read_qrels_table(path)
    assert (excinfo.value.row, excinfo.value.field) == (row, field)
    assert "q.csv" in error(excinfo) and expected in error(excinfo)


def test_csv_score_errors_and_nan_kept(tmp_path):
    path = write(tmp_path / "r.csv", "qid,docno,score\n1,d,nan\n2,e,abc\n")
    with pytest.raises(InputError, match="score must be a number, got 'abc'") as excinfo:
        read_run_table(path)
    assert excinfo.value.row == 2
    ok = read_run_table(write(tmp_path / "ok.csv", "qid,docno,score\n1,d,nan\n"))
    assert np.isnan(ok["score"][0].as_py())  # NaN is the data layer's business


def test_csv_wrong_field_count_names_the_row(tmp_path):
    path = write(tmp_path / "q.csv", "qid,docno,rel\n1,d,1\n2,e,1,9\n")
    with pytest.raises(InputError, match="expected 3 fields") as excinfo:
        read_qrels_table(path)
    assert excinfo.value.row == 2


@pytest.mark.parametrize("text, expected", [("", "empty file"), ("qid,docno,rel\n", "empty file")])
def test_csv_empty(tmp_path, text, expected):
    path = write(tmp_path / "q.csv", text)
    with pytest.raises(InputError, match=expected) as excinfo:
        read_qrels_table(path)
    assert "q.csv" in error(excinfo)


def test_file_not_found(tmp_path):
    path = tmp_path / "missing.parquet"
    with pytest.raises(InputError, match="file not found") as excinfo:
        read_run_table(path)
    assert str(path) in error(excinfo)


def test_directory_is_not_a_text_file(tmp_path):
    with pytest.raises(InputError, match="directory"):
        read_run_table(tmp_path)


def test_jsonl_and_ndjson(tmp_path):
    body = '{"qid": "001", "doc_id": "a", "score": 1}\n\n{"qid": "002", "doc_id": "b", "score": 2.5}\n'
    for name in ("r.jsonl", "r.ndjson"):
        assert rows(read_run_table(write(tmp_path / name, body))) == [("001", "a", 1.0), ("002", "b", 2.5)]
    gz = tmp_path / "r.jsonl.gz"
    gz.write_bytes(gzip.compress(body.encode()))
    assert read_run_table(gz).num_rows == 2


def test_json_array_and_json_lines_in_dot_json(tmp_path):
    array = write(tmp_path / "a.json", json.dumps([{"qid": 1, "docid": "x", "label": 2}], indent=2))
    assert rows(read_qrels_table(array)) == [(1, "x", 2)]
    lines = write(tmp_path / "l.json", '{"qid": 1, "docid": "x", "label": 2}\n{"qid": 2, "docid": "y", "label": 0}\n')
    assert rows(read_qrels_table(lines)) == [(1, "x", 2), (2, "y", 0)]


def test_jsonl_date_like_ids_stay_strings(tmp_path):
    path = write(tmp_path / "q.jsonl", '{"qid": "2024-01-01", "docno": "d", "rel": 1}\n')
    assert rows(read_qrels_table(path)) == [("2024-01-01", "d", 1)]


@pytest.mark.parametrize(
    "name, text, line, column",
    [
        ("bad.jsonl", '{"qid": "1", "doc": "a", "score": 1}\n\n{"qid": "2", "doc": "b", "score": 2,}\n', 3, 37),
        ("bad.json", '[{"qid": "1", "doc": "a", "score": 1},\n {"qid": "2" "doc": "b"}]', 2, 14),
        ("lines.json", '{"qid": "1", "doc": "a", "score": 1}\n{"qid": "2", "doc": }\n', 2, 21),
    ],
)
def test_malformed_json_names_line_and_column(tmp_path, name, text, line, column):
    path = write(tmp_path / name, text)
    with pytest.raises(InputError) as excinfo:
        read_run_table(path)
    assert name in error(excinfo)
    assert f"line {line}, column {column}" in error(excinfo)
    assert excinfo.value.row == line


def test_jsonl_mixed_id_types(tmp_path):
    path = write(tmp_path / "r.jsonl", '{"qid": 1, "doc": "a", "score": 1}\n{"qid": "x", "doc": "b", "score": 2}\n')
    with pytest.raises(InputError, match="mixed int/str ids in one column") as excinfo:
        read_run_table(path)
    assert (excinfo.value.row, excinfo.value.field) == (2, "qid")


def test_parquet_int_ids_kept_and_narrow_ints_widened(tmp_path):
    path = tmp_path / "q.parquet"
    pq.write_table(
        pa.table({
            "query_id": pa.array([3, 1], pa.int32()),
            "doc_id": pa.array([10, 20], pa.uint16()),
            "relevance": pa.array([1, 0], pa.int8()),
        }),
        path,
    )
    table = read_qrels_table(path)
    assert table.schema.types == [pa.int64(), pa.int64(), pa.int64()]
    assert rows(table) == [(3, 10, 1), (1, 20, 0)]


def test_parquet_dictionary_ids_decoded_and_gzip(tmp_path):
    path = tmp_path / "r.pq"
    table = pa.table({"qid": pa.array(["a", "b", "a"]).dictionary_encode(), "docno": ["x", "y", "z"], "score": [1, 2, 3]})
    pq.write_table(table, path)
    result = read_run_table(path)
    assert pa.types.is_string(result.schema.field("query_id").type)
    assert rows(result) == [("a", "x", 1.0), ("b", "y", 2.0), ("a", "z", 3.0)]
    gz = tmp_path / "r.parquet.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert rows(read_run_table(gz)) == rows(result)


def test_parquet_float_ids_rejected(tmp_path):
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"qid": [1.0, 2.0], "doc": ["a", "b"], "score": [1.0, 2.0]}), path)
    with pytest.raises(InputError, match="ids must be integers or strings, got double") as excinfo:
        read_run_table(path)
    assert excinfo.value.field == "qid" and excinfo.value.row == 1 and "r.parquet" in error(excinfo)


def test_parquet_no_rows(tmp_path):
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"qid": pa.array([], pa.string()), "doc": pa.array([], pa.string()), "score": pa.array([], pa.float64())}),
                   path)
    with pytest.raises(InputError, match="empty file"):
        read_run_table(path)


# --------------------------------------------------------- in-memory sources


def test_dataframe_types():
    frame = pd.DataFrame({
        "query_id": pd.Series(["q1", "q2"], dtype="str"),
        "doc_id": pd.Categorical(["d1", "d2"]),
        "score": np.array([1, 2], dtype=np.int32),
    })
    table = read_run_table(frame)
    assert rows(table) == [("q1", "d1", 1.0), ("q2", "d2", 2.0)]
    assert table.schema.field("score").type == pa.float64()


def test_dataframe_object_string_ids_and_nan_score_kept():
    frame = pd.DataFrame({"qid": np.array(["a", "b"], dtype=object), "doc": [5, 6], "score": [np.nan, 1.0]})
    table = read_run_table(frame)
    assert table.schema.field("doc_id").type == pa.int64()
    assert table["score"].null_count == 0 and np.isnan(table["score"][0].as_py())


@pytest.mark.parametrize(
    "column, values, row, expected",
    [
        ("qid", pd.Series([1, "a", 2], dtype=object), 2, "mixed int/str ids in one column"),
        ("qid", [1.5, 2.0, 3.0], 1, "ids must be integers or strings, got double"),
        ("doc", [True, False, True], 1, "ids must be integers or strings, got bool"),
        ("qid", ["a", None, None], 2, "2 missing (null) value(s)"),
        ("score", ["1", "2", "3"], 1, "scores must be numeric"),
        ("score", [1.0, None, 2.0], 2, "1 missing (null) value(s)"),
    ],
)
def test_dataframe_errors(column, values, row, expected):
    frame = pd.DataFrame({"qid": ["a", "b", "c"], "doc": ["x", "y", "z"], "score": [1.0, 2.0, 3.0]})
    frame[column] = values
    if column == "score" and values[1] is None:
        frame[column] = pd.array(values, dtype="Float64")  # a real null, not NaN
    with pytest.raises(InputError) as excinfo:
        read_run_table(frame)
    assert "<DataFrame>" in error(excinfo) and expected in error(excinfo)
    assert (excinfo.value.row, excinfo.value.field) == (row, column)


@pytest.mark.parametrize(
    "labels, row, expected",
    [
        ([1.0, np.nan], 2, "relevance must be a finite number, got nan"),
        ([1.0, np.inf], 2, "relevance must be a finite number, got inf"),
        ([True, False], 1, "relevance labels must be numbers, got bool"),
        (["1", "2.0x"], 2, "relevance must be a number, got '2.0x'"),
    ],
)
def test_relevance_type_errors(labels, row, expected):
    table = pa.table({"qid": ["a", "b"], "doc": ["x", "y"], "rel": labels})
    with pytest.raises(InputError) as excinfo:
        read_qrels_table(table)
    assert "<Table>" in error(excinfo) and expected in error(excinfo)
    assert (excinfo.value.row, excinfo.value.field) == (row, "rel")


def test_integral_float_relevance_becomes_int64():
    table = read_qrels_table(pa.table({"qid": ["a"], "doc": ["x"], "rel": [3.0]}))
    assert table.schema.field("relevance").type == pa.int64() and rows(table) == [("a", "x", 3)]


def test_uint64_too_large_for_int64():
    table = pa.table({"qid": pa.array([2**63], pa.uint64()), "doc": ["x"], "rel": [1]})
    with pytest.raises(InputError, match="64-bit"):
        read_qrels_table(table)


def test_list_of_dicts_and_record_batch():
    records = [{"query_id": "a", "doc_id": 1, "relevance": 1}, {"query_id": "b", "doc_id": 2, "relevance": 0, "x": 1}]
    assert rows(read_qrels_table(records)) == [("a", 1, 1), ("b", 2, 0)]
    batch = pa.RecordBatch.from_pylist(records[:1])
    assert rows(read_qrels_table(batch)) == [("a", 1, 1)]


def test_list_of_dicts_errors():
    with pytest.raises(InputError, match="mixed int/str ids") as excinfo:
        read_qrels_table([{"qid": "a", "doc": "x", "rel": 1}, {"qid": 7, "doc": "y", "rel": 1}])
    assert excinfo.value.row == 2
    with pytest.raises(InputError, match="expected a record") as excinfo:
        read_qrels_table([{"qid": "a", "doc": "x", "rel": 1}, ["b", "y", 1]])
    assert excinfo.value.row == 2


@pytest.mark.parametrize(
    "source, label",
    [
        ([], "<list of dicts>"),
        (pd.DataFrame({"qid": [], "doc": [], "score": []}), "<DataFrame>"),
        (pa.table({"qid": pa.array([], pa.string())}), "<Table>"),
    ],
)
def test_no_rows_in_memory(source, label):
    with pytest.raises(InputError, match="no rows") as excinfo:
        read_run_table(source)
    assert label in error(excinfo)


def test_inputs_are_not_mutated():
    frame = pd.DataFrame({"qid": ["a"], "doc": ["x"], "score": [1]})
    before = frame.copy()
    read_run_table(frame)
    pd.testing.assert_frame_equal(frame, before)


def test_unsupported_source_type():
    with pytest.raises(InputError, match="unsupported source"):
        read_run_table(42)


# ----------------------------------------------------------------- Azure rows


def gt(*pairs):
    return [{"document_id": d, "query_relevance_label": label} for d, label in pairs]


def rd(*pairs):
    return [{"document_id": d, "relevance_score": s} for d, s in pairs]


AZURE = [
    {"retrieval_ground_truth": gt(("a", 2), ("b", 0)), "retrieved_documents": rd(("a", 0.5), ("c", 0.1))},
    {"retrieval_ground_truth": gt(("x", 1)), "retrieved_documents": []},
]


def check_azure(result: AzureRows) -> None:
    assert isinstance(result, AzureRows)
    assert rows(result.qrels) == [(1, "a", 2), (1, "b", 0), (2, "x", 1)]
    assert rows(result.run) == [(1, "a", 0.5), (1, "c", 0.1)]
    assert result.query_ids.to_pylist() == [1, 2]  # row numbers: no query_id field
    assert result.qrels.column_names == ["query_id", "doc_id", "relevance"]
    assert result.run.column_names == ["query_id", "doc_id", "score"]
    assert result.run.schema.field("score").type == pa.float64()


def test_azure_rows_from_every_source(tmp_path):
    check_azure(read_azure_rows(AZURE))
    check_azure(read_azure_rows(pd.DataFrame(AZURE)))
    check_azure(read_azure_rows(pa.Table.from_pylist(AZURE)))
    jsonl = write(tmp_path / "az.jsonl", "".join(json.dumps(r) + "\n" for r in AZURE))
    check_azure(read_azure_rows(jsonl))
    check_azure(read_azure_rows(write(tmp_path / "az.json", json.dumps(AZURE))))
    pd.DataFrame(AZURE).to_parquet(tmp_path / "az.parquet")
    check_azure(read_azure_rows(tmp_path / "az.parquet"))
    check_azure(read_azure_rows(pd.read_parquet(tmp_path / "az.parquet")))  # ndarray cells


def test_azure_query_id_field():
    records = [dict(r, qid=f"q{i}") for i, r in enumerate(AZURE)]
    result = read_azure_rows(records, query_id_field="qid")
    assert result.query_ids.to_pylist() == ["q0", "q1"]
    assert result.qrels["query_id"].to_pylist() == ["q0", "q0", "q1"]
    assert result.run["query_id"].to_pylist() == ["q0", "q0"]


def test_azure_nothing_retrieved_anywhere():
    result = read_azure_rows([AZURE[1]])
    assert result.run.num_rows == 0
    assert result.run.schema.field("doc_id").type == result.qrels.schema.field("doc_id").type
    assert result.query_ids.to_pylist() == [1]


@pytest.mark.parametrize(
    "change, row, field, expected",
    [
        ({"retrieval_ground_truth": []}, 2, "retrieval_ground_truth", "at least one item"),
        ({"retrieval_ground_truth": None}, 2, "retrieval_ground_truth", "missing (null)"),
        ({"retrieved_documents": None}, 2, "retrieved_documents", "missing (null)"),
        ({"retrieved_documents": "doc1"}, 2, "retrieved_documents", "expected a list of objects, got str"),
        ({"retrieved_documents": {"document_id": "a", "relevance_score": 1}}, 2, "retrieved_documents", "got dict"),
        ({"retrieved_documents": ["a"]}, 2, "retrieved_documents", "item 1 is not an object"),
        ({"retrieved_documents": rd((7, 0.3))}, 2, "retrieved_documents.document_id", "mixed int/str values"),
        ({"retrieved_documents": rd(("z", "high"))}, 2, "retrieved_documents.relevance_score", "mixed float/str"),
        ({"retrieved_documents": [{"document_id": "z"}]}, 2, "retrieved_documents.relevance_score", "missing"),
        ({"retrieval_ground_truth": gt(("z", float("inf")))}, 2, "retrieval_ground_truth.query_relevance_label", "got inf"),
        ({"retrieval_ground_truth": gt((None, 1))}, 2, "retrieval_ground_truth.document_id", "missing (null)"),
    ],
)
def test_azure_errors_name_row_and_field(change, row, field, expected):
    records = [AZURE[0], dict(AZURE[1], **change)]
    with pytest.raises(InputError) as excinfo:
        read_azure_rows(records)
    assert (excinfo.value.row, excinfo.value.field) == (row, field)
    assert expected in error(excinfo)


def test_azure_string_column_is_not_a_list():
    table = pa.table({"retrieval_ground_truth": ['[{"document_id": "a"}]'], "retrieved_documents": ["[]"]})
    with pytest.raises(InputError, match="expected a list of objects") as excinfo:
        read_azure_rows(table)
    assert excinfo.value.field == "retrieval_ground_truth" and "<Table>" in error(excinfo)


def test_azure_missing_column_and_wrong_format(tmp_path):
    with pytest.raises(InputError, match="missing column 'retrieved_documents'"):
        read_azure_rows([{"retrieval_ground_truth": gt(("a", 1))}])
    with pytest.raises(InputError, match="cannot be read from a csv file"):
        read_azure_rows(write(tmp_path / "az.csv", "a,b\n1,2\n"))


# -------------------------------------------------------- property: round trip

_ID_CHARS = st.characters(
    blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp"),  # no whitespace, controls, surrogates
    # U+FEFF: a byte-order mark opening a file is dropped by design.
    blacklist_characters="\x85\x1c\x1d\x1e\x1f\ufeff",
)
_IDS = st.text(_ID_CHARS, min_size=1, max_size=12).filter(lambda s: not s.startswith("#"))
_RUN_ROWS = st.lists(
    st.tuples(_IDS, _IDS, st.floats(allow_nan=False, allow_infinity=False, width=64)),
    min_size=1,
    max_size=40,
)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_RUN_ROWS)
def test_round_trip_trec_and_csv(tmp_path, data):
    qids, docs, scores = (list(c) for c in zip(*data))
    trec = tmp_path / "rt.run"
    trec.write_text(
        "".join(f"{q} Q0 {d} {i} {s!r} tag\n" for i, (q, d, s) in enumerate(data)), encoding="utf-8"
    )
    table = read_run_table(trec)
    assert table["query_id"].to_pylist() == qids
    assert table["doc_id"].to_pylist() == docs
    assert table["score"].to_pylist() == scores

    original = pa.table({"query_id": qids, "doc_id": docs, "score": scores})
    write_table(original, tmp_path / "rt.csv")
    back = read_run_table(tmp_path / "rt.csv")
    assert back.to_pylist() == original.to_pylist()


def test_round_trip_keeps_numeric_looking_ids_as_strings(tmp_path):
    original = pa.table({"query_id": ["001", "1e5", "nan"], "doc_id": ["0", "-0", "NA"], "score": [1.0, 2.0, 3.0]})
    for ext in ("csv", "tsv", "parquet", "jsonl", "json"):
        write_table(original, tmp_path / f"x.{ext}")
        assert read_run_table(tmp_path / f"x.{ext}").to_pylist() == original.to_pylist(), ext


def test_alias_table_is_documented_in_errors():
    # Every default alias must be findable (guards the alias table against typos).
    from retrieval_eval.io import COLUMN_ALIASES

    for canonical, names in COLUMN_ALIASES.items():
        for name in names:
            assert set(name) <= set(string.ascii_lowercase + "_-"), name  # BEIR's "query-id"
            assert canonical in ("query_id", "doc_id", "score", "relevance", "group", "subgroup")


def test_trec_non_ascii_space_is_part_of_an_id(tmp_path):
    # trec_eval splits on C isspace (ASCII whitespace) only.
    path = write(tmp_path / "q.txt", "1 0 a\u00a0b 1\n")
    assert rows(read_qrels_table(path)) == [("1", "a\u00a0b", 1)]


def test_csv_quoted_line_breaks_in_ids(tmp_path):
    original = pa.table({"query_id": ["a\nb", "c"], "doc_id": ["x\r\ny", "z"], "score": [1.0, 2.0]})
    write_table(original, tmp_path / "nl.csv")
    assert read_run_table(tmp_path / "nl.csv").to_pylist() == original.to_pylist()


def test_a_query_text_column_is_not_taken_for_the_query_id(tmp_path):
    path = write(tmp_path / "r.csv", "qid,query,doc_id,score\n1,what is bm25,a,0.5\n")
    assert rows(read_run_table(path)) == [("1", "a", 0.5)]


def test_a_dataframe_column_of_several_arrow_chunks_is_taken_as_is():
    """pandas 3 reads parquet strings as several Arrow chunks; they must not be rebuilt value by value."""
    chunks = [pa.array([f"d{i}" for i in range(start, start + 3)]) for start in (0, 3, 6)]
    frame = pd.DataFrame({
        "query_id": pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([pa.array(["q"] * 3)] * 3))),
        "doc_id": pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(chunks))),
        "score": np.arange(9, dtype=float),
    })
    table = read_run_table(frame)
    assert table["doc_id"].num_chunks == 3
    assert table["doc_id"].to_pylist() == [f"d{i}" for i in range(9)]
