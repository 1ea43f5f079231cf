"""The formatting primitives every renderer shares: decimals, p-values, a setting's value, what counts as missing."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.views import decimal, is_missing, is_number, p_value_text, value_text


@pytest.mark.parametrize("value", [None, math.nan, np.float32("nan"), pd.NA, pd.NaT])
def test_a_missing_value_is_none_nan_nat_or_pandas_na(value):
    assert is_missing(value) and decimal(value) == "NaN" and decimal(value, missing="") == ""
    assert p_value_text(value) == "" and value_text(value) == ""


@pytest.mark.parametrize("value", ["", "nan", 0, 0.0, False, math.inf])
def test_text_zero_false_and_infinity_are_values(value):
    assert not is_missing(value)


@given(st.floats(allow_nan=False), st.integers(0, 8))
def test_a_decimal_is_python_s_fixed_point_text_and_signed_puts_a_plus_before_a_positive_one(value, digits):
    assert decimal(value, digits) == f"{value:.{digits}f}"
    assert decimal(value, digits, signed=True) == f"{value:+.{digits}f}"


def test_a_p_value_below_the_floor_reads_as_below_it():
    assert [p_value_text(p) for p in (0.00009, 0.0001, 0.5, 1.0)] == ["<0.0001", "0.0001", "0.5000", "1.0000"]


def test_a_value_is_an_integer_whole_a_number_to_six_significant_digits_a_flag_as_asked():
    assert [value_text(v) for v in (5, np.int64(12345678), 0.3, 105.8, 1 / 3, "bm25", True)] == [
        "5", "12345678", "0.3", "105.8", "0.333333", "bm25", "True"]  # fmt: skip
    assert [value_text(flag, booleans=("yes", "")) for flag in (True, False, np.bool_(True))] == ["yes", "", "yes"]


def test_a_boolean_is_no_number():
    assert [is_number(v) for v in (1, 1.5, np.float64(2), np.int8(3), True, np.bool_(False), "1", None)] == [
        True, True, True, True, False, False, False, False]  # fmt: skip
