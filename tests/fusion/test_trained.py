"""The trained methods (probfuse, segfuse, slidefuse, posfuse, mapfuse, bayesfuse) and their training,
against the oracle (tests/reference/fusion_trained.py) and against ranx 0.3.21 itself.

- Training: ``train`` against the oracle's ``*_train`` on random qrels (labels -1..3, queries
  judged and never retrieved, runs' queries no one judged) and random runs full of ties, and
  against ranx's own ``*_train`` (run in a child process, tests/reference/fusion_voting_ranx.py)
  on runs over the judged queries, as ranx requires: to 1e-12 relative.
- Fusion: every trained method under every normalization against the oracle fed the normalized
  runs of tests/reference/fusion_scores.py, and against ranx's ``fuse`` with ranx's trained
  parameters: the same documents, scores to 1e-12 relative, the same order (``borda``: with
  ranx's candidates listed in the library's order, as in test_voting.py).
- ``qrels=`` trains on the runs being fused; every misuse is a one-line ConfigError.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from retrieval_eval import ConfigError, InputError
from retrieval_eval.fusion import NORMALIZATIONS, align, fuse, fused_run, fused_scores, normalize
from retrieval_eval.fusion.trained import train
from tests.fusion.test_fusion_oracle import as_lists
from tests.fusion.test_voting import RANX_DOCUMENTS, assert_same, in_ranx_order, ranx_peer
from tests.reference import fusion_scores as scores_oracle
from tests.reference import fusion_trained as oracle

pytestmark = pytest.mark.filterwarnings("ignore::Warning")  # numba's type-safety warnings inside ranx

TRAINED = ["probfuse", "segfuse", "slidefuse", "posfuse", "mapfuse", "bayesfuse"]
NORMS = [*NORMALIZATIONS, None]
# What each method's training gives, by ranx's parameter name.
ESTIMATES = {
    "probfuse": "probs", "segfuse": "probs", "slidefuse": "probs", "posfuse": "probs",
    "mapfuse": "map_scores", "bayesfuse": "log_odds",
}


@st.composite
def judged_runs(draw, unjudged: bool = True) -> tuple[dict, list[dict]]:
    """(qrels, runs): 1-4 judged queries (some no run retrieves), 2-5 runs of 1-20 documents per query with ties;
    with ``unjudged`` some runs also retrieve for a query no one judged."""
    queries = [f"q{i}" for i in range(draw(st.integers(1, 4)))]
    documents = st.lists(st.sampled_from(RANX_DOCUMENTS), min_size=1, max_size=12, unique=True)
    qrels = {q: {d: draw(st.integers(-1, 3)) for d in draw(documents)} for q in queries}
    retrieved = queries + (["unjudged"] if unjudged else [])
    values = st.sampled_from([0.0, 1.0, 1.0, 2.5, -1.0, 7.25])
    runs = []
    for _ in range(draw(st.integers(2, 5))):
        chosen = draw(st.lists(st.sampled_from(retrieved), min_size=1, max_size=len(retrieved), unique=True))
        documents = st.lists(st.sampled_from(RANX_DOCUMENTS), min_size=1, max_size=20, unique=True)
        runs.append({q: {d: draw(values) for d in draw(documents)} for q in chosen})
    assume(any(q in run for run in runs for q in queries))  # qrels judging none of the runs' queries train nothing: refused
    return qrels, runs


def deepest(runs: list[dict]) -> int:
    """The most documents a run ranks for one query: ProbFuse's most segments (more are refused, all empty)."""
    return max(len(documents) for run in runs for documents in run.values())


def ranked_runs(dicts: list[dict], norm: str | None = None) -> list[dict]:
    """The runs as the oracle reads them: each query's documents in the order of the (normalized) run."""
    per_query = scores_oracle.normalized(dicts, norm)
    return [{q: dict(per_run[r]) for q, per_run in per_query.items()} for r in range(len(dicts))]


