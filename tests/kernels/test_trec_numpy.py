"""The numpy build of trec_measures gives the interpreted walk's arrays bit for bit.

Each evaluated query is drawn as its judgments (labels, negative ones in the pool but unjudged)
and a ranking in which some judged documents sit at some ranks: none judged, all relevant,
rankings deeper than max_docs and than the cutoffs, queries the run lacks (stand-ins) or the
qrels lack, runs whose arrays are laid out in another order and with gaps between queries.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.kernels import _config
from retrieval_eval.kernels.core.bundles import FoundArrays, IdealArrays, QueryPairs
from retrieval_eval.kernels.trec.trec import log2_table, trec_measures
from retrieval_eval.kernels.trec.trec_arith import lround
from retrieval_eval.kernels.trec.trec_numpy import _lround, numpy_trec_measures
from tests.kernels.query_layouts import laid_out

# The numpy builds against the kernels run as Python: no compiled code either way, so once, in the leg
# without the JIT (CI runs both).
pytestmark = pytest.mark.skipif(not numba.config.DISABLE_JIT, reason="pure Python either way: run without the JIT")

INT64_MAX = int(np.iinfo(np.int64).max)
# The walk as the interpreter runs it, whatever build trec_measures registers as python.
walk = _config._copy(trec_measures.function, trec_measures.function.__qualname__, range, lambda kernel: kernel.python)


@st.composite
def evaluated_query(draw: st.DrawFn) -> dict:
    """One query: its judged labels, its ranking's length and the ranks of the judged documents it retrieved."""
    kind = draw(st.sampled_from(["both", "both", "both", "run only", "qrels only"]))
    label = st.one_of(st.integers(-2, 4), st.sampled_from([60, 1100]))
    # A deep query retrieves dozens of its judged documents: sums of more terms than pairwise summation adds in order.
    deep = draw(st.booleans())
    judged = st.lists(label, min_size=25, max_size=60) if deep else st.lists(label, max_size=12)
    labels = [] if kind == "run only" else draw(judged)
    if draw(st.booleans()) and labels:
        labels = [max(label, 1) for label in labels]  # all relevant
    n_ranked = draw(st.integers(100, 400) if deep else st.integers(0, 15))
    retrieved = [j for j in range(len(labels)) if draw(st.booleans())][:n_ranked]
    rank = st.integers(0, max(n_ranked - 1, 0))
    ranks = sorted(draw(st.lists(rank, min_size=len(retrieved), max_size=len(retrieved), unique=True)))
    order = draw(st.permutations(retrieved))
    return {
        "kind": kind, "labels": labels, "n_ranked": n_ranked,
        "found": [(rank, labels[j]) for rank, j in zip(ranks, order)],
    }


@st.composite
def workloads(draw: st.DrawFn) -> tuple:
    """trec_measures' arguments for a few evaluated queries."""
    queries = draw(st.lists(evaluated_query(), max_size=8))
    by_run, by_qrels, run_query, qrels_query, gaps = draw(laid_out(queries))
    found_offsets, found_ranks, found_labels = [], [], []
    for q, gap in zip(by_run, gaps):
        found_offsets.append(len(found_ranks))
        found_ranks += [rank for rank, _ in q["found"]] + [0] * gap
        found_labels += [label for _, label in q["found"]] + [0] * gap
    ideal_offsets, ideal_labels = [], []
    for q in by_qrels:
        ideal_offsets.append(len(ideal_labels))
        ideal_labels += sorted(q["labels"], reverse=True)
    cutoffs = sorted(draw(st.sets(st.one_of(st.integers(1, 20), st.integers(1, 1000)), max_size=6)))
    level = st.one_of(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]), st.floats(-0.5, 1.5))
    levels = draw(st.lists(level, max_size=5))
    longest = max([q["n_ranked"] for q in queries] + [len(q["labels"]) for q in queries] + [1])
    ints = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    return (
        QueryPairs(ints(run_query), ints(qrels_query)),
        FoundArrays(ints(found_offsets), ints([len(q["found"]) for q in by_run]), ints(found_ranks), ints(found_labels),
                    ints([q["n_ranked"] for q in by_run])),
        IdealArrays(ints(ideal_offsets), ints([len(q["labels"]) for q in by_qrels]), ints(ideal_labels)),
        draw(st.integers(0, 3)),
        draw(st.sampled_from([INT64_MAX, INT64_MAX, 0, 1, 5, 120])), draw(st.sampled_from([0, 1])),
        ints(cutoffs), np.array(levels, dtype=np.float64), log2_table(longest + 2),
    )


def assert_same_bits(expected: tuple, actual: tuple) -> None:
    for want, got in zip(expected, actual, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got.view(np.int64), want.view(np.int64)), (want, got)


@settings(max_examples=300, deadline=None)
@given(workloads())
def test_the_numpy_build_is_the_walk_to_the_bit(arguments):
    # Labels of 1024 and more make 2^label infinite, and ndcg_burges inf / inf, in both builds.
    with np.errstate(over="ignore", invalid="ignore"):
        assert_same_bits(walk(*arguments), numpy_trec_measures(*arguments))


def test_no_queries_and_no_cutoffs():
    empty = np.zeros(0, dtype=np.int64)
    arguments = (QueryPairs(empty, empty), FoundArrays(empty, empty, empty, empty, empty), IdealArrays(empty, empty, empty),
                 1, INT64_MAX, 1, empty, np.zeros(0), log2_table(2))
    assert_same_bits(walk(*arguments), numpy_trec_measures(*arguments))


def test_lround_of_arrays_is_c_lround():
    values = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994, 4.999999999999999, 2.0**52 + 1, 2.0**63,
              -(2.0**63), 2.0**63 - 1024, np.inf, -np.inf, np.nan, 1e300]
    assert _lround(np.array(values)).tolist() == [lround.python(v) for v in values]
