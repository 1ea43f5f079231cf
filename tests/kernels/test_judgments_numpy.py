"""The numpy build of index_judgments against the kernel run as Python, a judgment at a time.

Judgments repeat under every duplicate policy, ids share their first bytes or are NUL-padded,
string keys are weak so that distinct ids collide (their order by key then ties), labels
repeat and go negative, and queries may have no judgments at all.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.kernels import _config
from retrieval_eval.kernels.core.duplicate_policy import KEEP_FIRST, KEEP_LAST, KEEP_MAX, RAISE
from retrieval_eval.kernels.core.judgments import index_judgments
from retrieval_eval.kernels.core.judgments_numpy import numpy_index_judgments
from tests.kernels.test_judged_ranks_numpy import INTEGER_IDS, STRING_IDS, id_columns

# The numpy builds against the kernels run as Python: no compiled code either way, so once, in the leg
# without the JIT (CI runs both).
pytestmark = pytest.mark.skipif(not numba.config.DISABLE_JIT, reason="pure Python either way: run without the JIT")

interpreted = _config._copy(index_judgments.function, "interpreted", range, lambda k: k.python)


@st.composite
def qrels_tables(draw: st.DrawFn) -> tuple:
    is_string = draw(st.booleans())
    pool = STRING_IDS if is_string else INTEGER_IDS
    n_groups = draw(st.integers(0, 4))
    rows = draw(st.lists(st.tuples(st.integers(0, max(n_groups - 1, 0)), st.sampled_from(pool), st.integers(-2, 4)),
                         max_size=0 if n_groups == 0 else 40))
    query = np.array([g for g, _, _ in rows], dtype=np.int64)
    keys, offsets, data = id_columns([d for _, d, _ in rows], is_string)
    order = np.argsort(query, kind="stable").astype(np.int64)
    group_offsets = np.concatenate(([0], np.cumsum(np.bincount(query, minlength=n_groups)))).astype(np.int64)
    labels = np.array([label for _, _, label in rows], dtype=np.int64)
    policy = draw(st.sampled_from([KEEP_LAST, KEEP_FIRST, KEEP_MAX, RAISE]))
    return group_offsets, order, keys, offsets, data, is_string, labels, policy


@settings(max_examples=300, deadline=None)
@given(qrels_tables())
def test_the_numpy_build_is_the_kernel(arguments):
    for want, got in zip(interpreted(*arguments), numpy_index_judgments(*arguments), strict=True):
        assert got.dtype == want.dtype and np.array_equal(got, want), (want, got)


def test_it_is_the_registered_python_build():
    assert index_judgments.python is numpy_index_judgments