def oracle_train(method: str, qrels: dict, runs: list[dict], n_segments: int) -> list:
    if method == "probfuse":
        return oracle.probfuse_train(qrels, runs, n_segments)
    if method in ("slidefuse", "posfuse"):
        return oracle.position_train(qrels, runs)
    return getattr(oracle, f"{method}_train")(qrels, runs)


def oracle_fused(method: str, runs: list[dict], estimates: list, w: int) -> dict:
    if method == "slidefuse":
        return oracle.slidefuse(runs, estimates, w)
    return getattr(oracle, method)(runs, estimates)


def assert_close(ours, expected, what: str) -> None:
    ours, expected = np.asarray(ours, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    assert ours.shape == expected.shape, what
    assert np.allclose(ours, expected, rtol=1e-12, atol=1e-300), (what, ours, expected)


# The oracle -------------------------------------------------------------------------------------


@settings(max_examples=max(5, settings.default.max_examples // 5))
@given(judged_runs(), st.integers(1, 12))
def test_training_is_the_oracles(collection, n_segments):
    qrels, dicts = collection
    for method in TRAINED:
        segments = min(n_segments, deepest(dicts)) if method == "probfuse" else None
        ours = train(method, qrels, dicts, n_segments=segments)
        assert list(ours) == [ESTIMATES[method]]
        expected = oracle_train(method, qrels, ranked_runs(dicts), segments or 0)
        for r in range(len(dicts)):
            assert_close(ours[ESTIMATES[method]][r], expected[r], f"{method} run {r}")


@settings(max_examples=max(5, settings.default.max_examples // 5))
@given(judged_runs(), st.integers(1, 6), st.sampled_from([0, 1, 2, 5, 100]))
def test_every_trained_method_and_normalization_is_the_oracles(collection, n_segments, w):
    qrels, dicts = collection
    aligned = align(dicts)
    segments = min(n_segments, deepest(dicts))
    trained = {m: train(m, qrels, aligned, n_segments=segments if m == "probfuse" else None) for m in TRAINED}
    for norm in NORMS:
        normalized = normalize(aligned, norm)
        runs = ranked_runs(dicts, norm)
        for method in TRAINED:
            params = {**trained[method], **({"w": w} if method == "slidefuse" else {})}
            run = fused_run(aligned, fused_scores(aligned, normalized, method, params))
            (estimates,) = trained[method].values()
            expected = in_ranx_order(oracle_fused(method, runs, estimates, w))
            assert_same(as_lists(run), expected, f"{method} {norm}")


@settings(max_examples=max(3, settings.default.max_examples // 20))
@given(judged_runs(), st.sampled_from(["min-max", "borda", None]))
def test_qrels_trains_on_the_runs_being_fused(collection, norm):
    qrels, dicts = collection
    for method in TRAINED:
        extra = {"n_segments": min(3, deepest(dicts))} if method == "probfuse" else {}
        window = {"w": 2} if method == "slidefuse" else {}
        here = fuse(dicts, method, norm=norm, qrels=qrels, top_k_in=5, **extra, **window)
        given_params = train(method, qrels, dicts, top_k_in=5, **extra)
        assert as_lists(here) == as_lists(fuse(dicts, method, norm=norm, top_k_in=5, **given_params, **window)), method


def test_relevant_means_judged_1_or_more():
    qrels = {"q": {"a": 0, "b": 1, "c": -1, "d": 3}}
    runs = [{"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}, {"q": {"d": 1.0}}]
    assert [list(p) for p in train("posfuse", qrels, runs)["probs"]] == [[0.0, 1.0, 0.0, 1.0], [1.0]]


# ranx -------------------------------------------------------------------------------------------


@settings(max_examples=max(3, settings.default.max_examples // 10))
@given(judged_runs(unjudged=False), st.integers(1, 8))
def test_training_is_ranxs(collection, n_segments):
    qrels, dicts = collection
    for method in TRAINED:
        segments = min(n_segments, deepest(dicts)) if method == "probfuse" else None
        theirs = ranx_peer().train(method, qrels, dicts, segments)
        ours = train(method, qrels, dicts, n_segments=segments)[ESTIMATES[method]]
        for r in range(len(dicts)):
            assert_close(ours[r], theirs[r], f"{method} run {r}")


@settings(max_examples=max(3, settings.default.max_examples // 10))
@given(judged_runs(unjudged=False), st.sampled_from(["min-max", "min-max-inverted", "zmuv", "borda", None]),
       st.sampled_from([0, 1, 3]))
def test_trained_fusion_is_ranxs(collection, norm, w):
    qrels, dicts = collection
    for method in TRAINED:
        segments = 4 if method == "probfuse" else None  # ranx's own training: any number of segments
        params = {ESTIMATES[method]: ranx_peer().train(method, qrels, dicts, segments)}
        if method == "slidefuse":
            params["w"] = w
        expected = {q: docs for q, docs in ranx_peer().fuse(dicts, method, params, norm).items() if docs}
        ours = as_lists(fuse(dicts, method, norm=norm, **params))
        assert sorted(ours) == sorted(expected), method
        assert_same({q: ours[q] for q in expected}, expected, f"{method} {norm}")


# Misuse -----------------------------------------------------------------------------------------


RUNS = [{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 3.0}}]
QRELS = {"q": {"a": 1}}


MISUSES = {
    "no trained parameters": (
        lambda: fuse(RUNS, "probfuse"),
        r"fusion method 'probfuse' is trained: pass probs= \(one array of segment probabilities per run: "
        r"retrieval_eval.fusion.train\('probfuse', qrels, runs, n_segments=...\) or ranx's probfuse_train\) "
        r"or qrels= with n_segments= to train it on these runs$",
    ),
    "no map scores": (
        lambda: fuse(RUNS, "mapfuse"),
        r"is trained: pass map_scores= \(one MAP per run: retrieval_eval.fusion.train\('mapfuse', qrels, runs...\)",
    ),
    "both": (lambda: fuse(RUNS, "posfuse", probs=[[0.5], [0.5]], qrels=QRELS), "give probs= or qrels= .to train it here., not both"),
    "segments with probs": (
        lambda: fuse(RUNS, "probfuse", probs=[[0.5], [0.5]], n_segments=2), "n_segments= is for training from qrels="
    ),
    "no segments": (lambda: fuse(RUNS, "probfuse", qrels=QRELS), r"training probfuse needs n_segments= \(a positive integer"),
    "one run's probs": (
        lambda: fuse(RUNS, "posfuse", probs=[[0.5]]), r"probs must be 2 sequences of probabilities \(one per run\), got \[\[0.5\]\]"
    ),
    "no segment": (lambda: fuse(RUNS, "probfuse", probs=[[0.5], []]), r"probs\[1\] must hold at least 1 probabilities, got 0"),
    "11 segments": (lambda: fuse(RUNS, "segfuse", probs=[[0.1] * 11, [0.1]]), r"probs\[0\] must hold 0 to 10 probabilities, got 11"),
    "NaN": (
        lambda: fuse(RUNS, "bayesfuse", log_odds=[[0.1, math.nan], [0.1]]), r"log_odds\[0\] must be a sequence of finite numbers"
    ),
    "a MAP not a number": (
        lambda: fuse(RUNS, "mapfuse", map_scores=[0.5, "x"]), r"map_scores must be 2 finite numbers \(MAP, one per run\)"
    ),
    "no window": (lambda: fuse(RUNS, "slidefuse", probs=[[0.5], [0.5]]), r"fusion method 'slidefuse' needs w="),
    "negative window": (lambda: fuse(RUNS, "slidefuse", probs=[[0.5], [0.5]], w=-1), r"w must be an integer of at least 0"),
    "untrained method": (lambda: train("rrf", QRELS, RUNS), r"train takes one of the trained fusion methods \(probfuse, segfuse"),
    "segments elsewhere": (lambda: train("segfuse", QRELS, RUNS, n_segments=3), r"segfuse takes no n_segments= \(ProbFuse's alone\)"),
    "query id kinds": (lambda: train("posfuse", {1: {"a": 1}}, RUNS), r"query_ids are integers in the qrels but strings in the runs"),
}


@pytest.mark.parametrize(("call", "message"), MISUSES.values(), ids=MISUSES.keys())
def test_misuse_is_a_one_line_config_error(call, message):
    with pytest.raises((ConfigError, ValueError), match=message) as raised:
        call()
    assert "\n" not in str(raised.value)


def test_bayesfuse_refuses_runs_deeper_than_its_log_odds():
    # ranx's log odds cover 1000 positions and it reads past them; here the error names the run and the query.
    deep = [{"q": {f"d{i}": float(-i) for i in range(1001)}}, {"q": {"d0": 1.0}}]
    log_odds = train("bayesfuse", {"q": {"d3": 1}}, deep)["log_odds"]
    assert [len(v) for v in log_odds] == [1000, 1000]
    message = (
        r"bayesfuse: run '.*' ranks 1001 documents for query 'q' and its log odds cover 1000 positions; "
        r"cut the runs with top_k_in=1000$"
    )
    with pytest.raises(ConfigError, match=message):
        fuse(deep, "bayesfuse", log_odds=log_odds)
    assert len(fuse(deep, "bayesfuse", log_odds=log_odds, top_k_in=1000).table) == 1000


# Training data that cannot train -----------------------------------------------------------------


@pytest.mark.parametrize("method", TRAINED)
def test_qrels_judging_none_of_the_runs_queries_are_refused(method):
    # Before: every estimate 0 (bayesfuse's the log odds of 0.001), every fused score alike, and no error.
    other = {"elsewhere": {"a": 1}}
    message = rf"no judged query is a query of the runs fused \(.+\), so {method} has nothing to train on"
    segments = {"n_segments": 1} if method == "probfuse" else {}
    with pytest.raises(InputError, match=message) as raised:
        train(method, other, RUNS, **segments)
    assert "\n" not in str(raised.value)
    with pytest.raises(InputError, match=message):
        fuse(RUNS, method, qrels=other, **segments, **({"w": 1} if method == "slidefuse" else {}))


def test_a_judged_query_no_run_has_counts_as_retrieving_nothing():
    # Partial overlap trains on every judged query, as ranx on runs made comparable (Run.make_comparable):
    # run 0's average precision is 1 on q and 0 on z, which no run retrieves for.
    assert train("mapfuse", {**QRELS, "z": {"x": 1}}, RUNS) == {"map_scores": [0.5, 0.0]}


def test_probfuse_refuses_more_segments_than_the_deepest_run_has_documents():
    # Before: n_segments=10**9 made n_runs x 10**9 estimates (24 GB) for these three documents.
    message = (
        r"^n_segments=1000000000 is more segments than the deepest run ranks documents for a query \(2\): the segments "
        r"past it are empty; use n_segments=2 or fewer \(every value from 2 up fuses alike\)$"
    )
    with pytest.raises(ConfigError, match=message):
        train("probfuse", QRELS, RUNS, n_segments=10**9)
    with pytest.raises(ConfigError, match=message):
        fuse(RUNS, "probfuse", qrels=QRELS, n_segments=10**9)
    # Every count from the deepest run up fuses alike: the most accepted fuses as ranx trained with more.
    for norm in ["min-max", None]:
        expected = ranx_peer().fuse(RUNS, "probfuse", {"probs": ranx_peer().train("probfuse", QRELS, RUNS, 7)}, norm)
        assert_same(as_lists(fuse(RUNS, "probfuse", norm=norm, qrels=QRELS, n_segments=2)), expected, str(norm))
    # borda lists every candidate in every run: there, fusing reads segments up to the query's candidates.
    assert len(fuse(RUNS + [{"q": {"c": 1.0}}], "probfuse", norm="borda", qrels=QRELS, n_segments=3)) == 3
    with pytest.raises(ConfigError, match=r"n_segments=4 is more segments .* \(3\)"):
        fuse(RUNS + [{"q": {"c": 1.0}}], "probfuse", norm="borda", qrels=QRELS, n_segments=4)
