"""Every reader that parses JSON from a file refuses, with the file and the line, what a parser must not be
given or would read silently wrong: invalid UTF-8, nesting deeper than MAX_DEPTH, and an object that repeats a key.

The readers: runs, qrels, Azure rows and answer rows (JSON Lines and ``.json``), execution logs (both readings),
evaluation documents, executions files and ``read_json_file`` itself.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Callable

import pytest

from retrieval_eval.errors import InputError
from retrieval_eval.executions.batch.log import iter_execution_records, read_execution_log
from retrieval_eval.executions.model.document import read_document
from retrieval_eval.executions.model.normalize import load_executions
from retrieval_eval.io import read_azure_rows, read_json_file, read_qrels_table, read_run_table
from retrieval_eval.io.answer_rows import read_answer_rows
from retrieval_eval.io.jsonio import MAX_DEPTH

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])

# Each reader with a valid record (a dict: one JSON Lines line, or the items of a document) and how it reads a file.
RUN = {"query_id": "q1", "doc_id": "d1", "score": 1.5}
QRELS = {"query_id": "q1", "doc_id": "d1", "relevance": 1}
AZURE = {"retrieval_ground_truth": [{"document_id": "d1", "query_relevance_label": 1}], "retrieved_documents": []}
ANSWER = {"response": "an answer", "ground_truth": "the answer"}
LOG = {"retrieval_executions": [{"capability": "Email", "queries": [{"queryString": "x"}]}]}
DOCUMENT = {"schemaVersion": "1.0.0", "items": [{"prompt": "hi", "response": "hello"}]}
EXECUTIONS = {"retrieval_executions": [{"capability": "Email", "queries": [{"queryString": "x"}]}]}


def _lines(record: dict) -> Callable[[str], str]:
    """The file's text: the record on line 1, then ``bad`` (a record's text, maybe broken) on line 2."""
    return lambda bad: json.dumps(record) + "\n" + bad + "\n"


def _array(record: dict) -> Callable[[str], str]:
    return lambda bad: "[" + json.dumps(record) + ",\n" + bad + "]\n"


def _document(bad: str) -> str:
    return '{"schemaVersion": "1.0.0",\n"items": [' + bad + "]}\n"


def _log_records(path: Path) -> list:
    return list(iter_execution_records(path))


READERS = {
    "run.jsonl": (read_run_table, RUN, _lines(RUN)),
    "run.json": (read_run_table, RUN, _array(RUN)),
    "qrels.jsonl": (read_qrels_table, QRELS, _lines(QRELS)),
    "qrels.json": (read_qrels_table, QRELS, _lines(QRELS)),  # JSON Lines in a .json file
    "azure.jsonl": (read_azure_rows, AZURE, _lines(AZURE)),
    "answers.jsonl": (read_answer_rows, ANSWER, _lines(ANSWER)),
    "log.jsonl": (read_execution_log, LOG, _lines(LOG)),
    "records.jsonl": (_log_records, LOG, _lines(LOG)),
    "document.json": (read_document, DOCUMENT["items"][0], _document),
    "executions.json": (load_executions, EXECUTIONS, lambda bad: "\n" + bad + "\n"),
    "value.json": (read_json_file, {"a": 1}, lambda bad: "\n" + bad + "\n"),
}


def _bad_record(record: dict, *, deep: int = 0, repeat: bool = False) -> str:
    """The record's JSON with one more key nesting ``deep`` levels of arrays, or with its first key written twice."""
    text = json.dumps(record)
    if deep:
        text = text[:-1] + ', "extra": ' + "[" * deep + "]" * deep + "}"
    if repeat:
        key = next(iter(record))
        text = text[:-1] + f", {json.dumps(key)}: {json.dumps(record[key])}" + "}"
    return text


def _read(tmp_path: Path, name: str, text: bytes):
    reader, _, _ = READERS[name]
    path = tmp_path / name
    path.write_bytes(text)
    return reader(path), path


@pytest.mark.parametrize("name", READERS)
def test_a_reader_takes_nesting_up_to_the_limit(tmp_path, name):
    # The extra key is a key of the record, one level inside the levels around it.
    _, record, text = READERS[name]
    _read(tmp_path, name, text(_bad_record(record, deep=MAX_DEPTH - _outer(name) - 1)).encode())


@pytest.mark.parametrize("name", READERS)
def test_every_reader_refuses_nesting_past_the_limit_naming_the_line(tmp_path, name):
    _, record, text = READERS[name]
    with pytest.raises(InputError, match=f"nested deeper than {MAX_DEPTH} levels") as caught:
        _read(tmp_path, name, text(_bad_record(record, deep=MAX_DEPTH - _outer(name))).encode())
    assert caught.value.source == str(tmp_path / name) and caught.value.row == 2


