"""stable_order against Python's sort (stable), in every build, on short and long arrays full of ties."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from retrieval_eval.kernels.core.sorting import stable_order


@pytest.mark.parametrize("dtype", [np.uint64, np.int64, np.float64])
@pytest.mark.parametrize("n", [0, 1, 2, 31, 33, 128, 129, 200, 1000, 1025])
def test_stable_order_matches_pythons_stable_sort(n, dtype):
    values = np.random.default_rng(n).integers(0, max(2, n // 8), size=n).astype(dtype)  # many ties
    # The numpy python build, the kernel's own code run as Python, and its compiled build.
    builds = [stable_order.python, stable_order.function] + ([] if numba.config.DISABLE_JIT else [stable_order.serial])
    plain = values.tolist()  # Python ints and floats: negating them cannot wrap
    for descending in (False, True):
        expected = sorted(range(n), key=lambda i: -plain[i] if descending else plain[i])
        for build in builds:
            order = build(values, descending)
            assert order.dtype == np.int64 and order.tolist() == expected, (build, descending)
