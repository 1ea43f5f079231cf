"""The numpy build of the ranking join against the kernel run as Python, a query and a document at a time.

The adversarial inputs are the judged-ranks join's (tests/kernels/test_judged_ranks_numpy.py): few
distinct scores (ties everywhere, 0.0 and -0.0, infinities), repeated documents under every
duplicate policy, ids sharing their first bytes, NUL and 0xff bytes, a weak id key so that
distinct ids collide, repeated tie keys, queries without judgments, empty and absent queries.
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
from retrieval_eval.kernels.core.ranking import rank_and_label
from retrieval_eval.kernels.core.tiebreak import TIES_ASCENDING_KEY, TIES_DOCID_DESCENDING, TIES_INPUT_ORDER
from tests.kernels.test_judged_ranks_numpy import bits, bundled, id_columns, joins

# The numpy builds against the kernels run as Python: no compiled code either way, so once, in the leg
# without the JIT (CI runs both).
pytestmark = pytest.mark.skipif(not numba.config.DISABLE_JIT, reason="pure Python either way: run without the JIT")

# The kernel's own function with the kernels it calls as their python builds: what the python build
# would be without the numpy one.
interpreted = _config._copy(rank_and_label.function, "interpreted", range, lambda k: k.python)

POLICIES = [KEEP_LAST, KEEP_FIRST, KEEP_MAX, RAISE]
TIE_ORDERS = [TIES_INPUT_ORDER, TIES_DOCID_DESCENDING, TIES_ASCENDING_KEY]


def agree(arguments: tuple) -> None:
    with np.errstate(over="ignore"):
        expected = interpreted(*arguments)
        got = rank_and_label.python(*arguments)
    assert bits(got) == bits(expected)


@settings(max_examples=200, deadline=None)
@given(joins())
def test_the_numpy_build_gives_the_interpreted_kernels_bits(arguments):
    agree(arguments)


@settings(max_examples=100, deadline=None)
@given(joins(), st.lists(st.sampled_from([0, 1, 2**53, 2**53 + 1, 2**62, -(2**53) - 1, 2**63 - 1, -(2**63)]), max_size=30))
def test_large_tie_keys_tie_as_the_kernel_compares_them(arguments, drawn):
    # The kernel compares the keys' negations as float64: keys that round to one float64 tie.
    run, judgments, group_of_query, rule = arguments
    tie_keys = np.resize(np.array(drawn or [0], dtype=np.int64), run.scores.shape[0])
    agree((run, judgments, group_of_query, rule._replace(tie_order=TIES_ASCENDING_KEY, tie_keys=tie_keys)))


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(TIE_ORDERS), st.sampled_from(POLICIES), st.booleans(), st.integers(0, 2**32 - 1))
def test_the_numpy_build_gives_the_interpreted_kernels_bits_on_long_queries(tie_order, policy, is_string, seed):
    # Thousands of documents a query, nearly all tied: orders among equal sort keys show only on long arrays
    # (the kernel's sort of ties by key merges runs past 128 elements).
    rng = np.random.default_rng(seed)
    n_rows, n_queries = 3000, 4
    doc = rng.integers(0, 2000, n_rows)
    values = [b"d%d" % d for d in doc] if is_string else list(doc * 7 - 5000)
    run_keys, run_offsets, run_data = id_columns(values, is_string)
    run_query = rng.integers(0, n_queries - 1, n_rows)  # the last query retrieves nothing
    run_order = np.argsort(run_query, kind="stable").astype(np.int64)
    run_group_offsets = np.concatenate(([0], np.cumsum(np.bincount(run_query, minlength=n_queries)))).astype(np.int64)
    scores = rng.choice([0.0, -0.0, 1.0, np.inf], n_rows)
    judged = values[:500]
    qrels_keys, qrels_offsets, qrels_data = id_columns(judged, is_string)
    judged_rows, judged_keys, judged_labels, _, n_judged, _ = index_judgments.python(
        np.array([0, 500]), np.arange(500), qrels_keys, qrels_offsets, qrels_data, is_string, rng.integers(0, 3, 500), KEEP_LAST,
    )
    tie_keys = rng.integers(0, 5, n_rows) if tie_order == TIES_ASCENDING_KEY else np.empty(0, dtype=np.int64)
    agree(bundled(
        run_group_offsets, run_order, run_keys, run_offsets, run_data, scores, policy, tie_order, tie_keys,
        np.array([0, -1, 0, 0]), np.array([0, 500]), judged_rows, judged_keys, judged_labels, n_judged,
        qrels_offsets, qrels_data, is_string,
    ))