@pytest.mark.parametrize("name", READERS)
def test_every_reader_refuses_100_000_levels(tmp_path, name):
    _, record, text = READERS[name]
    with pytest.raises(InputError, match="nested deeper") as caught:
        _read(tmp_path, name, text(_bad_record(record, deep=100_000)).encode())
    assert caught.value.row == 2


@pytest.mark.parametrize("name", READERS)
def test_every_reader_refuses_invalid_utf8_naming_the_line(tmp_path, name):
    _, record, text = READERS[name]
    broken = text(json.dumps(record).replace('"', '"\udcff', 1))  # a lone 0xFF byte, once encoded
    with pytest.raises(InputError, match="invalid UTF-8") as caught:
        _read(tmp_path, name, broken.encode("utf-8", "surrogateescape"))
    assert caught.value.source == str(tmp_path / name) and caught.value.row == 2


@pytest.mark.parametrize("name", READERS)
def test_every_reader_refuses_a_repeated_key_naming_it_and_the_line(tmp_path, name):
    _, record, text = READERS[name]
    key = next(iter(record))
    with pytest.raises(InputError, match=f"duplicate key '{key}' in the object at line 2, column") as caught:
        _read(tmp_path, name, text(_bad_record(record, repeat=True)).encode())
    assert caught.value.source == str(tmp_path / name) and caught.value.row == 2


def test_a_repeated_key_in_a_nested_object_names_the_line_and_column_of_that_object(tmp_path):
    path = tmp_path / "doc.json"
    path.write_text('{\n  "items": [\n    {"a": 1, "x": {"b": 1, "b": 2}}\n  ]\n}\n')
    with pytest.raises(InputError, match=r"duplicate key 'b' in the object at line 3, column 19"):
        read_json_file(path)


def test_escaped_keys_are_the_same_key(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"qid": "q1", "doc": "d", "score": 1, "q\\u0069d": "q2"}\n')
    with pytest.raises(InputError, match="duplicate key 'qid'"):
        read_run_table(path)


def test_invalid_utf8_in_a_jsonl_id_is_refused_not_read(tmp_path):
    # The reproduction: Arrow's reader takes the bytes as they are, and they reached the outputs.
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"qid": "q1", "docno": "d1", "score": 1}\n{"qid": "q\xff2", "docno": "d1", "score": 1}\n')
    with pytest.raises(InputError, match="run.jsonl, row 2: invalid UTF-8 text"):
        read_run_table(path)


def test_20_000_brackets_in_an_unused_field_do_not_crash_the_process(tmp_path):
    # The reproduction: Arrow's JSON reader overflowed its stack (the process died); a fresh interpreter, so that
    # a crash fails this test and not the test run.
    path = tmp_path / "run.jsonl"
    path.write_text('{"qid": "q1", "docno": "d1", "score": 1}\n' + _bad_record(RUN, deep=20_000) + "\n")
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {PACKAGE_ROOT!r})
        from retrieval_eval.errors import InputError
        from retrieval_eval.io import read_run_table
        try:
            read_run_table({str(path)!r})
        except InputError as error:
            print(error)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    column = _bad_record(RUN, deep=1).index("[") + MAX_DEPTH  # the bracket opening level MAX_DEPTH + 1 (1-based)
    assert done.stdout.strip() == (
        f"{path}, row 2: nested deeper than {MAX_DEPTH} levels (objects and arrays) at line 2, column {column}"
    )


def _outer(name: str) -> int:
    """The levels around a record in the file: a JSON array of records, or a document's object and items."""
    return {"run.json": 1, "document.json": 2}.get(name, 0)


@pytest.mark.parametrize("field", ["query_id", "doc_id", "relevance"])
@pytest.mark.parametrize("number", [2**63, 2**64 + 1, -(2**63) - 1])
@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_an_integer_past_int64_is_named_as_such_in_every_json_form(tmp_path, field, number, suffix):
    # Arrow's JSON Lines reader read 2^63 as the float 9.22e18 ("relevance must be an integer, got 9.223372036854776e+18").
    row = {"query_id": "q1", "doc_id": "d1", "relevance": 1, field: number}
    path = tmp_path / f"qrels{suffix}"
    path.write_text(json.dumps(row) + "\n" if suffix == ".jsonl" else json.dumps([row]))
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}, row 1, field '{field}': {number} does not fit a 64-bit integer$"):
        read_qrels_table(path)
