"""ranx's hits@k, dcg@k, dcg_burges, nDCG at a relevance level and rbp.NN (the ranked-gains family) against ranx 0.3.21.

Per-query values of random runs full of ties (``ties="ranx"``), graded labels with negative ones
(ranx gives a label below the level no gain), judged documents not retrieved; ranx needs the same
queries on both sides. ranx sums with numpy (``np.sum`` pairwise, Python's ``sum`` for rbp), the
kernels in rank order: compared to 1e-12. NCG@k, which ranx lacks, against the plain oracle of
:mod:`tests.reference.ranked_gains` on trec_eval's ranking, with queries on one side only.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import retrieval_eval as rx
from tests.peer_collections import collections, frames
from tests.reference.ranked_gains import ncg_at_k

ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.filterwarnings("ignore::Warning")  # numba's type-safety warnings inside ranx

RANX_NAMES = [
    "hits@3", "hits@5-l2", "hits@2-l0", "dcg@3", "dcg@5-l2", "dcg-l2", "dcg-l3", "dcg@4-l-1", "dcg_burges", "dcg_burges@4", "dcg_burges-l2",
    "ndcg-l2", "ndcg@5-l3", "ndcg@5-l0", "ndcg-l-1", "ndcg_burges-l2", "ndcg_burges@3-l2", "rbp.95", "rbp.8-l2", "rbp@5",
]


@st.composite
def tied_collections(draw):
    """(qrels, run) as ranx's nested dicts: the same 1..4 queries, 1..40 retrieved documents of a few scores, labels -1..4."""
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        values = draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0, 7.25]), min_size=1, max_size=3, unique=True))
        retrieved = draw(st.lists(st.tuples(st.integers(0, 50), st.sampled_from(values)), min_size=1, max_size=40))
        run[f"q{q}"] = {f"d{doc}": score for doc, score in retrieved}
        judged = draw(st.lists(st.tuples(st.integers(0, 50), st.integers(-1, 4)), min_size=1, max_size=20))
        qrels[f"q{q}"] = {f"d{doc}": label for doc, label in judged}
    return qrels, run


def frame(nested: dict[str, dict[str, float]], value: str) -> pd.DataFrame:
    rows = [(q, doc, v) for q, docs in nested.items() for doc, v in docs.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", value])


@settings(max_examples=min(50, settings().max_examples), deadline=None)
@given(tied_collections())
def test_ranx_gain_measures_per_query(collection):
    qrels, run = collection
    ranx_run = ranx.Run.from_dict(run)
    scores = ranx.evaluate(ranx.Qrels.from_dict(qrels), ranx_run, RANX_NAMES, return_mean=False, save_results_in_run=False)
    result = rx.evaluate(frame(qrels, "relevance"), frame(run, "score"), RANX_NAMES, ties="ranx", query_set="qrels")
    ours = {str(q): i for i, q in enumerate(result.query_ids.to_pylist())}
    for name in RANX_NAMES:
        values = result.values(name)
        for query, want in zip(ranx_run.get_query_ids(), scores[name].tolist()):
            got = float(values[ours[query]])
            assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), (name, query, got, want)
        mean = result.means[name] if isinstance(result.means, dict) else None
        if mean is not None:
            assert math.isclose(mean, float(scores[name].mean()), rel_tol=1e-12, abs_tol=1e-12), name


@settings(max_examples=min(60, settings().max_examples), deadline=None)
@given(data=collections(distinct=False, always_judged=True), k=st.integers(1, 12), rel=st.integers(1, 3))
def test_ncg_at_k_is_the_oracle_s(data, k, rel):
    qrels, run = data
    qrels_frame, run_frame = frames(qrels, run)
    if run_frame.empty:
        return
    name = f"ncg(rel={rel})@{k}"
    for query_set in ("both", "qrels"):
        result = rx.evaluate(qrels_frame, run_frame, [name], query_set=query_set)
        for query, value in zip(result.query_ids.to_pylist(), result.values(name).tolist()):
            want = ncg_at_k(qrels[query], run.get(query, {}), k, rel)
            assert math.isclose(value, want, rel_tol=0, abs_tol=1e-12), (query, value, want)


def test_the_ranx_names_compared_are_this_family_s():
    """The ranx names resolve to this family's metrics (so the test above compares them), but -l0 of ndcg: the TREC family's."""
    from retrieval_eval import REGISTRY
    from retrieval_eval.metrics.spellings.peers import parse_peer

    families = {REGISTRY.family(parse_peer(name, rel_level=1, default_k=None) or REGISTRY.parse(name)).name
                for name in RANX_NAMES if name != "ndcg@5-l0"}
    assert families == {"ranked_gains"}
