"""Merging judgments: every pair once, conflicts reported, each policy against a plain-Python oracle."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, DuplicateError, InputError
from retrieval_eval.pooling import MergeConflicts, merge_qrels

PAIRS = st.tuples(st.sampled_from(["1", "10", "2"]), st.sampled_from(["a", "b", "B", "c"]))
JUDGMENTS = st.dictionaries(PAIRS, st.integers(-1, 3), min_size=1, max_size=12)


def table(judgments: dict) -> pd.DataFrame:
    return pd.DataFrame([(q, d, label) for (q, d), label in judgments.items()], columns=["query_id", "doc_id", "relevance"])


def oracle(old: dict, new: dict, policy: str) -> tuple[list, list]:
    merged, conflicts = {}, []
    for pair in sorted(old.keys() | new.keys(), key=lambda p: (p[0].encode(), p[1].encode())):
        if pair in old and pair in new and old[pair] != new[pair]:
            conflicts.append((*pair, old[pair], new[pair]))
        choices = {"new": [new, old], "old": [old, new], "raise": [new, old]}
        if policy == "max" and pair in old and pair in new:
            merged[pair] = max(old[pair], new[pair])
        else:
            merged[pair] = next(side[pair] for side in choices.get(policy, [new, old]) if pair in side)
    return [(*pair, label) for pair, label in merged.items()], conflicts


@given(old=JUDGMENTS, new=JUDGMENTS, policy=st.sampled_from(["raise", "new", "old", "max"]))
def test_merge_is_the_oracles(old, new, policy):
    expected, expected_conflicts = oracle(old, new, policy)
    if policy == "raise" and expected_conflicts:
        with pytest.raises(MergeConflicts) as raised:
            merge_qrels(table(old), table(new), duplicates=policy)
        assert [tuple(row) for row in raised.value.conflicts.itertuples(index=False)] == expected_conflicts
        assert f"{len(expected_conflicts)} (query, document) pair(s) judged differently" in str(raised.value)
        return
    merged, conflicts = merge_qrels(table(old), table(new), duplicates=policy)
    assert [tuple(row) for row in merged.itertuples(index=False)] == expected
    assert [tuple(row) for row in conflicts.itertuples(index=False)] == expected_conflicts


def test_identical_duplicates_are_no_conflict():
    merged, conflicts = merge_qrels({"q": {"d": 2}}, {"q": {"d": 2, "e": 0}})
    assert merged.values.tolist() == [["q", "d", 2], ["q", "e", 0]] and conflicts.empty


def test_a_pair_repeated_within_one_file_names_its_rows():
    repeated = pd.DataFrame({"query_id": ["q", "q", "q"], "doc_id": ["d", "e", "d"], "relevance": [1, 0, 2]})
    with pytest.raises(DuplicateError, match="row 1.*first query 'q' doc 'd' \\(rows 1, 3\\)"):
        merge_qrels(repeated, {"q": {"x": 1}})


def test_unknown_policy_and_mixed_id_kinds_are_refused():
    with pytest.raises(ConfigError, match="duplicates must be one of"):
        merge_qrels({"q": {"d": 1}}, {"q": {"d": 1}}, duplicates="last")
    ints = pd.DataFrame({"query_id": [1], "doc_id": ["d"], "relevance": [1]})
    with pytest.raises(InputError, match="query_ids are of different kinds"):
        merge_qrels(ints, {"1": {"d": 1}})
