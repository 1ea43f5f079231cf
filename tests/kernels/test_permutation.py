"""The Tukey permutations' ranges: the same bits from every build, thread count and batch split."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from retrieval_eval.kernels.core.permutation import permuted_ranges

jit_only = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="the compiled builds are Python too without the JIT")

by_query_matrices = st.tuples(st.integers(1, 12), st.integers(1, 7)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.floats(-1e3, 1e3, allow_nan=False)).map(lambda a: np.sort(a + 0.0, axis=1))
)
keys = st.integers(0, 2**64 - 1).map(np.uint64)


@jit_only
@given(by_query_matrices, keys, st.integers(0, 10**6), st.integers(1, 30))
def test_every_build_gives_the_same_bits(by_query, key, first, count):
    python = permuted_ranges.python(by_query, key, first, count)
    assert permuted_ranges.serial(by_query, key, first, count).tobytes() == python.tobytes()
    assert permuted_ranges.parallel(by_query, key, first, count).tobytes() == python.tobytes()


@given(by_query_matrices, keys, st.integers(1, 30), st.data())
def test_a_batch_split_in_two_gives_the_same_bits(by_query, key, count, data):
    split = data.draw(st.integers(0, count))
    whole = permuted_ranges(by_query, key, 5, count)
    parts = np.concatenate([permuted_ranges(by_query, key, 5, split), permuted_ranges(by_query, key, 5 + split, count - split)])
    assert parts.tobytes() == whole.tobytes()


@jit_only
def test_the_parallel_build_gives_the_same_bits_on_any_number_of_threads():
    by_query = np.sort(np.random.default_rng(0).random((200, 12)), axis=1)
    expected = permuted_ranges.python(by_query, np.uint64(11), 0, 64).tobytes()
    before = numba.get_num_threads()
    try:
        for threads in range(1, numba.config.NUMBA_NUM_THREADS + 1):
            numba.set_num_threads(threads)
            assert permuted_ranges.parallel(by_query, np.uint64(11), 0, 64).tobytes() == expected, threads
    finally:
        numba.set_num_threads(before)


def test_one_configuration_or_equal_scores_have_range_0():
    assert (permuted_ranges(np.arange(6.0)[:, None], np.uint64(1), 0, 5) == 0.0).all()
    assert (permuted_ranges(np.full((4, 3), 0.5), np.uint64(1), 0, 5) == 0.0).all()
