"""The judgment layouts of trec_eval's -R (qrels_jg, qrels_prefs, prefs): fields, comments and errors.

The specification is trec_eval 10's readers (get_qrels_jg.c, get_qrels_prefs.c, get_prefs.c):
whitespace-separated fields, exactly 4 (5 for prefs); a line whose first byte is '#' is a
comment; the label is an integer (qrels_jg, as atol reads it) or a number (the preference
layouts, as atof). The tests read trec_eval's own files and ask the binary which lines it
refuses.
"""

from __future__ import annotations

import subprocess

import pandas as pd
import pytest

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.io import read_qrels_table

_LAYOUT_FILES = {"qrels_jg": "qrels.comments.123", "qrels_prefs": "qrels.test.with-comments", "prefs": "prefs.comment.test"}
_FIELDS = {"qrels_jg": 4, "qrels_prefs": 4, "prefs": 5}


def _write(tmp_path, text, name="judgments"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _data_lines(path):
    """The lines trec_eval reads as data in its own test files (none has two comment lines in a row)."""
    return [line.split() for line in path.read_text().splitlines() if not line.startswith("#")]


@pytest.mark.parametrize("judgments", sorted(_LAYOUT_FILES))
def test_trec_eval_test_files_are_read_field_by_field(trec_eval_test, judgments):
    path = trec_eval_test / _LAYOUT_FILES[judgments]
    lines = _data_lines(path)
    table = read_qrels_table(path, judgments=judgments)
    assert table.column_names == ["query_id", "doc_id", "relevance", "group"] + (["subgroup"] if judgments != "qrels_jg" else [])
    assert table["query_id"].to_pylist() == [fields[0] for fields in lines]
    assert table["group"].to_pylist() == [fields[1] for fields in lines]
    assert table["doc_id"].to_pylist() == [fields[-2] for fields in lines]
    if judgments == "prefs":
        assert table["subgroup"].to_pylist() == [fields[2] for fields in lines]
    elif judgments == "qrels_prefs":
        assert set(table["subgroup"].to_pylist()) == {"0"}  # get_qrels_prefs.c: jsg = "0"
    kind = int if judgments == "qrels_jg" else float
    assert table["relevance"].to_pylist() == [kind(fields[-1]) for fields in lines]
    assert "CR93E-3103#37" in table["doc_id"].to_pylist() or judgments != "qrels_jg"  # '#' inside a docno is text


def _trec_eval_refuses(binary, judgments, qrels, tmp_path) -> bool:
    run = _write(tmp_path, "q Q0 d 1 1.0 r\n", "run")
    measure = "qrels_jg" if judgments == "qrels_jg" else "prefs_simp"
    done = subprocess.run(
        [str(binary), "-R", judgments, "-m", measure, str(qrels), str(run)], capture_output=True, text=True, check=False
    )
    return "Malformed line" in done.stderr


@pytest.mark.parametrize("judgments", sorted(_LAYOUT_FILES))
@pytest.mark.parametrize("extra", [-2, -1, 0, 1])
def test_field_counts_as_trec_eval_reads_them(trec_eval_binary, tmp_path, judgments, extra):
    fields = ["q", "g", "s", "d", "1"] if judgments == "prefs" else ["q", "g", "d", "1"]
    fields = fields + ["x"] * extra if extra > 0 else fields[: len(fields) + extra] if extra else fields
    path = _write(tmp_path, "q g " + ("s " if judgments == "prefs" else "") + "d 1\n" + " \t".join(fields) + "\n")
    refused = _trec_eval_refuses(trec_eval_binary, judgments, path, tmp_path)
    assert refused == (extra != 0)
    if refused:
        with pytest.raises(InputError, match=rf"expected {_FIELDS[judgments]} whitespace-separated fields") as excinfo:
            read_qrels_table(path, judgments=judgments)
        assert excinfo.value.row == 2 and str(path) in str(excinfo.value)
    else:
        assert read_qrels_table(path, judgments=judgments).num_rows == 2


@pytest.mark.parametrize("judgments", ["qrels_prefs", "prefs"])
@pytest.mark.parametrize("level, value", [("2.5", 2.5), ("-1", -1.0), ("1e1", 10.0), ("007", 7.0), (".5", 0.5)])
def test_preference_levels_are_numbers(tmp_path, judgments, level, value):
    middle = "g s" if judgments == "prefs" else "g"
    path = _write(tmp_path, f"# levels\nq {middle} d {level}\n")
    assert read_qrels_table(path, judgments=judgments)["relevance"].to_pylist() == [value]


@pytest.mark.parametrize("judgments", ["qrels_prefs", "prefs"])
@pytest.mark.parametrize("level", ["x", "nan", "1,5", "0x10", "1e999"])
def test_a_level_that_is_no_number_is_an_error_naming_the_line(tmp_path, judgments, level):
    middle = "g s" if judgments == "prefs" else "g"
    path = _write(tmp_path, f"q {middle} a 1\n# comment\nq {middle} d {level}\n")
    with pytest.raises(InputError, match="relevance level") as excinfo:
        read_qrels_table(path, judgments=judgments)
    assert excinfo.value.row == 3 and excinfo.value.field == "relevance"


def test_a_judgment_group_label_is_a_number(tmp_path):
    path = _write(tmp_path, "q 0 a 1\nq 1 d x\n")
    with pytest.raises(InputError, match="relevance must be a number") as excinfo:
        read_qrels_table(path, judgments="qrels_jg")
    assert excinfo.value.row == 2
    floats = read_qrels_table(_write(tmp_path, "q 0 a 1\nq 1 d 1.5\n"), judgments="qrels_jg")
    assert floats["relevance"].to_pylist() == [1.0, 1.5]  # float labels, which the judgment-group measures refuse


@pytest.mark.parametrize("judgments", sorted(_LAYOUT_FILES))
def test_comments_are_lines_starting_with_hash_and_a_data_like_one_is_refused(tmp_path, judgments):
    middle = "g s" if judgments == "prefs" else "g"
    path = _write(tmp_path, f"# a comment\nq {middle} d#1 1\n # indented: data of query '#x'\n")
    with pytest.raises(InputError, match="whitespace-separated fields"):
        read_qrels_table(path, judgments=judgments)  # the indented line is data, and malformed
    path = _write(tmp_path, f"# a comment\nq {middle} d#1 1\n#q {middle} e 1\n")
    with pytest.raises(InputError, match="starts with '#'") as excinfo:
        read_qrels_table(path, judgments=judgments)
    assert excinfo.value.row == 3
    path = _write(tmp_path, f"# a comment\n# another\nq {middle} d#1 1\n# the last line\n")
    assert read_qrels_table(path, judgments=judgments)["doc_id"].to_pylist() == ["d#1"]


def test_tabular_sources_name_the_group_columns():
    frame = pd.DataFrame({"qid": ["1", "1"], "jg": [10, 9], "jsg": ["a", "b"], "docno": ["x", "y"], "rel": [1, 2.5]})
    table = read_qrels_table(frame, judgments="prefs")
    assert table.to_pylist() == [
        {"query_id": "1", "doc_id": "x", "relevance": 1.0, "group": "10", "subgroup": "a"},
        {"query_id": "1", "doc_id": "y", "relevance": 2.5, "group": "9", "subgroup": "b"},
    ]
    with pytest.raises(InputError, match="group"):
        read_qrels_table(frame.drop(columns="jg"), judgments="qrels_jg")
    assert read_qrels_table(frame, judgments="qrels_jg")["relevance"].to_pylist() == [1.0, 2.5]
    with pytest.raises(InputError, match="row 2, field 'rel'"):  # pandas' NaN is a missing value
        read_qrels_table(frame.assign(rel=[1.0, float("nan")]), judgments="prefs")


def test_an_unknown_layout_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="judgments must be one of"):
        read_qrels_table(_write(tmp_path, "q 0 d 1\n"), judgments="trec")
