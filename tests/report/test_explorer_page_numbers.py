"""The explorer page's rounded numbers: each %.7g of its double, NaN as null, infinities as 1e999."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.explain.page import _rounded


def _expected(value: float) -> float | None:
    if np.isnan(value):
        return None
    return float("%.7g" % value)


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=50))
def test_rounded_numbers_are_each_values_seven_significant_digits(values):
    numbers = np.array(values, dtype=np.float64)
    assert json.loads(_rounded(numbers)) == [_expected(value) for value in values]


@given(st.lists(st.lists(st.tuples(st.sampled_from(["q1", "q:2", "1", "q"]), st.sampled_from(["d", ":d", "1:d", "d2"])),
                         max_size=8), max_size=3))
def test_pair_codes_number_pairs_in_order_of_first_appearance_across_pieces(pieces):
    from retrieval_eval.explain.tables import _pair_codes

    codes, n_pairs = _pair_codes([np.array([q for q, _ in piece], dtype=object) for piece in pieces],
                                 [np.array([d for _, d in piece], dtype=object) for piece in pieces])  # fmt: skip
    pairs = [pair for piece in pieces for pair in piece]
    first = {pair: index for index, pair in reversed(list(enumerate(dict.fromkeys(pairs))))}
    assert codes.tolist() == [first[pair] for pair in pairs] and n_pairs == len(first)
