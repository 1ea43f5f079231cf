"""The numpy build of the judged-ranks join against the kernel run as Python, a document at a time.

Inputs are adversarial: few distinct scores (ties everywhere, 0.0 and -0.0), repeated documents
under every duplicate policy, ids sharing their first bytes or NUL-padded, a weak id key so
that distinct ids collide, repeated tie keys, queries without judgments and empty queries.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.kernels import _config
from retrieval_eval.kernels.core.bundles import JoinRule, JudgmentArrays, RunArrays
from retrieval_eval.kernels.core.duplicate_policy import KEEP_FIRST, KEEP_LAST, KEEP_MAX, RAISE
from retrieval_eval.kernels.core.judged_ranks import rank_judged_documents
from retrieval_eval.kernels.core.judged_ranks_numpy import byte_ranks, decimal_ranks
from retrieval_eval.kernels.core.judgments import index_judgments
from retrieval_eval.kernels.core.tiebreak import TIES_ASCENDING_KEY, TIES_DOCID_DESCENDING, TIES_INPUT_ORDER

# The numpy builds against the kernels run as Python: no compiled code either way, so once, in the leg
# without the JIT (CI runs both).
pytestmark = pytest.mark.skipif(not numba.config.DISABLE_JIT, reason="pure Python either way: run without the JIT")

STRING_IDS = [b"", b"a", b"ab", b"b", b"abcdefgh", b"abcdefghi", b"abcdefgh\x00", b"abcdefgh\xff", b"\x00", b"\xff\xfe", b"10", b"9"]
INTEGER_IDS = [0, 1, 9, 10, 100, -1, -10, 2**63 - 1, -(2**63)]
SCORES = [0.0, -0.0, 1.0, 2.5, np.inf, -np.inf]

# The kernel's own function with the kernels it calls as their python builds: what the python build
# would be without the numpy one.
interpreted = _config._copy(rank_judged_documents.function, "interpreted", range, lambda k: k.python)


def bundled(
    run_group_offsets, run_order, run_keys, run_offsets, run_data, scores, policy, tie_order, tie_keys,
    judged_group_of_query, group_offsets, judged_rows, judged_keys, judged_labels, n_judged, qrels_offsets, qrels_data,
    is_string,
) -> tuple:
    """The join kernels' bundled arguments from their arrays."""
    return (
        RunArrays(run_group_offsets, run_order, run_keys, run_offsets, run_data, scores),
        JudgmentArrays(group_offsets, judged_rows, judged_keys, judged_labels, n_judged, qrels_offsets, qrels_data),
        judged_group_of_query,
        JoinRule(policy, tie_order, tie_keys, is_string),
    )


