"""A fusion sweep's fast path (joins gathered from labels found once) scores each configuration to the bit as the
Evaluator scores its fused run, under every tie order, cut and query set; it joins the fused run itself only where it
must (other families, ranx's ties of an undetermined order); and the sweep's leaderboard is the slow path's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import EvaluationOptions, Evaluator
from retrieval_eval.data import Qrels
from retrieval_eval.data.join import docid_tie_keys
from retrieval_eval.sweep.analysis import sweep
from retrieval_eval.sweep.fused import FusedConfiguration, fused_runs, fusion_sweep

TREC = ["map", "ndcg", "ndcg@10", "P@5", "recall@100", "bpref", "Rprec", "infAP", "recip_rank", "judged@10"]
DOCRET = ["ndcg_exp@3", "xdcg@3", "fidelity", "holes@10", "top1_relevance"]
GRID = [
    {"method": "rrf", "k": [1, 60]},
    {"method": "mnz", "norm": ["max", "borda"]},
    {"method": "sum", "norm": "min-max-inverted"},  # an insertion order other than the aligned rows'
    {"method": "bordafuse"},
    {"method": "condorcet"},
]


def grid(n_runs: int) -> list[dict]:
    """:data:`GRID` with a weighted sum under two normalizations (a weight per run)."""
    return GRID + [{"method": "wsum", "norm": ["min-max", "zmuv"], "weights": [[0.3, 0.7, 1.0][:n_runs]]}]
# Ids with prefixes of each other and upper case: trec_eval's descending byte order of ties is not their length's.
DOCS = ["d1", "d10", "d2", "D", "d", "e3", "d11", "x", "é", "d0"]
FAST = {"resamples": 50, "rounds": 50}
# Some drawn runs share no query with the qrels: scored all the same (NaN), which both paths must agree on.
pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")


@st.composite
def collections(draw):
    """Qrels and 2-3 runs over up to 5 queries: scores from a few values (ties), documents and queries in one run only."""
    integers = draw(st.booleans())
    doc = (lambda d: 3 * d + 7) if integers else (lambda d: DOCS[d])
    query = (lambda q: q) if integers else (lambda q: f"q{q}")
    qrels = [
        (query(q), doc(d), draw(st.integers(0, 3)))
        for q in range(4)
        for d in draw(st.sets(st.integers(0, len(DOCS) - 1), max_size=6))
    ]
    qrels = qrels or [(query(0), doc(0), 1)]
    runs = []
    for _ in range(draw(st.integers(2, 3))):
        rows = []
        for q in draw(st.sets(st.integers(0, 4), min_size=1)):  # query 4 is never judged
            docs = draw(st.lists(st.integers(0, len(DOCS) - 1), min_size=1, max_size=7, unique=True))
            rows += [(query(q), doc(d), float(draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0])))) for d in docs]
        runs.append(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    return pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]), runs


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(
    collections(),
    st.sampled_from([None, "input", "docid", "ranx"]),
    st.sampled_from([None, 1, 2, 4]),
    st.sampled_from(["qrels", "both", "union"]),
)
def test_each_configuration_scores_as_its_fused_run_to_the_bit(collection, ties, top_k_out, query_set):
    qrels, runs = collection
    fused = fused_runs(runs, grid(len(runs)), top_k_out=top_k_out)
    prejoined = fused.prejoined()
    evaluator = Evaluator(qrels, TREC + DOCRET, options=EvaluationOptions(ties=ties, query_set=query_set))
    for name in fused:
        fast, slow = prejoined[name], fused[name]
        expected, got = evaluator.evaluate(slow), evaluator.evaluate(fast)
        assert got.query_ids.equals(expected.query_ids) and got.run == name
        for metric in TREC + DOCRET:
            assert got.values(metric).tobytes() == expected.values(metric).tobytes(), (name, metric)
        # The fused run was made only where ranx's ties re-sort it (its order is not ranx's own).
        assert (fast._run is not None) == (ties == "ranx" and not slow.in_ranx_order), name


# The other families that read a ranked run (gdeval's, C/W/L's, ir_measures' Accuracy): gathered as document retrieval's.
RANKED = ["err@5", "gdeval_ndcg@5", "cwl_rbp", "cwl_inst", "accuracy@3"]


@settings(max_examples=max(5, settings.default.max_examples // 4))
@given(collections(), st.sampled_from([None, "input", "docid", "ranx"]), st.sampled_from([None, 2]))
def test_every_family_of_a_gathered_join_scores_as_the_fused_run_to_the_bit(collection, ties, top_k_out):
    qrels, runs = collection
    fused = fused_runs(runs, GRID, top_k_out=top_k_out)
    prejoined = fused.prejoined()
    evaluator = Evaluator(qrels, RANKED, options=EvaluationOptions(ties=ties))
    for name in fused:
        fast, slow = prejoined[name], fused[name]
        expected, got = evaluator.evaluate(slow), evaluator.evaluate(fast)
        for metric in RANKED:
            assert got.values(metric).tobytes() == expected.values(metric).tobytes(), (name, metric)
        assert (fast._run is not None) == (ties == "ranx" and not slow.in_ranx_order), name


def test_other_families_join_the_fused_run_itself():
    qrels = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [2, 0, 1]})
    a = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    b = pd.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["c", "d"], "score": [1.0, 0.5]})
    fused = fused_runs([a, b], {"method": "rrf"})
    prefs = Qrels(qrels.astype({"relevance": float}).assign(group="g", subgroup="0").pipe(_arrow), judgments="prefs")
    evaluator = Evaluator(prefs, ["prefs_simp"], options=EvaluationOptions(judgments="prefs"))
    config = fused.prejoined()["rrf"]
    assert isinstance(config, FusedConfiguration) and config._run is None
    assert evaluator.evaluate(config).values("prefs_simp").tobytes() == evaluator.evaluate(fused["rrf"]).values("prefs_simp").tobytes()
    assert config._run is not None


def _arrow(frame: pd.DataFrame):
    import pyarrow as pa

    return pa.Table.from_pandas(frame, preserve_index=False)


def test_the_aligned_rows_are_looked_up_once_per_qrels(monkeypatch):
    from retrieval_eval.data import join

    calls = []
    of = join.RowLabels.of.__func__
    monkeypatch.setattr(join.RowLabels, "of", classmethod(lambda cls, qrels, run: calls.append(qrels) or of(cls, qrels, run)))
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "c"], "relevance": [1, 2]})
    a = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    b = pd.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["c", "d"], "score": [1.0, 0.5]})
    prejoined = fused_runs([a, b], {"method": "rrf", "k": [1, 2, 3]}).prejoined()
    evaluator = Evaluator(qrels, ["map", "ndcg_exp@3"])
    for name in prejoined:
        evaluator.evaluate(prejoined[name])
    assert len(calls) == 1
    Evaluator(qrels, ["map"]).evaluate(prejoined["rrf,k=1"])  # another Qrels object: looked up again
    assert len(calls) == 2


def test_docid_tie_keys_order_ids_as_trec_eval_does():
    run = fused_runs(
        [pd.DataFrame({"query_id": ["q"] * 5, "doc_id": ["d1", "d10", "D", "d", "é"], "score": 1.0}),
         pd.DataFrame({"query_id": ["p", "q"], "doc_id": ["z", "d2"], "score": 1.0})],
        {"method": "sum"},
    )._aligned_run()  # fmt: skip
    keys = docid_tie_keys(run)
    by_query = {}
    for query, doc, key in zip(run.table["query_id"].to_pylist(), run.table["doc_id"].to_pylist(), keys):
        by_query.setdefault(query, []).append((key, doc))
    # strcmp of the UTF-8 bytes, descending: "é" (0xc3) first, a prefix after what it begins.
    assert [doc for _, doc in sorted(by_query["q"])] == ["é", "d2", "d10", "d1", "d", "D"]
    assert [doc for _, doc in by_query["p"]] == ["z"]


@pytest.mark.parametrize("ties", [None, "ranx"])
def test_the_sweeps_leaderboard_is_the_slow_paths(ties):
    qrels = pd.DataFrame(
        {"query_id": [f"q{q}" for q in range(6) for _ in range(3)], "doc_id": [f"d{d}" for _ in range(6) for d in (0, 3, 5)],
         "relevance": [2, 1, 0] * 6}  # fmt: skip
    )
    rng = np.random.default_rng(5)
    runs = {
        name: pd.DataFrame(
            [(f"q{q}", f"d{d}", float(np.round(rng.random(), 1))) for q in range(6) for d in rng.permutation(8)[:6]],
            columns=["query_id", "doc_id", "score"],
        )
        for name in ("bm25", "dense")
    }
    configurations = GRID[:1] + [{"method": "wsum", "weights": {"step": 0.25}}]
    options = EvaluationOptions(ties=ties)
    fast = fusion_sweep(qrels, runs, configurations, ["ndcg@10", "map"], options=options, **FAST)
    fused = fused_runs(runs, configurations)  # a mapping of Runs: the Evaluator joins each fused run
    slow = sweep(qrels, fused, ["ndcg@10", "map"], parameters=fused.grid.parameters(), options=options, **FAST)
    pd.testing.assert_frame_equal(fast.table, slow.table, check_exact=True)
    pd.testing.assert_frame_equal(fast.leaderboard.per_query, slow.leaderboard.per_query, check_exact=True)
