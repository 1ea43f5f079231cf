"""Qrels in the grouped layouts: group codes in byte order, one index per (query, group, subgroup), the pool.

The oracle (tests/reference/judgment_groups.py) groups the rows in plain Python as trec_eval's
readers sort them (strcmp of the group names); generated qrels have random group names, documents
judged in several groups and queries that lack some groups.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import Qrels
from retrieval_eval.errors import ConfigError, InputError
from tests.reference.judgment_groups import segments

# Names whose byte order differs from numeric or case-folded order, and a non-ASCII one.
GROUP_NAMES = ["0", "1", "10", "9", "B", "a", "é", "F:Ret,C:Not"]
DOCS = ["d1", "d2", "d10", "D", "x#1", "é"]


@st.composite
def grouped_rows(draw, subgroups: bool, levels: bool):
    queries = draw(st.lists(st.sampled_from(["1", "2", "10", "q"]), min_size=1, max_size=3, unique=True))
    label = st.floats(-2, 5, allow_nan=False) if levels else st.integers(-1, 4)
    rows = []
    for query in queries:
        for group in draw(st.lists(st.sampled_from(GROUP_NAMES), min_size=1, max_size=4, unique=True)):
            subs = draw(st.lists(st.sampled_from(["0", "s", "S1"]), min_size=1, max_size=2, unique=True)) if subgroups else ["0"]
            for subgroup in subs:
                docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=5))
                rows += [(query, group, subgroup, doc, draw(label)) for doc in docs]
    order = draw(st.permutations(range(len(rows))))
    return [rows[i] for i in order]


def _table(rows, subgroups: bool, levels: bool) -> pa.Table:
    columns = {
        "query_id": [r[0] for r in rows],
        "doc_id": [r[3] for r in rows],
        "relevance": pa.array([r[4] for r in rows], pa.float64() if levels else pa.int64()),
        "group": [r[1] for r in rows],
    }
    if subgroups:
        columns["subgroup"] = [r[2] for r in rows]
    return pa.table(columns)


def _check_against_oracle(qrels: Qrels, rows, policy: str, subgroups: bool) -> None:
    names = qrels.group_names.to_pylist()
    assert names == sorted({r[1] for r in rows}, key=str.encode)
    assert [names[c] for c in qrels.groups] == [r[1] for r in rows]
    if subgroups:
        sub_names = qrels.subgroup_names.to_pylist()
        assert sub_names == sorted({r[2] for r in rows}, key=str.encode)
        assert [sub_names[c] for c in qrels.subgroups] == [r[2] for r in rows]
    else:
        assert qrels.subgroups is None and qrels.subgroup_names is None
    expected = segments(rows, policy)
    seg = qrels.segments
    doc_ids = qrels.table["doc_id"].to_pylist()
    for code, query in enumerate(qrels.query_ids.to_pylist()):
        found = []
        for s in range(seg.query_segments[code], seg.query_segments[code + 1]):
            start = seg.offsets[s]
            slots = range(start, start + seg.n_judged[s])
            docs = {doc_ids[seg.judged_rows[j]]: seg.judged_labels[j] for j in slots}
            assert list(seg.judged_keys[list(slots)]) == sorted(seg.judged_keys[list(slots)])
            group = names[seg.group[s]]
            subgroup = qrels.subgroup_names[int(seg.subgroup[s])].as_py() if subgroups else "0"
            # The segment's rows, in input order.
            owned = [i for i, r in enumerate(rows) if r[0] == query and r[1] == group and (r[2] == subgroup or not subgroups)]
            assert list(seg.order[start : seg.offsets[s + 1]]) == owned
            found.append((group, subgroup, docs))
        assert found == expected[query]
        # The pool: each document of the query once, with the highest label of any group.
        pool = {}
        for r in rows:
            if r[0] == query:
                pool[r[3]] = max(pool.get(r[3], r[4]), r[4])
        start = qrels.queries.offsets[code]
        slots = range(start, start + qrels.n_judged[code])
        assert {doc_ids[qrels.judged_rows[j]]: qrels.judged_labels[j] for j in slots} == pool


@given(rows=grouped_rows(subgroups=False, levels=False), policy=st.sampled_from(["last", "first", "max"]))
def test_qrels_jg_segments_match_the_oracle(rows, policy):
    qrels = Qrels(_table(rows, False, False), duplicates=policy, judgments="qrels_jg")
    assert qrels.labels.dtype == np.int64
    _check_against_oracle(qrels, rows, policy, subgroups=False)


@given(rows=grouped_rows(subgroups=True, levels=True), policy=st.sampled_from(["last", "first", "max"]))
def test_prefs_segments_match_the_oracle(rows, policy):
    qrels = Qrels(_table(rows, True, True), duplicates=policy, judgments="prefs")
    assert qrels.labels.dtype == np.float64
    _check_against_oracle(qrels, rows, policy, subgroups=True)


def test_a_document_repeated_within_a_group_is_refused_under_raise_and_allowed_across_groups():
    rows = [("1", "a", "0", "d", 1), ("1", "b", "0", "d", 0), ("1", "b", "0", "e", 1)]
    Qrels(_table(rows, False, False), duplicates="raise", judgments="qrels_jg")  # d in two groups: fine
    rows.append(("1", "b", "0", "d", 2))
    with pytest.raises(InputError, match=r"query '1' doc 'd' is judged more than once in judgment group 'b'") as excinfo:
        Qrels(_table(rows, False, False), duplicates="raise", judgments="qrels_jg")
    assert excinfo.value.row == 4
    rows = [("1", "a", "s", "d", 1.0), ("1", "a", "t", "d", 0.5), ("1", "a", "t", "d", 0.5)]
    with pytest.raises(InputError, match=r"judgment group 'a', subgroup 't'"):
        Qrels(_table(rows, True, True), duplicates="raise", judgments="prefs")


def test_grouped_layouts_need_their_columns_and_a_known_layout():
    rows = [("1", "a", "s", "d", 1)]
    with pytest.raises(InputError, match=r"missing column\(s\) \['subgroup'\]"):
        Qrels(_table(rows, False, True), judgments="prefs")
    with pytest.raises(InputError, match="missing judgment group"):
        Qrels(_table(rows, False, False).set_column(3, "group", pa.array([None], pa.string())), judgments="qrels_jg")
    with pytest.raises(ConfigError, match="judgments must be one of"):
        Qrels(_table(rows, False, False), judgments="jg")


def test_read_keeps_a_qrels_in_its_own_layout(trec_eval_test):
    qrels = Qrels.read(trec_eval_test / "qrels.123", judgments="qrels_jg")
    assert Qrels.read(qrels) is qrels and qrels.judgments == "qrels_jg"
    assert qrels.group_names.to_pylist() == ["0", "1", "2"]
    assert list(qrels.segments.segments_per_query) == [3, 3, 3]
    plain = Qrels.read(trec_eval_test / "qrels.test")
    assert plain.judgments == "qrels" and plain.groups is None and plain.segments is None
