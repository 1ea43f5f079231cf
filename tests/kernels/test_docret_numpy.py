"""The numpy build of document_retrieval_metrics gives the interpreted walk's matrix bit for bit.

Each evaluated query is drawn as its judged labels (negative ones too, large ones whose
exponential gain is near the float64 limit) and a ranking of some of its judged documents and
some unjudged ones, with repeated rows counted apart; queries the run or the qrels lack, rankings
longer than k and k beyond every ranking, runs laid out in another order with gaps.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.kernels import _config
from retrieval_eval.kernels.core.bundles import IdealArrays, QueryPairs, RankedArrays
from retrieval_eval.kernels.core.docret import discount_tables, document_retrieval_metrics
from retrieval_eval.kernels.core.docret_numpy import numpy_document_retrieval_metrics
from tests.kernels.query_layouts import laid_out

# The numpy builds against the kernels run as Python: no compiled code either way, so once, in the leg
# without the JIT (CI runs both).
pytestmark = pytest.mark.skipif(not numba.config.DISABLE_JIT, reason="pure Python either way: run without the JIT")

# The walk as the interpreter runs it, whatever build document_retrieval_metrics registers as python.
walk = _config._copy(
    document_retrieval_metrics.function, document_retrieval_metrics.function.__qualname__, range,
    lambda kernel: kernel.python,
)


@st.composite
def evaluated_query(draw: st.DrawFn) -> dict:
    """One query: its judged labels and its ranking, each ranked document's label (0 when unjudged) and judged flag."""
    kind = draw(st.sampled_from(["both", "both", "both", "run only", "qrels only"]))
    label = st.one_of(st.integers(-2, 4), st.sampled_from([0, 0, 60, 1022]))
    deep = draw(st.booleans())  # dozens of terms: where pairwise summation would differ from the walk's order
    labels = [] if kind == "run only" else draw(st.lists(label, min_size=20, max_size=60) if deep else st.lists(label, max_size=10))
    ranked = []
    if kind != "qrels only":
        judged = st.tuples(st.integers(0, max(len(labels) - 1, 0)), st.just(True)) if labels else st.nothing()
        entry = st.one_of(judged, st.tuples(st.just(0), st.just(False))) if labels else st.tuples(st.just(0), st.just(False))
        ranked = [(labels[j], True) if is_judged else (0, False)
                  for j, is_judged in draw(st.lists(entry, min_size=20 if deep else 0, max_size=80 if deep else 12))]
    return {
        "kind": kind, "labels": labels, "ranked": ranked,
        "repeats": draw(st.integers(0, 3)) if ranked else 0, "judged_repeats": draw(st.integers(0, 2)),
    }


@st.composite
def workloads(draw: st.DrawFn) -> tuple:
    """document_retrieval_metrics' arguments for a few evaluated queries."""
    queries = draw(st.lists(evaluated_query(), max_size=8))
    by_run, by_qrels, run_query, qrels_query, gaps = draw(laid_out(queries))
    offsets, ranked_labels, ranked_judged = [], [], []
    for q, gap in zip(by_run, gaps):
        offsets.append(len(ranked_labels))
        ranked_labels += [label for label, _ in q["ranked"]] + [7] * gap
        ranked_judged += [flag for _, flag in q["ranked"]] + [True] * gap
    ideal_offsets, ideal_labels = [], []
    for q in by_qrels:
        ideal_offsets.append(len(ideal_labels))
        ideal_labels += sorted(q["labels"], reverse=True)
    k = draw(st.one_of(st.integers(1, 12), st.sampled_from([100, 10**8])))
    longest = max([len(q["ranked"]) for q in queries] + [len(q["labels"]) for q in queries] + [0])
    ints = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    return (
        QueryPairs(ints(run_query), ints(qrels_query)),
        RankedArrays(ints(offsets), ints([len(q["ranked"]) for q in by_run]), ints(ranked_labels),
                     np.array(ranked_judged, dtype=np.bool_), ints([len(q["ranked"]) + q["repeats"] for q in by_run])),
        IdealArrays(ints(ideal_offsets), ints([len(q["labels"]) for q in by_qrels]), ints(ideal_labels)),
        ints([len(q["labels"]) + q["judged_repeats"] for q in by_qrels]), k, draw(st.integers(-3, 1)), draw(st.booleans()),
        *discount_tables(k, longest),
    )


def assert_same_bits(want: np.ndarray, got: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(np.int64), want.view(np.int64)), (want, got)


@settings(max_examples=300, deadline=None)
@given(workloads())
def test_the_numpy_build_is_the_walk_to_the_bit(arguments):
    # Labels of 1022 make sums of 2^(label+1) overflow to infinity, and fidelity inf / inf, in both builds.
    with np.errstate(over="ignore", invalid="ignore"):
        assert_same_bits(walk(*arguments), numpy_document_retrieval_metrics(*arguments))


def test_no_queries():
    empty = np.zeros(0, dtype=np.int64)
    arguments = (QueryPairs(empty, empty), RankedArrays(empty, empty, empty, np.zeros(0, dtype=np.bool_), empty),
                 IdealArrays(empty, empty, empty), empty, 10, 0, False, *discount_tables(10, 0))
    assert_same_bits(walk(*arguments), numpy_document_retrieval_metrics(*arguments))


def test_it_is_the_registered_python_build():
    assert document_retrieval_metrics.python is numpy_document_retrieval_metrics
