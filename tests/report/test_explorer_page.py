"""The explorer page's data, without a browser: the embedded JSON read back (by a decoder written here from the
documented format) gives the explanation's rows exactly (metric values to the bit, scores and labels to 7
significant digits); no string can close the script; bad rows fail with a message naming them; the writer
never writes over an input."""

from __future__ import annotations

import base64
import gzip
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import OutputError
from retrieval_eval.explain import Explanation
from retrieval_eval.report import explorer_page as page_module
from retrieval_eval.report.explorer_page import explorer_html, write_explorer

_DATA = re.compile(r'<script type="application/(json|gzip)" id="explorer-data"( data-encoding="gzip\+base64")?>(.*?)</script>', re.S)


def embedded(page: str) -> dict:
    """The page's data: the one data script, inflated where it is compressed, parsed."""
    ((kind, encoding, blob),) = _DATA.findall(page)
    assert (kind == "gzip") == bool(encoding)
    return json.loads(gzip.decompress(base64.b64decode(blob)) if encoding else blob)


def decoded_rows(data: dict, part: str, fields: list[str]) -> list[tuple]:
    """The rows of ``part`` as (query id, run, field values...) tuples, strings looked up, the rank counted
    where it was left out."""
    strings, queries = data["strings"], data["columns"][0]["values"]
    rows, block = [], data[part]
    groups = block["groups"]
    for group in range(len(block["start"]) - 1):
        query, run = divmod(group, groups)
        for i in range(block["start"][group], block["start"][group + 1]):
            values = []
            for field in fields:
                if field == "rank" and "rank" not in block:
                    values.append(i - block["start"][group] + 1)
                elif field in ("doc", "title"):
                    codes = block.get(field)
                    values.append(None if codes is None or codes[i] < 0 else strings[codes[i]])
                elif field == "change":
                    values.append(("entered", "left", "moved")[block[field][i]])
                else:
                    values.append(block[field][i])
            rows.append((strings[queries[query]], "ab"[run] if groups == 2 else None, *values))
    return rows


def _seven(value: float) -> float | None:
    return None if math.isnan(value) else float(f"{value:.7g}")


def frame_rows(frame: pd.DataFrame, columns: list[str], queries: list[str], with_run: bool = True) -> list[tuple]:
    """The same rows from the frame, in the page's order (queries' order, run, rank, then the frame's)."""
    frame = frame.assign(_q=frame["query_id"].map({q: i for i, q in enumerate(queries)}))
    keys = ["_q"] + (["run"] if with_run else []) + (["rank"] if "rank" in frame.columns else [])
    frame = frame.sort_values(keys, kind="stable")
    out = []
    for record in frame.to_dict("records"):
        values = []
        for column in columns:
            value = record[column]
            if column in ("score", "label", "rank_a", "rank_b"):
                value = _seven(value)
            elif column == "title" and pd.isna(value):
                value = None
            values.append(value)
        out.append((record["query_id"], record["run"] if with_run else None, *values))
    return out


_ids = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8)


@st.composite
def explanations(draw) -> Explanation:
    """A paired explanation of a few queries with any ids, titles, labels (NaN: holes) and scores."""
    qids = draw(st.lists(_ids, min_size=1, max_size=5, unique=True))
    floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
    n = len(qids)
    queries = pd.DataFrame({"query_id": qids, "text": draw(st.lists(st.none() | _ids, min_size=n, max_size=n)),
                            "m": draw(st.lists(floats, min_size=n, max_size=n)),
                            "m_b": draw(st.lists(floats, min_size=n, max_size=n)),
                            "holes": draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)),
                            "missed": draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))})
    queries["m_delta"] = queries["m_b"] - queries["m"]
    queries["outcome"] = draw(st.lists(st.sampled_from(["win", "tie", "loss"]), min_size=n, max_size=n))
    ranked = []
    for query in qids:
        for run in draw(st.permutations(["a", "b"])):
            docs = draw(st.lists(_ids, max_size=4, unique=True))
            ranks = sorted(draw(st.lists(st.integers(1, 30), min_size=len(docs), max_size=len(docs), unique=True)))
            for rank, doc in zip(ranks, docs):
                ranked.append({"query_id": query, "run": run, "rank": rank, "doc_id": doc,
                               "score": draw(st.floats(-1e6, 1e6)), "label": draw(st.sampled_from([np.nan, 0.0, 1.0, 2.5])),
                               "title": draw(st.none() | _ids)})
    ranked = pd.DataFrame(ranked, columns=["query_id", "run", "rank", "doc_id", "score", "label", "title"])
    ranked = ranked.sample(frac=1, random_state=draw(st.integers(0, 9)))  # any row order
    missed = pd.DataFrame([{"query_id": draw(st.sampled_from(qids)), "run": draw(st.sampled_from("ab")), "doc_id": doc,
                            "label": 1.0, "title": None} for doc in draw(st.lists(_ids, max_size=3))],
                          columns=["query_id", "run", "doc_id", "label", "title"])
    changes = pd.DataFrame([{"query_id": draw(st.sampled_from(qids)), "doc_id": doc,
                             "change": draw(st.sampled_from(["entered", "left", "moved"])),
                             "rank_a": draw(st.sampled_from([np.nan, 1.0, 3.0])), "rank_b": draw(st.sampled_from([np.nan, 2.0]))}
                            for doc in draw(st.lists(_ids, max_size=3))],
                           columns=["query_id", "doc_id", "change", "rank_a", "rank_b"])
    return Explanation(queries, ranked, missed, changes, ["m"], ("run a", "run b"), 20)


