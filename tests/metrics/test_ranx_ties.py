"""``ties="ranx"`` against ranx itself: per-query values of random runs full of ties, the sample data,
and the tie orders ranx does not use for a Run.

ranx 0.3 orders a ``ranx.Run``'s documents with an unstable quicksort (numba's; numpy's under
``NUMBA_DISABLE_JIT``, where ranx's numba code runs as Python): ties in a query of more than 15
documents come out in neither input nor id order. The oracle is ``ranx.evaluate(Qrels.from_dict,
Run.from_dict, ...)`` (or ``from_file``) in the same process, so both legs of the suite compare with
what ranx gives there. ranx's arithmetic is trec_eval's for these measures: the per-query values
are the same bits, but for map and ndcg without the JIT, where ranx's sums are numpy's (``np.sum``
adds pairwise, 8 partial sums at a time) and may differ in the last bit (1.1e-16 seen; trec_eval and
the compiled ranx add in rank order): compared to 1e-12 there.

The random data respect ranx's requirements: the qrels and the run hold the same queries, each
with a judgment and a retrieved document; doc ids are strings.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import retrieval_eval as rx
from retrieval_eval import ConfigError, Qrels, Run
from retrieval_eval.data import rank_run

ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.filterwarnings("ignore::Warning")  # numba's type-safety warnings inside ranx

DATA = Path(__file__).resolve().parents[2] / "data"
CUTOFFS = (1, 3, 5, 10, 20, 50)
# ranx's name -> ours
NAMES = {
    "map": "map", "mrr": "recip_rank", "ndcg": "ndcg",
    **{f"ndcg@{k}": f"ndcg@{k}" for k in CUTOFFS},
    **{f"precision@{k}": f"precision@{k}" for k in CUTOFFS},
    **{f"recall@{k}": f"recall@{k}" for k in CUTOFFS},
    **{f"hit_rate@{k}": f"success@{k}" for k in CUTOFFS},
}


@st.composite
def tied_collections(draw):
    """(qrels, run) as ranx's nested dicts: 1..4 queries of 1..60 retrieved documents (both sides of numba's
    15-element insertion sort) with scores from a few values, labels 0..3, judged documents not retrieved."""
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        values = draw(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0, 7.25]), min_size=1, max_size=3, unique=True))
        retrieved = draw(st.lists(st.tuples(st.integers(0, 70), st.sampled_from(values)), min_size=1, max_size=60))
        run[f"q{q}"] = {f"d{doc}": score for doc, score in retrieved}
        judged = draw(st.lists(st.tuples(st.integers(0, 70), st.integers(0, 3)), min_size=1, max_size=20))
        qrels[f"q{q}"] = {f"d{doc}": label for doc, label in judged}
    return qrels, run


def frame(nested: dict[str, dict[str, float]], value: str) -> pd.DataFrame:
    """A nested dict as rows in its order (the order ranx's dicts keep)."""
    rows = [(q, doc, v) for q, docs in nested.items() for doc, v in docs.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", value])


def ranx_per_query(qrels: ranx.Qrels, run: ranx.Run, metrics: list[str]) -> dict[str, dict[str, float]]:
    """{ranx metric: {query: value}} from ranx.evaluate(return_mean=False); it lists queries in sorted order."""
    scores = ranx.evaluate(qrels, run, metrics, return_mean=False, save_results_in_run=False)
    scores = scores if isinstance(scores, dict) else {metrics[0]: scores}
    return {m: dict(zip(run.get_query_ids(), scores[m].tolist())) for m in metrics}


def assert_same_values(actual: dict[str, dict[str, float]], expected: dict[str, dict[str, float]]) -> None:
    """Our values (by our names) are ranx's (by its names): the same bits, map and ndcg to 1e-12 without the JIT (module docstring)."""
    for name, ours in NAMES.items():
        if name.startswith(("map", "ndcg")) and _jit_disabled():
            assert actual[ours].keys() == expected[name].keys(), name
            for query, value in expected[name].items():
                assert math.isclose(actual[ours][query], value, rel_tol=0, abs_tol=1e-12), (name, query)
        else:
            assert actual[ours] == expected[name], name


def ours_per_query(result: rx.EvaluationResult, names: list[str]) -> dict[str, dict[str, float]]:
    query_ids = [str(q) for q in result.query_ids.to_pylist()]
    return {name: dict(zip(query_ids, result.values(name).tolist())) for name in names}


@settings(max_examples=min(60, settings().max_examples))
@given(tied_collections())
def test_ranx_metrics_per_query_to_the_bit(collection):
    qrels, run = collection
    expected = ranx_per_query(ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(run), list(NAMES))
    result = rx.evaluate(frame(qrels, "relevance"), frame(run, "score"), list(NAMES.values()), ties="ranx", query_set="qrels")
    assert_same_values(ours_per_query(result, list(NAMES.values())), expected)


@settings(max_examples=min(30, settings().max_examples))
@given(tied_collections(), st.sampled_from(["ranx", "input"]))
def test_a_ranx_run_passed_in_keeps_its_order_under_either_tie_order(collection, ties):
    # A ranx.Run is read in its own sorted order: ties="ranx" does not sort it a second time.
    qrels, run = collection
    ranx_qrels, ranx_run = ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(run)
    expected = ranx_per_query(ranx_qrels, ranx_run, list(NAMES))
    result = rx.evaluate(ranx_qrels, ranx_run, list(NAMES.values()), ties=ties, query_set="qrels")
    assert_same_values(ours_per_query(result, list(NAMES.values())), expected)


@settings(max_examples=min(30, settings().max_examples))
@given(tied_collections(), st.lists(st.tuples(st.integers(0, 3), st.integers(0, 70), st.floats(-1, 1, width=16)), max_size=30))
def test_a_run_file_with_repeated_documents_gives_ranx_from_file(collection, repeats):
    # ranx.Run.from_file keeps a repeated document at its first line with its last score: run_duplicates="last".
    qrels, run = collection
    lines = [f"{q} Q0 {doc} 0 {score!r} r" for q, docs in run.items() for doc, score in docs.items()]
    lines += [f"q{q} Q0 d{doc} 0 {score!r} r" for q, doc, score in repeats if f"q{q}" in run]
    with tempfile.TemporaryDirectory() as folder:
        run_path, qrels_path = Path(folder, "run.trec"), Path(folder, "qrels.trec")
        run_path.write_text("\n".join(lines) + "\n")
        qrels_path.write_text("".join(f"{q} 0 {doc} {label}\n" for q, docs in qrels.items() for doc, label in docs.items()))
        expected = ranx_per_query(ranx.Qrels.from_file(str(qrels_path)), ranx.Run.from_file(str(run_path)), list(NAMES))
        result = rx.evaluate(qrels_path, run_path, list(NAMES.values()), ties="ranx", query_set="qrels", run_duplicates="last")
    assert_same_values(ours_per_query(result, list(NAMES.values())), expected)


@settings(max_examples=min(60, settings().max_examples))
@given(tied_collections())
def test_the_full_ranking_is_a_runs_order(collection):
    # The document-retrieval family ranks every document (kernels/core/ranking.py), not only the judged ones:
    # each document judged with a label of its own, the ranked labels name the documents in rank order.
    _, run = collection
    qrels = {q: {doc: int(doc[1:]) for doc in docs} for q, docs in run.items()}
    ranked = rank_run(Qrels.read(frame(qrels, "relevance")), Run.read(frame(run, "score")), ties="ranx")
    order = ranx.Run.from_dict(run).run
    for q, query_id in enumerate(ranked.run.query_ids.to_pylist()):
        start = ranked.offsets[q]
        assert ranked.labels[start : start + ranked.n_ranked[q]].tolist() == [qrels[query_id][d] for d in order[query_id]]


def test_the_sample_gives_ranx_map():
    qrels, run = ranx.Qrels.from_file(str(DATA / "qrels.trec")), ranx.Run.from_file(str(DATA / "run.trec"))
    expected = ranx_per_query(qrels, run, ["map"])["map"]
    mean = ranx.evaluate(qrels, run, "map", save_results_in_run=False)
    result = rx.evaluate(DATA / "qrels.trec", DATA / "run.trec", ["map"], ties="ranx")
    assert ours_per_query(result, ["map"])["map"] == expected
    # ranx's mean is numpy's (pairwise sums, its sorted query order); ours is correctly rounded (math.fsum).
    assert np.mean([expected[q] for q in run.get_query_ids()]) == mean
    assert result.means["map"] == math.fsum(expected.values()) / len(expected)
    assert abs(result.means["map"] - mean) <= 1e-15
    if not _jit_disabled():
        # The figure of the compiled ranx (numba's quicksort), as the manual quotes it (docs/peers.md).
        assert mean == 0.24071002331002334 and result.means["map"] == 0.2407100233100233


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="numpy's argsort (ranx without the JIT) swaps other ties, as the CPU's sort does")
def test_difference_input_order_is_not_ranx_order_on_the_sample():
    # q3 has 19 documents, two of them tied at 89.7: numba's quicksort swaps them, input order does not.
    qrels, run = ranx.Qrels.from_file(str(DATA / "qrels.trec")), ranx.Run.from_file(str(DATA / "run.trec"))
    expected = ranx_per_query(qrels, run, ["map"])["map"]
    by_input = ours_per_query(rx.evaluate(DATA / "qrels.trec", DATA / "run.trec", ["map"], ties="input"), ["map"])["map"]
    assert {q for q in expected if by_input[q] != expected[q]} == {"q3"}
    assert list(run["q3"])[10:12] == ["doc4781551", "doc4781537"]  # lines 63 and 61 of the file


def test_difference_ranx_orders_plain_dicts_otherwise():
    # ranx.evaluate on dicts sorts by np.argsort(scores)[::-1]: reversed ascending ties, not a Run's order.
    run = {"q": {f"d{i}": float(i % 2) for i in range(20)}}
    qrels = {"q": {"d0": 1, "d2": 1, "d5": 1}}
    from_run = ranx.evaluate(ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(run), "map", save_results_in_run=False)
    from_dicts = ranx.evaluate(qrels, run, "map")
    ours = rx.evaluate(frame(qrels, "relevance"), frame(run, "score"), ["map"], ties="ranx").means["map"]
    assert ours == from_run != from_dicts


def _grouped_qrels() -> Qrels:
    table = pa.table({"query_id": ["q", "q"], "group": ["g", "h"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    return Qrels(table, judgments="qrels_jg")


def _preference_qrels() -> Qrels:
    table = pa.table({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [2.0, 1.0], "group": ["g", "g"],
                      "subgroup": ["1", "2"]})
    return Qrels(table, judgments="prefs")


@pytest.mark.parametrize(
    ("qrels", "metric", "judgments", "missing"),
    [(_grouped_qrels, "map_avgjg", "qrels_jg", "judgment-group"), (_preference_qrels, "prefs_simp", "prefs", "preference")],
)
def test_measures_ranx_lacks_refuse_its_tie_order(qrels, metric, judgments, missing):
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    options = rx.EvaluationOptions(ties="ranx", judgments=judgments)
    with pytest.raises(ConfigError, match=f"ties='ranx' orders ties as ranx does, and ranx has no {missing} measures"):
        rx.Evaluator(qrels(), [metric], options=options).evaluate(run)


def _jit_disabled() -> bool:
    return bool(numba.config.DISABLE_JIT)
