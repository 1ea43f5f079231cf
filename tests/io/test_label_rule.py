"""One rule for relevance labels written as text, the same in every source.

The rule (``io/coerce.py``): an optional ``-`` then one or more ASCII digits, within int64; or
else a finite ASCII decimal number (optional sign, fraction, exponent), a whole one read as
int64 (``2.0`` is 2), another as float64 (float labels, issue 28). The oracle here is that
sentence as two regular expressions plus Python's ``int()`` and ``float()``; each case is read
through every reader that can carry label text.
"""

from __future__ import annotations

import json
import math
import re

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import Qrels
from retrieval_eval.errors import InputError
from retrieval_eval.io import read_qrels_table

_RULE = re.compile(r"-?[0-9]+")  # the definition, independent of the implementation
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_INT64 = range(-(2**63), 2**63)

ACCEPTED = {"0": 0, "2": 2, "-1": -1, "007": 7, "-0": 0, "12": 12, "9223372036854775807": 2**63 - 1,
            "-9223372036854775808": -(2**63), "+2": 2, "2.0": 2, "1e3": 1000, "1.": 1, ".5": 0.5, "0.25": 0.25,
            "-1.5": -1.5, "2.5e-1": 0.25}
REJECTED = ["0x10", "0X10", "0b11", "0o7", "1_000", "٣", "١٢", "-", "--1", "2-", "+-2",
            "", "inf", "nan", "true", "9223372036854775808", "-9223372036854775809", "２", "1e400"]


def oracle(text: str) -> int | float | None:
    """The label the rule gives for ``text``, or None when the rule rejects it."""
    if _RULE.fullmatch(text) is not None:
        return int(text) if int(text) in _INT64 else None
    if _NUMBER.fullmatch(text) is None or not math.isfinite(float(text)):
        return None
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2.0**63 else value


def _trec(tmp_path, text):
    path = tmp_path / "q.txt"
    path.write_text(f"1 0 d {text}\n", encoding="utf-8")
    return path


def _delimited(delimiter, suffix):
    def write(tmp_path, text):
        path = tmp_path / f"q.{suffix}"
        path.write_text(delimiter.join(["query_id", "doc_id", "relevance"]) + "\n"
                        + delimiter.join(["1", "d", text]) + "\n", encoding="utf-8")
        return path
    return write


def _jsonl(tmp_path, text):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"query_id": "1", "doc_id": "d", "relevance": text}) + "\n", encoding="utf-8")
    return path


def _json(tmp_path, text):
    path = tmp_path / "q.json"
    path.write_text(json.dumps([{"query_id": "1", "doc_id": "d", "relevance": text}]), encoding="utf-8")
    return path


READERS = {
    "trec": _trec,
    "csv": _delimited(",", "csv"),
    "tsv": _delimited("\t", "tsv"),
    "jsonl": _jsonl,
    "json": _json,
    "dataframe": lambda _, text: pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "relevance": pd.Series([text], dtype=object)}),
    "categorical": lambda _, text: pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "relevance": pd.Categorical([text])}),
    "string dtype": lambda _, text: pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "relevance": pd.array([text], dtype="string")}),
    "table": lambda _, text: pa.table({"query_id": ["1"], "doc_id": ["d"], "relevance": [text]}),
    "records": lambda _, text: [{"query_id": "1", "doc_id": "d", "relevance": text}],
}


def _fits(reader: str, text: str) -> bool:
    # A TREC field cannot be empty or hold a blank; everything else can carry any text.
    return reader != "trec" or (text != "" and not any(c.isspace() for c in text))


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("text", list(ACCEPTED) + REJECTED)
def test_label_text_means_the_same_in_every_reader(tmp_path, reader, text):
    if not _fits(reader, text):
        pytest.skip("not a TREC field")
    source = READERS[reader](tmp_path, text)
    expected = oracle(text)
    assert expected == ACCEPTED.get(text)  # the table above agrees with the definition
    if expected is None:
        with pytest.raises(InputError) as excinfo:
            read_qrels_table(source)
        assert excinfo.value.row == 1 and excinfo.value.field in ("relevance", None)
        # An empty CSV field is a missing value, which has its own message.
        assert repr(text) in str(excinfo.value) or (text == "" and "missing" in str(excinfo.value))
    else:
        assert read_qrels_table(source)["relevance"].to_pylist() == [expected]


def test_the_rule_accepts_nothing_beyond_pythons_float():
    for text in ACCEPTED:
        assert (int(text) if _RULE.fullmatch(text) else float(text)) == ACCEPTED[text]


def test_hex_label_reproduction(tmp_path):
    # The report: "0x10" was read as 16 from TREC and CSV.
    for reader in ("trec", "csv"):
        with pytest.raises(InputError, match="relevance must be a number, got '0x10'"):
            Qrels.read(READERS[reader](tmp_path, "0x10"))


@given(st.text(alphabet="0123456789-+_.xXbeE ٣２", max_size=22).filter(lambda text: len(text.lstrip("+-")) < 300))
def test_label_text_rule_on_random_strings(text):
    table = pa.table({"query_id": ["1"], "doc_id": ["d"], "relevance": [text]})
    expected = oracle(text)
    if expected is None:
        with pytest.raises(InputError):
            read_qrels_table(table)
    else:
        assert read_qrels_table(table)["relevance"].to_pylist() == [expected]
        assert float(text) == expected  # within what Python's float() accepts, with its value


@pytest.mark.parametrize("reader", ["trec", "csv", "jsonl", "dataframe"])
def test_the_first_bad_label_is_named_with_its_row(tmp_path, reader):
    if reader == "trec":
        path = tmp_path / "q.txt"
        path.write_text("1 0 a 1\n1 0 b 2\n1 0 c 0x3\n1 0 d 0x4\n", encoding="utf-8")
        source, row = path, 3
    elif reader == "csv":
        path = tmp_path / "q.csv"
        path.write_text("query_id,doc_id,relevance\n1,a,1\n1,b,2\n1,c,0x3\n1,d,0x4\n", encoding="utf-8")
        source, row = path, 3
    elif reader == "jsonl":
        path = tmp_path / "q.jsonl"
        path.write_text("".join(json.dumps({"query_id": "1", "doc_id": d, "relevance": r}) + "\n"
                                for d, r in [("a", "1"), ("b", "2"), ("c", "0x3"), ("d", "0x4")]), encoding="utf-8")
        source, row = path, 3
    else:
        source, row = pd.DataFrame({"query_id": ["1"] * 4, "doc_id": list("abcd"), "relevance": ["1", "2", "0x3", "0x4"]}), 3
    with pytest.raises(InputError, match=r"got '0x3'") as excinfo:
        read_qrels_table(source)
    assert excinfo.value.row == row


@pytest.mark.parametrize("integer", ["9223372036854775808", "99999999999999999999", "-9223372036854775809"])
def test_an_integer_beyond_int64_is_refused_beside_fractional_labels(tmp_path, integer):
    # Beside a fraction the column is read as floats, where such an integer would be rounded silently.
    path = tmp_path / "qrels.trec"
    path.write_text(f"q1 0 d1 0.5\nq1 0 d2 {integer}\n")
    with pytest.raises(InputError, match=f"'{integer}' does not fit a 64-bit integer") as error:
        Qrels.read(path)
    assert error.value.row == 2
