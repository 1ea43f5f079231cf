"""IdLookup (the qrels' index of query ids) against a dict, with real hashes and with every key colliding."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.data import ids

TEXT = st.text(alphabet="ab é\x00", max_size=4)


def constant_hashes(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    return np.full(len(offsets) - 1, 7, dtype=np.uint64)


@pytest.mark.parametrize("colliding", [False, True])
@given(data=st.data(), integers=st.booleans())
def test_positions_equal_a_dict(data, integers, colliding):
    values = st.integers(-(2**63), 2**63 - 1) if integers else TEXT
    haystack = data.draw(st.lists(values, unique=True, max_size=30))
    needles = data.draw(st.lists(st.one_of(st.sampled_from(haystack), values) if haystack else values, max_size=30))
    kind = pa.int64() if integers else data.draw(st.sampled_from([pa.string(), pa.large_string()]))
    with pytest.MonkeyPatch.context() as patch:
        if colliding:
            patch.setattr(ids, "fnv1a_hashes", constant_hashes)
        lookup = ids.IdLookup.of(pa.array(haystack, kind))
        got = lookup.positions(pa.array(needles, kind))
    where = {value: position for position, value in enumerate(haystack)}
    assert got.tolist() == [where.get(needle, -1) for needle in needles]
