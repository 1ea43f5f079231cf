"""CSV and TSV quoted only where needed: the bytes of Python's csv module (QUOTE_MINIMAL) for text and integers,
Arrow's own text for floats, read back to the same values by the package's readers; and, for files made for people,
a leading ' before a text cell a spreadsheet would run as a formula."""

from __future__ import annotations

import csv
import io

import pyarrow as pa
import pyarrow.csv as pa_csv
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.io import read_qrels_table, read_run_table, write_table
from retrieval_eval.io.delimited import FORMULA_STARTS, delimited_blocks

DELIMITERS = {"csv": ",", "tsv": "\t"}
# Text with every character that matters to a field: both delimiters, the quote, both line breaks, formula starts.
TEXT = st.text(st.sampled_from(list(',\t"\n\r =+-@\'aZ0é')) | st.characters(codec="utf-8", exclude_categories=["Cs"]),
               min_size=1, max_size=8)


def text_of(table: pa.Table, delimiter: str, **kwargs) -> str:
    return b"".join(delimited_blocks(table, delimiter, **kwargs)).decode("utf-8")


def python_csv(rows: list[list], delimiter: str) -> str:
    """The reference: Python's csv writer, quoting only where needed, lines ended by a line feed. (Its line
    terminator is \\r\\n, so that it quotes a carriage return too, which readers take for a line end.)"""
    lines = []
    for row in rows:
        out = io.StringIO()
        csv.writer(out, delimiter=delimiter, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n").writerow(row)
        lines.append(out.getvalue().removesuffix("\r\n") + "\n")
    return "".join(lines)


@pytest.mark.parametrize("ext", list(DELIMITERS))
@given(rows=st.lists(st.tuples(TEXT, TEXT, st.integers(-2**63, 2**63 - 1)), max_size=20))
def test_text_and_integers_are_quoted_as_pythons_csv_module_quotes_them(ext, rows):
    table = pa.table({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], "relevance": [r[2] for r in rows]},
                     schema=pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("relevance", pa.int64())]))
    assert text_of(table, DELIMITERS[ext]) == python_csv([table.column_names, *map(list, rows)], DELIMITERS[ext])


@given(values=st.lists(st.floats() | st.none(), max_size=20))
def test_floats_are_written_as_arrows_csv_writer_writes_them(values):
    table = pa.table({"score": pa.array(values, pa.float64())})
    sink = io.BytesIO()
    pa_csv.write_csv(table, sink, pa_csv.WriteOptions(quoting_style="none"))
    assert text_of(table, ",") == sink.getvalue().decode().replace('"score"', "score", 1)


@pytest.mark.parametrize("ext", list(DELIMITERS))
@given(rows=st.lists(st.tuples(TEXT, TEXT, st.integers(0, 3)), min_size=1, max_size=20, unique_by=lambda r: (r[0], r[1])))
def test_the_packages_reader_reads_back_every_value(tmp_path_factory, ext, rows):
    path = tmp_path_factory.mktemp("round") / f"qrels.{ext}"
    table = pa.table({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], "relevance": [r[2] for r in rows]})
    write_table(table, path)
    back = read_qrels_table(path)
    assert back.select(["query_id", "doc_id", "relevance"]).to_pylist() == table.to_pylist()


def test_an_empty_string_and_a_missing_value_stay_apart():
    table = pa.table({"a": pa.array(["", None, "x"], pa.string()), "b": pa.array([1, None, 3], pa.int64())})
    assert text_of(table, "\t") == 'a\tb\n""\t1\n\t\nx\t3\n'


def test_ids_that_need_no_quotes_are_written_as_typed(tmp_path):
    path = tmp_path / "run.tsv"
    write_table(pa.table({"query_id": ["q1"], "doc_id": ["doc 7"], "score": [0.5]}), path)
    assert path.read_text() == "query_id\tdoc_id\tscore\nq1\tdoc 7\t0.5\n"
    assert read_run_table(path).to_pylist() == [{"query_id": "q1", "doc_id": "doc 7", "score": 0.5}]


@pytest.mark.parametrize("start", list(FORMULA_STARTS))
def test_a_cell_a_spreadsheet_would_run_gets_a_leading_quote_only_for_spreadsheets(start):
    table = pa.table({"doc_id": [f"{start}HYPERLINK(1)", "d'1", "'=x"], "n": [-1, 2, 3]})
    guarded = text_of(table, ",", for_spreadsheets=True)
    rows = list(csv.reader(io.StringIO(guarded, newline="")))
    assert rows[1] == [f"'{start}HYPERLINK(1)", "-1"]  # the number -1 is a number to a spreadsheet: as it is
    assert rows[2:] == [["d'1", "2"], ["'=x", "3"]]  # a cell starting with ' is text already
    assert list(csv.reader(io.StringIO(text_of(table, ","), newline="")))[1][0] == f"{start}HYPERLINK(1)"
