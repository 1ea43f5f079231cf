"""The readers of query texts and document titles: each format read, only the asked documents kept,
and each kind of bad input one InputError naming the file, the line and the field."""

from __future__ import annotations

import pandas as pd
import pytest

from retrieval_eval.errors import InputError
from retrieval_eval.io.texts import read_doc_titles, read_query_texts

TOPICS = """<top>
<num> Number: 301
<title> Topic: International Organized
  Crime
<desc> Description:
Identify organizations.
</top>

<top><num>302<title>Poliomyelitis and Post-Polio</top>
"""


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("topics.txt", TOPICS),
        ("queries.tsv", "301\tInternational Organized Crime\n302\tPoliomyelitis and Post-Polio\n"),
        ("queries.tsv", "query_id\ttext\n301\tInternational Organized Crime\n302\tPoliomyelitis and Post-Polio\n"),
        ("queries.jsonl", '{"query_id": 301, "text": "International Organized Crime"}\n\n'
                          '{"query_id": "302", "text": "Poliomyelitis and Post-Polio"}\n'),
    ],
)
def test_query_texts_in_each_format(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    assert read_query_texts(path) == {"301": "International Organized Crime", "302": "Poliomyelitis and Post-Polio"}


def test_document_titles_keep_only_the_documents_asked_for(tmp_path):
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text('{"doc_id": "d1", "title": "One", "text": "body"}\n{"doc_id": "d2", "text": "Two"}\n{"doc_id": 3, "title": "Three"}\n')
    assert read_doc_titles(jsonl, ["d2", 3, "absent"]) == {"d2": "Two", "3": "Three"}
    tsv = tmp_path / "docs.tsv"
    tsv.write_text("text\tdoc_id\nbody one\td1\nbody two\td2\n")
    assert read_doc_titles(tsv, ["d1"]) == {"d1": "body one"}
    parquet = tmp_path / "docs.parquet"
    pd.DataFrame({"doc_id": [1, 2, 3], "title": ["a", "b", "c"]}).to_parquet(parquet)
    assert read_doc_titles(parquet, ["2", 3]) == {"2": "b", "3": "c"}


@pytest.mark.parametrize(
    ("name", "content", "row", "field", "match"),
    [
        ("q.jsonl", '{"query_id": "1", "text": "a"}\n{"query_id": "2"}\n', 2, "text", "expected a 'text' field"),
        ("q.jsonl", '{"query_id": "1", "text": "a"}\n{"query_id": \n', 2, None, "invalid JSON at line 2"),
        ("q.jsonl", '["1", "a"]\n', 1, None, "expected a JSON object"),
        ("q.jsonl", '{"query_id": "1", "text": 7}\n', 1, "text", "expected a string"),
        ("q.tsv", "1\ta\n2 b\n", 2, None, "found no tab"),
        ("q.tsv", "1\ta\n1\tb\n", 2, "query_id", "given twice"),
        ("t.txt", "<top><num>1<title>a</top>\n<top><title>b</top>\n", 2, "num", "no <num>"),
        ("t.txt", "<top>\n<num>1\n</top>\n", 1, "title", "topic 1 has no <title>"),
    ],
)
def test_bad_query_texts_name_file_line_and_field(tmp_path, name, content, row, field, match):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=match) as error:
        read_query_texts(path)
    assert (error.value.source, error.value.row, error.value.field) == (str(path), row, field)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("name", "content", "row", "field", "match"),
    [
        ("d.jsonl", '{"doc_id": "1", "title": "a"}\n{"doc_id": "2"}\n', 2, "title", "'title' or 'text'"),
        ("d.jsonl", '{"title": "a"}\n', 1, "doc_id", "expected a 'doc_id' field"),
        ("d.tsv", "id\ttitle\n1\ta\n", 1, None, "expected a header"),
    ],
)
def test_bad_document_titles_name_file_line_and_field(tmp_path, name, content, row, field, match):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=match) as error:
        read_doc_titles(path, ["1", "2"])
    assert (error.value.source, error.value.row, error.value.field) == (str(path), row, field)


def test_unreadable_files_are_input_errors(tmp_path):
    binary = tmp_path / "q.tsv"
    binary.write_bytes(b"1\tok\n2\t\xff\n")
    with pytest.raises(InputError, match="not UTF-8") as error:
        read_query_texts(binary)
    assert error.value.row == 2
    with pytest.raises(InputError, match="cannot be read"):
        read_query_texts(tmp_path / "absent.tsv")
    not_parquet = tmp_path / "d.parquet"
    not_parquet.write_text("x")
    with pytest.raises(InputError, match="not a parquet file"):
        read_doc_titles(not_parquet, ["1"])
    with pytest.raises(InputError, match="no complete"):
        (tmp_path / "t.txt").write_text("<top><num>1")
        read_query_texts(tmp_path / "t.txt")


@pytest.mark.parametrize(
    "lines",
    [
        ['{"doc_id": "d1", "title": "One"}', '{"doc_id": "d2", "title": null, "text": "Two"}', '{"doc_id": "d3", "title": "Three"}'],
        ['{"doc_id": 1, "text": "One"}', "", '{"doc_id": 2, "text": "Two"}'],
        ['{"doc_id": "d1", "title": "One"}', '{"doc_id": "d1", "title": "Again"}', '{"doc_id": "d2", "title": "Two"}'],
    ],
)
def test_arrows_reading_of_clean_jsonl_is_the_line_readers(tmp_path, monkeypatch, lines):
    from retrieval_eval.io import texts

    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    wanted = ["d2", "d3", 1, "2"]
    fast = texts.read_doc_titles(path, wanted)
    monkeypatch.setattr(texts, "_arrow_json_titles", lambda source, wanted, order: None)
    assert fast == texts.read_doc_titles(path, wanted)