def buffers(values: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.concatenate(([0], np.cumsum([len(v) for v in values]))).astype(np.int64)
    return offsets, np.frombuffer(b"".join(values), dtype=np.uint8).copy()


def id_columns(values: list, is_string: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Keys, offsets and bytes of an id column; string keys are weak on purpose (distinct ids collide)."""
    if not is_string:
        return np.array(values, dtype=np.int64).view(np.uint64), np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.uint8)
    offsets, data = buffers(values)
    return np.array([len(v) % 3 for v in values], dtype=np.uint64), offsets, data


@st.composite
def joins(draw):
    is_string = draw(st.booleans())
    pool = STRING_IDS if is_string else INTEGER_IDS
    n_queries = draw(st.integers(0, 4) | st.integers(1, 4))  # no queries at all now and then
    # Run rows in any order of queries: the grouping is by a stable sort, as the library's.
    run = draw(st.lists(st.tuples(st.integers(0, max(n_queries - 1, 0)), st.sampled_from(pool), st.sampled_from(SCORES)),
                        min_size=min(n_queries, 1), max_size=0 if n_queries == 0 else 30))
    run_query = np.array([q for q, _, _ in run], dtype=np.int64)
    run_order = np.argsort(run_query, kind="stable").astype(np.int64)
    run_group_offsets = np.concatenate(([0], np.cumsum(np.bincount(run_query, minlength=n_queries)))).astype(np.int64)
    run_keys, run_offsets, run_data = id_columns([d for _, d, _ in run], is_string)
    scores = np.array([s for _, _, s in run], dtype=np.float64)

    n_groups = draw(st.integers(0, 3) | st.integers(1, 3))
    qrels = draw(st.lists(st.tuples(st.integers(0, max(n_groups - 1, 0)), st.sampled_from(pool), st.integers(-1, 3)),
                          min_size=min(n_groups, 1), max_size=0 if n_groups == 0 else 20))
    qrels_query = np.array([g for g, _, _ in qrels], dtype=np.int64)
    qrels_keys, qrels_offsets, qrels_data = id_columns([d for _, d, _ in qrels], is_string)
    qrels_order = np.argsort(qrels_query, kind="stable").astype(np.int64)
    group_offsets = np.concatenate(([0], np.cumsum(np.bincount(qrels_query, minlength=n_groups)))).astype(np.int64)
    judged_rows, judged_keys, judged_labels, _, n_judged, _ = index_judgments.python(
        group_offsets, qrels_order, qrels_keys, qrels_offsets, qrels_data, is_string,
        np.array([label for _, _, label in qrels], dtype=np.int64), KEEP_LAST,
    )
    # Mostly judged queries, some without judgments (-1).
    groups = st.sampled_from([*range(n_groups)] * 3 + [-1])
    judged_group_of_query = np.array(draw(st.lists(groups, min_size=n_queries, max_size=n_queries)), dtype=np.int64)

    tie_order = draw(st.sampled_from([TIES_INPUT_ORDER, TIES_DOCID_DESCENDING, TIES_ASCENDING_KEY]))
    tie_keys = np.array(draw(st.lists(st.integers(0, 3), min_size=len(run), max_size=len(run))), dtype=np.int64)
    if tie_order != TIES_ASCENDING_KEY:
        tie_keys = np.empty(0, dtype=np.int64)
    policy = draw(st.sampled_from([KEEP_LAST, KEEP_FIRST, KEEP_MAX, RAISE]))
    return bundled(
        run_group_offsets, run_order, run_keys, run_offsets, run_data, scores, policy, tie_order, tie_keys,
        judged_group_of_query, group_offsets, judged_rows, judged_keys, judged_labels, n_judged,
        qrels_offsets, qrels_data, is_string,
    )


def bits(arrays: tuple) -> list[tuple[str, bytes]]:
    return [(a.dtype.str, a.tobytes()) for a in arrays]


@settings(max_examples=200, deadline=None)
@given(joins())
def test_the_numpy_build_gives_the_interpreted_kernels_bits(arguments):
    with np.errstate(over="ignore"):
        expected = interpreted(*arguments)
    assert bits(rank_judged_documents.python(*arguments)) == bits(expected)


@given(st.lists(st.sampled_from(STRING_IDS) | st.binary(max_size=20), max_size=30))
def test_byte_ranks_order_ids_as_bytes(values):
    offsets, data = buffers(values)
    ranks = byte_ranks(offsets, data, np.arange(len(values)))
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            assert (ranks[i] < ranks[j]) == (a < b) and (ranks[i] == ranks[j]) == (a == b)


@given(st.lists(st.sampled_from(INTEGER_IDS) | st.integers(-(2**63), 2**63 - 1), max_size=30))
def test_decimal_ranks_order_integers_as_their_text(values):
    ranks = decimal_ranks(np.array(values, dtype=np.int64))
    text = [str(v).encode() for v in values]
    for i in range(len(values)):
        for j in range(len(values)):
            assert (ranks[i] < ranks[j]) == (text[i] < text[j])


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([TIES_INPUT_ORDER, TIES_DOCID_DESCENDING, TIES_ASCENDING_KEY]), st.sampled_from([KEEP_LAST, KEEP_MAX, RAISE]),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_the_numpy_build_gives_the_interpreted_kernels_bits_on_long_queries(tie_order, policy, is_string, seed):
    # Thousands of documents a query, nearly all tied: orders among equal sort keys show only on long arrays.
    rng = np.random.default_rng(seed)
    n_rows, n_queries = 3000, 3
    doc = rng.integers(0, 2000, n_rows)
    values = [b"d%d" % d for d in doc] if is_string else list(doc * 7 - 5000)
    run_keys, run_offsets, run_data = id_columns(values, is_string)
    run_query = rng.integers(0, n_queries, n_rows)
    run_order = np.argsort(run_query, kind="stable").astype(np.int64)
    run_group_offsets = np.concatenate(([0], np.cumsum(np.bincount(run_query, minlength=n_queries)))).astype(np.int64)
    scores = rng.integers(0, 2, n_rows).astype(np.float64)
    judged = values[:500]
    qrels_keys, qrels_offsets, qrels_data = id_columns(judged, is_string)
    judged_rows, judged_keys, judged_labels, _, n_judged, _ = index_judgments.python(
        np.array([0, 500]), np.arange(500), qrels_keys, qrels_offsets, qrels_data, is_string, rng.integers(0, 3, 500), KEEP_LAST,
    )
    tie_keys = rng.integers(0, 5, n_rows) if tie_order == TIES_ASCENDING_KEY else np.empty(0, dtype=np.int64)
    arguments = bundled(
        run_group_offsets, run_order, run_keys, run_offsets, run_data, scores, policy, tie_order, tie_keys,
        np.array([0, -1, 0]), np.array([0, 500]), judged_rows, judged_keys, judged_labels, n_judged,
        qrels_offsets, qrels_data, is_string,
    )
    with np.errstate(over="ignore"):
        expected = interpreted(*arguments)
    assert bits(rank_judged_documents.python(*arguments)) == bits(expected)
