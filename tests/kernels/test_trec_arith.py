"""The C arithmetic of kernels/trec/trec_arith.py and the gain-map sort of kernels/trec/trec_gains.py, against the oracle's.

The oracle (tests/reference/trec_ranked.py) writes each rule from the C standard and x86-64 on its own;
fixed cases pin the values trec_eval's binary computes (0/0 prints -nan, lround rounds halves away).
"""

from __future__ import annotations

import math
import struct

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.kernels.trec import trec_arith
from retrieval_eval.kernels.trec.trec_gains import _gain_map, _merge_sort
from tests.reference import trec_ranked

DOUBLES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 0.5, -0.5, 2.5, -2.5, 0.49999999999999994, 2.0**31, -(2.0**31) - 0.5, 2.0**63, -(2.0**63)]),
)


def bits(value: float) -> bytes:
    return struct.pack(">d", value)


@given(a=DOUBLES, b=DOUBLES)
def test_division_is_ieee_as_on_x86(a, b):
    assert bits(trec_arith.divide(a, b)) == bits(trec_ranked.c_div(a, b))


@given(x=DOUBLES)
def test_log2_and_casts_are_cs(x):
    assert bits(trec_arith.c_log2(x)) == bits(trec_ranked.c_log2(x))
    assert trec_arith.lround(x) == trec_ranked.c_lround(x)
    assert trec_arith.long_cast(x) == trec_ranked.c_long(x)
    assert trec_arith.int_cast(x) == trec_ranked.c_int(x)


def test_the_values_trec_eval_computes():
    assert bits(trec_arith.divide(0.0, 0.0)) == bits(-math.nan) and math.copysign(1, trec_arith.divide(0.0, 0.0)) < 0
    assert trec_arith.divide(1.0, -0.0) == -math.inf and trec_arith.divide(-2.0, 0.0) == -math.inf
    assert (trec_arith.lround(2.5), trec_arith.lround(-2.5), trec_arith.lround(0.49999999999999994)) == (3, -3, 0)
    assert trec_arith.long_cast(1e30) == trec_arith.lround(math.nan) == -(2**63)
    assert trec_arith.int_cast(2147483648.0) == trec_arith.int_cast(math.inf) == -(2**31)
    assert trec_arith.int_cast(-2147483648.9) == -(2**31) and trec_arith.int_cast(-0.9) == 0
    assert trec_arith.c_log2(0.0) == -math.inf and math.isnan(trec_arith.c_log2(-1.0))


GAINS = st.sampled_from([0.0, 0.3, 0.5, 0.6, 0.9, 1.0, 1.2, 2.5, 3.0, -1.0, -0.4, 4.5, 1e10, -3e9])


@given(gains=st.lists(GAINS, max_size=40))
def test_the_gain_sort_is_glibcs_merge_sort(gains):
    order = np.arange(len(gains))
    _merge_sort(np.array(gains, dtype=np.float64), order)
    expected = trec_ranked.glibc_msort(list(range(len(gains))), lambda a, b: trec_ranked.c_int(gains[a] - gains[b]))
    assert order.tolist() == expected


@given(
    pairs=st.lists(st.tuples(st.integers(-2, 6), GAINS), max_size=5),
    labels=st.lists(st.integers(-2, 6), min_size=1, max_size=12),
)
def test_the_gain_map_is_setup_gains(pairs, labels):
    levels, gains, counts = _gain_map(
        np.array([p[0] for p in pairs], dtype=np.int64), np.array([p[1] for p in pairs], dtype=np.float64),
        np.array(sorted(labels, reverse=True), dtype=np.int64),
    )
    expected = trec_ranked.gain_table(pairs, labels)
    assert list(zip(levels.tolist(), gains.tolist(), counts.tolist())) == [tuple(entry) for entry in expected]
