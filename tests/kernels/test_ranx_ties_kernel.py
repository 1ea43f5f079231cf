"""ranx's order of tied documents: the tie keys against a real ``ranx.Run`` in every build, and the
ranking kernels' order by key against Python's sort.

The oracle of the keys is ranx itself: ``ranx.Run.from_dict`` of each query's distinct documents
(first occurrence, the score the duplicate policy keeps) holds them in the order its metrics read.
Without the JIT ranx's numba code runs as Python (numpy's argsort), and so do the keys: the same
tests hold in both legs.
"""

from __future__ import annotations

import random

import numba
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import Run
from retrieval_eval.kernels.core.duplicate_policy import KEEP_FIRST, KEEP_LAST, KEEP_MAX
from retrieval_eval.kernels.core.ranx_ties import ranx_argsort, ranx_tie_keys
from retrieval_eval.kernels.core.sorting import stable_order
from retrieval_eval.kernels.core.tiebreak import order_ties_by_key

ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.filterwarnings("ignore::Warning")  # numba's type-safety warnings inside ranx

BUILDS = ("python",) if numba.config.DISABLE_JIT else ("python", "serial", "parallel")
POLICIES = {"last": KEEP_LAST, "first": KEEP_FIRST, "max": KEEP_MAX}


@st.composite
def tied_runs(draw):
    """{query: [(doc, score), ...]} in input order: 1..60 rows per query (both sides of numba's 15-element
    insertion sort), scores from a few values, some documents repeated."""
    run = {}
    for q in range(draw(st.integers(1, 4))):
        values = draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0, 7.25]), min_size=1, max_size=3, unique=True))
        rows = draw(st.lists(st.tuples(st.integers(0, 70), st.sampled_from(values)), min_size=1, max_size=60))
        run[f"q{q}"] = [(f"d{doc}", score) for doc, score in rows]
    return run


def kept_scores(rows: list[tuple[str, float]], policy: str) -> dict[str, float]:
    """The query's distinct documents in first-occurrence order, with the score ``policy`` keeps."""
    kept: dict[str, float] = {}
    for doc, score in rows:
        if doc not in kept or policy == "last" or (policy == "max" and score > kept[doc]):
            kept[doc] = score
    return kept


def run_arrays(run: dict[str, list[tuple[str, float]]], int_ids: bool, shuffle: int | None) -> tuple[Run, tuple]:
    """The run as the library holds it (queries interleaved when ``shuffle``) and its arrays as the join passes them."""
    rows = [(q, doc, score) for q, pairs in run.items() for doc, score in pairs]
    if shuffle is not None:
        # Interleave the queries, keeping each query's own row order (the order ranx's dict keeps).
        interleaved = [q for q, _, _ in rows]
        random.Random(shuffle).shuffle(interleaved)
        pending = {q: iter([r for r in rows if r[0] == q]) for q in run}
        rows = [next(pending[q]) for q in interleaved]
    doc_ids = [int(doc[1:]) if int_ids else doc for _, doc, _ in rows]
    table = pa.table({"query_id": [r[0] for r in rows], "doc_id": doc_ids, "score": pa.array([r[2] for r in rows], pa.float64())})
    held = Run(table)
    groups, ids = held.queries, held.doc_ids
    return held, (groups.offsets, groups.order, ids.keys, ids.offsets, ids.data, held.scores, ids.is_string)


@given(tied_runs(), st.sampled_from(sorted(POLICIES)), st.booleans(), st.none() | st.integers(0, 3))
def test_tie_keys_give_each_document_its_position_in_a_ranx_run(run, policy, int_ids, shuffle):
    held, (*arrays, is_string) = run_arrays(run, int_ids, shuffle)
    ranx_order = ranx.Run.from_dict({q: kept_scores(pairs, policy) for q, pairs in run.items()}).run
    first_rows: dict[tuple, int] = {}
    for row, (q, doc) in enumerate(zip(held.table["query_id"].to_pylist(), held.table["doc_id"].to_pylist())):
        first_rows.setdefault((q, f"d{doc}" if int_ids else doc), row)
    for build in BUILDS:
        keys = getattr(ranx_tie_keys, build)(*arrays, POLICIES[policy], is_string)
        for q in run:
            by_key = sorted((doc for p, doc in first_rows if p == q), key=lambda doc: keys[first_rows[q, doc]])
            assert by_key == list(ranx_order[q].keys()), (build, q)


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="without the JIT there is no compiled argsort to match")
@pytest.mark.parametrize("n", [0, 1, 2, 15, 16, 17, 40, 61, 300])
def test_python_build_of_the_argsort_is_numbas_quicksort(n):
    # A JIT process whose small work runs as Python must order ties as ranx's compiled code does.
    rng = np.random.default_rng(n)
    for values in (rng.choice([-np.inf, -0.0, 0.0, 1.5, np.inf], size=n), rng.integers(0, 3, size=n).astype(np.float64)):
        python = ranx_argsort.python(values)
        assert python.dtype == np.int64 and python.tolist() == ranx_argsort.serial(values).tolist()


@given(
    st.lists(st.tuples(st.sampled_from([0.0, 1.0, 2.0]), st.integers(-5, 5)), max_size=300),
    st.integers(0, 2**32 - 1),
)
def test_order_ties_by_key_sorts_equal_scores_by_ascending_key(documents, seed):
    # Up to 300 documents of three scores: tie runs above the 128 elements where the sort of a run merges.
    scores = np.array([score for score, _ in documents], dtype=np.float64)
    rows = np.random.default_rng(seed).permutation(len(documents)).astype(np.int64)  # document -> its row
    tie_keys = np.zeros(len(documents), dtype=np.int64)
    tie_keys[rows] = [key for _, key in documents]
    ranking = stable_order(scores, True)
    order_ties_by_key(ranking, scores, rows, tie_keys)
    # Equal keys too keep input order (the sort of a run of ties is stable).
    expected = sorted(range(len(documents)), key=lambda d: (-documents[d][0], documents[d][1], d))
    assert ranking.tolist() == expected
