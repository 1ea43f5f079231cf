"""The explorer page's rounded numbers: each %.7g of its double, NaN as null, infinities as 1e999."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.report.explorer_page import _rounded


def _expected(value: float) -> float | None:
    if np.isnan(value):
        return None
    return float("%.7g" % value)


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=50))
def test_rounded_numbers_are_each_values_seven_significant_digits(values):
    numbers = np.array(values, dtype=np.float64)
    assert json.loads(_rounded(numbers)) == [_expected(value) for value in values]
