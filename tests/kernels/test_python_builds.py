"""The numpy python builds of the hashing and grouping kernels against plain-Python definitions.

These builds are what a small evaluation runs (no numba); the compiled builds are checked
against them bit for bit in test_builds.py.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.kernels.core.grouping import segment_starts
from retrieval_eval.kernels.core.hashing import fnv1a_hashes

# Short ids over a tiny alphabet: equal neighbours, prefixes ("a", "ab") and empty ids are common.
ids = st.lists(st.binary(max_size=4).map(lambda b: bytes(97 + (c % 2) for c in b)), max_size=40)


def buffers(values: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.concatenate(([0], np.cumsum([len(v) for v in values]))).astype(np.int64)
    return offsets, np.frombuffer(b"".join(values), dtype=np.uint8).copy()


def fnv1a(value: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in value:
        h = ((h ^ byte) * 0x100000001B3) % 2**64
    return h


@given(ids)
def test_the_python_fnv1a_build_is_fnv1a(values):
    offsets, data = buffers(values)
    assert fnv1a_hashes.python(offsets, data).tolist() == [fnv1a(v) for v in values]


@given(ids)
def test_the_python_segment_starts_build_finds_every_change_of_id(values):
    offsets, data = buffers(values)
    expected = [i for i in range(len(values)) if i == 0 or values[i] != values[i - 1]]
    starts = segment_starts.python(np.zeros(len(values), dtype=np.uint64), offsets, data, True)
    assert starts.dtype == np.int64 and starts.tolist() == expected
    keys = np.array([hash(v) % 3 for v in values], dtype=np.uint64)
    integer = segment_starts.python(keys, np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.uint8), False)
    assert integer.tolist() == [i for i in range(len(keys)) if i == 0 or keys[i] != keys[i - 1]]
