"""CSV quoting: a quoted field left open is named with its line, never read as rows swallowed."""

from __future__ import annotations

import pytest

from retrieval_eval.errors import InputError
from retrieval_eval.io import read_qrels_table, read_run_table

HEADER = "query_id,doc_id,relevance\n"


def _write(tmp_path, text, name="q.csv"):
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


@pytest.mark.parametrize(
    "body, line",
    [
        ('1,d,1\n2,"e,1\n3,f,1\n', 3),  # the report: was "expected 3 fields, found 2"
        ('1,d,"1\n2,e,1\n', 2),  # Arrow read this as one row with relevance "1\n2,e,1\n"
        ('1,d,1\n2,e,"1', 3),  # at the end of the file
        ('1,"d\r\n2,e,1\r\n', 2),
        ('1,d,1\r2,e,1\r3,"f,1\r', 4),  # lone CR line ends
        ('1,"a""b,1\n', 2),  # an escaped quote inside a field that is never closed
    ],
)
def test_an_unterminated_quote_is_named_with_its_line(tmp_path, body, line):
    path = _write(tmp_path, HEADER + body)
    with pytest.raises(InputError, match=rf"unterminated quoted field: the double quote on line {line} is never closed") as excinfo:
        read_qrels_table(path)
    assert excinfo.value.source == str(path)


def test_a_quoted_field_swallowing_the_next_rows_into_an_id_is_refused(tmp_path):
    # With the id last, Arrow's reader gave one row whose doc id held the next line.
    path = _write(tmp_path, "query_id,score,doc_id\nq,1.0,\"d1\nq,0.5,d2\n", "r.csv")
    with pytest.raises(InputError, match="line 2"):
        read_run_table(path)


@pytest.mark.parametrize(
    "body, expected",
    [
        ('1,"a""b",1\n', [("1", 'a"b', 1)]),
        ('1,"a,b",1\n', [("1", "a,b", 1)]),
        ('1,"a\nb",1\n2,c,0\n', [("1", "a\nb", 1), ("2", "c", 0)]),
        ('1,a"b"c,1\n', [("1", 'a"b"c', 1)]),  # paired quotes inside an unquoted field are text
    ],
)
def test_well_formed_quoting_is_read(tmp_path, body, expected):
    table = read_qrels_table(_write(tmp_path, HEADER + body))
    assert [tuple(row.values()) for row in table.to_pylist()] == expected


@pytest.mark.parametrize("text", ["\n\nquery_id,doc_id,relevance\n1,d,1\n", "query_id,doc_id,relevance\r1,d,1\r"])
def test_the_header_is_the_first_non_empty_line_whatever_the_line_ends(tmp_path, text):
    assert read_qrels_table(_write(tmp_path, text)).num_rows == 1


def test_a_blank_first_line_is_the_header_as_arrow_reads_it(tmp_path):
    with pytest.raises(InputError, match="missing column 'query_id'"):
        read_qrels_table(_write(tmp_path, "   \nquery_id,doc_id,relevance\n1,d,1\n"))


def test_a_huge_first_line_is_a_named_error(tmp_path):
    # A 40 MB header line without a line end is read block by block, each byte scanned once
    # (it was concatenated and split again at every block).
    path = _write(tmp_path, "x" * (40 << 20))
    with pytest.raises(InputError, match="cannot parse the header line") as excinfo:
        read_qrels_table(path)
    assert excinfo.value.source == str(path)


@pytest.mark.parametrize("text", ["query_id,doc_id,relevance", "query_id,doc_id,relevance\n", "query_id,doc_id,relevance\r\n\r\n"])
def test_a_header_alone_is_an_empty_file(tmp_path, text):
    with pytest.raises(InputError, match="empty file"):
        read_qrels_table(_write(tmp_path, text))