@settings(max_examples=max(5, settings().max_examples // 4))  # a page per example: a quarter of the profile's
@given(explanations())
def test_the_embedded_data_reads_back_as_the_explanations_rows(explanation):
    page = explorer_html(explanation, title="t")
    data = embedded(page)
    queries = explanation.queries
    qids = queries["query_id"].tolist()
    columns = {column["key"]: column for column in data["columns"]}
    strings = data["strings"]
    assert [strings[code] for code in columns["query_id"]["values"]] == qids
    if queries["text"].notna().any():
        assert [None if code < 0 else strings[code] for code in columns["text"]["values"]] == [
            None if pd.isna(text) else text for text in queries["text"]]
    else:  # no text column where no query has a text
        assert "text" not in columns
    for key in ("m", "m_b", "m_delta", "holes", "missed"):  # exact: the same doubles (NaN as null)
        expected = [None if math.isnan(v) else v for v in queries[key].astype(float)]
        assert columns[key]["values"] == expected, key
    assert [strings[code] for code in columns["outcome"]["values"]] == queries["outcome"].tolist()
    assert len(strings) == len(set(strings))  # each string once
    assert decoded_rows(data, "ranked", ["rank", "doc", "score", "label", "title"]) == frame_rows(
        explanation.ranked, ["rank", "doc_id", "score", "label", "title"], qids)
    assert decoded_rows(data, "missed", ["doc", "label", "title"]) == frame_rows(
        explanation.missed, ["doc_id", "label", "title"], qids)
    assert decoded_rows(data, "changes", ["doc", "change", "rank_a", "rank_b"]) == frame_rows(
        explanation.changes, ["doc_id", "change", "rank_a", "rank_b"], qids, with_run=False)
    assert data["runs"] == ["run a", "run b"] and data["metrics"] == ["m"]
    assert page.count("<script") == 2 and page.count("</script") == 2  # no string opened or closed one


def test_a_compressed_page_embeds_the_same_data_and_compression_is_chosen_by_size(monkeypatch):
    explanation = _one()
    plain, packed = explorer_html(explanation, compress=False), explorer_html(explanation, compress=True)
    assert 'data-encoding="gzip+base64"' in packed and "data-encoding" not in plain
    assert embedded(packed) == embedded(plain)
    assert "data-encoding" not in explorer_html(explanation)  # small: plain JSON
    monkeypatch.setattr(page_module, "COMPRESS_ABOVE", 10)
    assert "data-encoding" in explorer_html(explanation)


def _one(ranked: pd.DataFrame | None = None, changes: pd.DataFrame | None = None) -> Explanation:
    queries = pd.DataFrame({"query_id": ["q1", "q2"], "text": None, "m": [0.5, 1.0], "holes": [0, 1], "missed": [0, 0]})
    if ranked is None:
        ranked = pd.DataFrame({"query_id": ["q1"], "run": ["a"], "rank": [1], "doc_id": ["d"], "score": [1.0],
                               "label": [1.0], "title": [None]})
    missed = pd.DataFrame(columns=["query_id", "run", "doc_id", "label", "title"])
    if changes is None:
        changes = pd.DataFrame(columns=["query_id", "doc_id", "change", "rank_a", "rank_b"])
    return Explanation(queries, ranked, missed, changes, ["m"], ("a.run", None), 20)


def test_one_run_has_no_b_columns_and_no_title_column():
    data = embedded(explorer_html(_one()))
    assert [column["key"] for column in data["columns"]] == ["query_id", "m", "holes", "missed"]
    assert data["runs"] == ["a.run"] and data["summary"] == {"means": [{"metric": "m", "a": 0.75}]}
    assert "title" not in data["ranked"] and "rank" not in data["ranked"]


@pytest.mark.parametrize(("change", "message"), [
    ({"query_id": "q9"}, "the ranked rows name query 'q9', which is not among the queries"),
    ({"run": "c"}, "the ranked rows' run is 'c'; expected one of a, b"),
])  # fmt: skip
def test_a_row_of_no_query_or_run_fails_naming_it(change, message):
    ranked = pd.DataFrame({"query_id": ["q1"], "run": ["a"], "rank": [1], "doc_id": ["d"], "score": [1.0],
                           "label": [1.0], "title": [None]}).assign(**change)
    with pytest.raises(ValueError, match=re.escape(message)):
        explorer_html(_one(ranked))


def test_a_query_twice_fails_naming_it():
    explanation = _one()
    queries = pd.concat([explanation.queries, explanation.queries.iloc[:1]], ignore_index=True)
    with pytest.raises(ValueError, match=re.escape("query id 'q1' is in the queries twice")):
        explorer_html(Explanation(queries, *[getattr(explanation, f)
                                             for f in ("ranked", "missed", "changes", "metrics", "run_names", "top")]))


def test_an_unknown_change_fails_naming_it():
    changes = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d"], "change": ["swapped"], "rank_a": [1.0], "rank_b": [2.0]})
    with pytest.raises(ValueError, match=re.escape("the changes rows' change is 'swapped'; expected one of entered, left, moved")):
        explorer_html(_one(changes=changes))


def test_the_writer_writes_the_page_and_never_over_an_input(tmp_path):
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d 1 1.0 x\n", encoding="utf-8")
    with pytest.raises(OutputError, match="run.trec"):
        write_explorer(_one(), run, inputs=[run])
    assert run.read_text(encoding="utf-8") == "q1 Q0 d 1 1.0 x\n"
    write_explorer(_one(), tmp_path / "page.html", title="mine")
    assert (tmp_path / "page.html").read_text(encoding="utf-8") == explorer_html(_one(), title="mine")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["page.html", "run.trec"]  # no scratch file left
