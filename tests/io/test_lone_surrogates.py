"""A JSON-escaped lone surrogate ("q\\ud800": half of an escaped pair, no character) in any JSON input is one
line naming the file, row and field, on every command that reads it, never a UnicodeEncodeError traceback;
an escaped pair (a character beyond U+FFFF) reads as that character."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from retrieval_eval.data import Run
from retrieval_eval.errors import InputError
from tests.test_cli import run_cli

DATA = Path(__file__).resolve().parents[2] / "data"
LONE = "q\\ud800"  # as the JSON text spells it


def _jsonl(path: Path, rows: list[dict], *, lone_in: str | None = None) -> str:
    """Rows as JSON Lines; the value of field ``lone_in`` in the first row becomes the escaped lone surrogate."""
    lines = [json.dumps(row) for row in rows]
    if lone_in is not None:
        lines[0] = lines[0].replace(json.dumps(rows[0][lone_in]), f'"{LONE}"', 1)
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    return str(path)


def _run_rows():
    return [{"query_id": "q1", "doc_id": "d1", "score": 1.0}, {"query_id": "q2", "doc_id": "d2", "score": 0.5}]


def _qrels_rows():
    return [{"query_id": "q1", "doc_id": "d1", "relevance": 1}, {"query_id": "q2", "doc_id": "d2", "relevance": 1}]


def _inputs(tmp_path: Path, case: str) -> tuple[list[str], str, str]:
    """The command line of one surface, the file that holds the lone surrogate and its field."""
    run_ok, qrels_ok = _jsonl(tmp_path / "run.jsonl", _run_rows()), _jsonl(tmp_path / "qrels.jsonl", _qrels_rows())
    if case in ("run", "run --trec", "explain run", "fuse", "pool"):
        bad = _jsonl(tmp_path / "bad_run.jsonl", _run_rows(), lone_in="doc_id" if case == "pool" else "query_id")
        field = "doc_id" if case == "pool" else "query_id"
        argv = {
            "run": ["evaluate", qrels_ok, bad],
            "run --trec": ["evaluate", qrels_ok, bad, "--trec"],
            "explain run": ["explain", qrels_ok, bad],
            "fuse": ["fuse", run_ok, bad, "--method", "rrf", "-o", str(tmp_path / "fused.trec")],
            "pool": ["pool", run_ok, bad, "--depth", "5", "-o", str(tmp_path / "pool.tsv")],
        }[case]
        return argv, bad, field
    if case in ("qrels", "merge"):
        bad = _jsonl(tmp_path / "bad_qrels.jsonl", _qrels_rows(), lone_in="doc_id")
        argv = ["evaluate", bad, run_ok] if case == "qrels" else ["qrels", "merge", qrels_ok, bad, "-o", str(tmp_path / "m.jsonl")]
        return argv, bad, "doc_id"
    if case == "topics":
        bad = _jsonl(tmp_path / "topics.jsonl", [{"query_id": "q1", "text": "one"}], lone_in="text")
        return ["explain", qrels_ok, run_ok, "--topics", bad], bad, "text"
    if case == "docs":
        bad = _jsonl(tmp_path / "docs.jsonl", [{"doc_id": "d1", "title": "one"}], lone_in="title")
        return ["explain", qrels_ok, run_ok, "--docs", bad], bad, "title"
    assert case == "azure"
    rows = [json.loads(line) for line in (DATA / "azure_rows.jsonl").read_text(encoding="utf-8").splitlines()[:2]]
    bad = _jsonl(tmp_path / "azure.jsonl", rows, lone_in="query_id")
    return ["evaluate", "--azure", bad], bad, "query_id"


CASES = ["run", "run --trec", "explain run", "fuse", "pool", "qrels", "merge", "topics", "docs", "azure"]


@pytest.mark.parametrize("case", CASES)
def test_a_lone_surrogate_is_one_line_naming_the_file_row_and_field(capsys, tmp_path, case):
    argv, bad, field = _inputs(tmp_path, case)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"retrieval-eval: error: {bad}, row 1, field '{field}': a string holds a lone surrogate (\\ud800)"), err
    assert "Traceback" not in err


def test_an_escaped_pair_reads_as_its_character(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"query_id": "q\\ud83d\\ude00", "doc_id": "d\\\\ud800", "score": 1.0}\n', encoding="ascii")
    run = Run.read(str(path))
    # The pair is one character beyond U+FFFF; an escaped backslash before "ud800" is text, not an escape.
    assert run.table["query_id"].to_pylist() == ["q\U0001F600"] and run.table["doc_id"].to_pylist() == ["d\\ud800"]


@pytest.mark.parametrize(
    ("source", "field"),
    [
        ({"q\ud800": {"d1": 1.0}}, "query_id"),
        ([{"query_id": "q1", "doc_id": "d1", "score": 1.0}, {"query_id": "q1", "doc_id": "d\udfff", "score": 0.5}], "doc_id"),
    ],
)
def test_a_lone_surrogate_in_memory_is_an_input_error_naming_row_and_field(source, field):
    with pytest.raises(InputError, match="holds a lone surrogate") as error:
        Run.read(source)
    assert error.value.field == field and error.value.row == (1 if isinstance(source, dict) else 2)
