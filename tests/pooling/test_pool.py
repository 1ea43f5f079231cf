"""The pool against a brute-force oracle written from the definition, and the proof that a judged pool has no holes."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import evaluate
from retrieval_eval.errors import ConfigError, DuplicateError, InputError
from retrieval_eval.metrics.options import EvaluationOptions
from retrieval_eval.pooling import merge_qrels, pool

QUERIES = ["1", "10", "2"]  # as strings "10" sorts before "2"
DOCS = ["a", "b", "ab", "B", "c", "d10", "d9"]


def oracle_pool(runs: dict[str, list[tuple[str, str, float]]], depth: int, judged: set, ties: str) -> list[tuple]:
    """Plain Python: rank each run's query by score descending, ties by doc id descending (bytes) or input order."""
    found: dict[tuple[str, str], dict] = {}
    for name, rows in runs.items():
        for query in {q for q, _, _ in rows}:
            docs = [(d, s, i) for i, (q, d, s) in enumerate(rows) if q == query]
            if ties == "docid":
                ranked = sorted(docs, key=lambda t: (t[1], t[0].encode()), reverse=True)
            else:
                ranked = sorted(docs, key=lambda t: (-t[1], t[2]))
            for rank, (doc, _, _) in enumerate(ranked[:depth], start=1):
                if (query, doc) in judged:
                    continue
                entry = found.setdefault((query, doc), {"runs": [], "best": rank})
                entry["runs"].append(name)
                entry["best"] = min(entry["best"], rank)
    return [(q, d, tuple(e["runs"]), e["best"], len(e["runs"]))
            for (q, d), e in sorted(found.items(), key=lambda item: (item[0][0].encode(), item[0][1].encode()))]


def as_tuples(frame: pd.DataFrame) -> list[tuple]:
    assert list(frame.columns) == ["query_id", "doc_id", "runs", "best_rank", "n_runs"]
    return [(q, d, tuple(r), int(b), int(n)) for q, d, r, b, n in frame.itertuples(index=False)]


def frame(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


@st.composite
def one_run(draw) -> list[tuple[str, str, float]]:
    """Distinct documents per query (a run lists a document once), scores from a few values (many ties)."""
    pairs = draw(st.lists(st.tuples(st.sampled_from(QUERIES), st.sampled_from(DOCS)), min_size=1, max_size=20, unique=True))
    return [(q, d, draw(st.sampled_from([0.0, 1.0, 2.5, -1.0]))) for q, d in pairs]


runs_strategy = st.dictionaries(st.sampled_from(["bm25", "dense", "hybrid"]), one_run(), min_size=1, max_size=3)
judged_strategy = st.lists(st.tuples(st.sampled_from(QUERIES), st.sampled_from(DOCS), st.integers(0, 3)), max_size=10,
                           unique_by=lambda t: t[:2])


@given(runs=runs_strategy, depth=st.integers(1, 8), judged=judged_strategy, ties=st.sampled_from(["docid", "input"]))
def test_pool_is_the_oracles(runs, depth, judged, ties):
    qrels = pd.DataFrame(judged, columns=["query_id", "doc_id", "relevance"]) if judged else None
    pooled = pool({name: frame(rows) for name, rows in runs.items()}, depth, qrels=qrels,
                  options=EvaluationOptions(ties=ties))
    # Every judged pair is left out whatever its label (0 included).
    assert as_tuples(pooled) == oracle_pool(runs, depth, {(q, d) for q, d, _ in judged}, ties)


def test_trec_eval_order_by_default_and_queries_as_strings():
    run = frame([("2", "a", 1.0), ("10", "b", 1.0), ("10", "c", 1.0), ("10", "a", 0.5)])
    pooled = pool({"r": run}, 2)
    # Ties by doc id descending: c (rank 1) and b (rank 2) fill depth 2, a (rank 3) is out; query "10" before "2".
    assert as_tuples(pooled) == [("10", "b", ("r",), 2, 1), ("10", "c", ("r",), 1, 1), ("2", "a", ("r",), 1, 1)]


def test_repeated_document_raises_by_default_and_a_policy_chooses_its_score():
    run = frame([("1", "a", 1.0), ("1", "b", 2.0), ("1", "a", 3.0)])
    with pytest.raises(DuplicateError, match="row 3.*'a' of query '1' is retrieved more than once"):
        pool({"r": run}, 1)
    assert as_tuples(pool({"r": run}, 1, options=EvaluationOptions(run_duplicates="max"))) == [("1", "a", ("r",), 1, 1)]
    assert as_tuples(pool({"r": run}, 1, options=EvaluationOptions(run_duplicates="first"))) == [("1", "b", ("r",), 1, 1)]


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3"])
def test_depth_must_be_a_positive_integer(bad):
    with pytest.raises(ConfigError, match="depth must be a positive integer"):
        pool({"r": frame([("1", "a", 1.0)])}, bad)


def test_ranx_ties_and_repeated_names_are_refused():
    run = frame([("1", "a", 1.0)])
    with pytest.raises(ConfigError, match="a pool ranks ties by"):
        pool({"r": run}, 1, options=EvaluationOptions(ties="ranx"))
    with pytest.raises(ConfigError, match="distinct names"):
        pool([run, run], 1)


@pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")  # judgments of other queries only
@settings(max_examples=15)
@given(runs=runs_strategy, depth=st.integers(1, 6), judged=judged_strategy, labels=st.lists(st.integers(0, 2), min_size=60, max_size=60),
       ties=st.sampled_from(["docid", "input"]))
def test_a_judged_and_merged_pool_leaves_no_hole_in_any_pooled_run(runs, depth, judged, labels, ties):
    """The issue's proof. holes@K belongs to the document-retrieval family, whose own tie rule is input order,
    while a pool ranks by trec_eval's by default: the evaluation is given the pool's tie order so that both
    rank alike (under another order a tie at rank K could put an unpooled document in the top K)."""
    old = pd.DataFrame(judged or [("1", "zz", 1)], columns=["query_id", "doc_id", "relevance"])
    frames = {name: frame(rows) for name, rows in runs.items()}
    pooled = pool(frames, depth, qrels=old, options=EvaluationOptions(ties=ties))
    assessed = pooled[["query_id", "doc_id"]].assign(relevance=[labels[i % len(labels)] for i in range(len(pooled))])
    if len(pooled):
        merged, conflicts = merge_qrels(old, assessed)  # the pool holds no judged pair: no conflict is possible
        assert conflicts.empty and len(merged) == len(old) + len(pooled)
    else:
        merged = old
    for name, run in frames.items():
        result = evaluate(merged, run, [f"holes@{depth}"], ties=ties, query_set="union")
        assert list(result.values(f"holes@{depth}")) == [0.0] * len(result.query_ids), name
        assert set(run["query_id"]) <= set(result.query_ids.to_pylist())
        # and before the merge, the same run has holes wherever the pool took a document of its top K
        before = evaluate(old, run, [f"holes@{depth}"], ties=ties, query_set="union")
        has_pooled = set(pooled.loc[pooled["runs"].map(lambda r: name in r), "query_id"])
        assert {q for q, v in zip(before.query_ids.to_pylist(), before.values(f"holes@{depth}")) if v > 0} == has_pooled


def test_integer_ids_are_ordered_by_their_decimal_text_and_kinds_must_agree():
    run = pd.DataFrame({"query_id": [2, 10, 10], "doc_id": [7, 9, 10], "score": [1.0, 1.0, 1.0]})
    # Ties by doc id descending as text: "9" > "10", so 9 ranks first; rows: query "10" before "2", doc "10" before "9".
    assert as_tuples(pool({"r": run}, 1)) == [(10, 9, ("r",), 1, 1), (2, 7, ("r",), 1, 1)]
    assert as_tuples(pool({"r": run}, 2)) == [(10, 10, ("r",), 2, 1), (10, 9, ("r",), 1, 1), (2, 7, ("r",), 1, 1)]
    with pytest.raises(InputError, match="query_ids are strings in run .s. \\(<DataFrame>\\) but integers in run .r."):
        pool({"r": run, "s": frame([("1", "a", 1.0)])}, 1)


def deduplicated(rows: list[tuple[str, str, float]], policy: str) -> list[tuple[str, str, float]]:
    """A repeated document once, at its first row, with the score ``policy`` chooses among its rows."""
    scores: dict[tuple[str, str], list[float]] = {}
    for q, d, s in rows:
        scores.setdefault((q, d), []).append(s)
    choose = {"first": lambda v: v[0], "last": lambda v: v[-1], "max": max}[policy]
    return [(q, d, choose(v)) for (q, d), v in scores.items()]  # dicts keep first-appearance order


@given(runs=st.dictionaries(st.sampled_from(["x", "y"]), st.lists(
           st.tuples(st.sampled_from(QUERIES), st.sampled_from(DOCS[:4]), st.sampled_from([0.0, 1.0, 2.0])), min_size=1, max_size=15),
           min_size=1, max_size=2),
       depth=st.integers(1, 4), ties=st.sampled_from(["docid", "input"]), policy=st.sampled_from(["first", "last", "max"]))
def test_repeated_documents_rank_by_the_policys_score_at_their_first_position(runs, depth, ties, policy):
    pooled = pool({name: frame(rows) for name, rows in runs.items()}, depth,
                  options=EvaluationOptions(ties=ties, run_duplicates=policy))
    expected = oracle_pool({name: deduplicated(rows, policy) for name, rows in runs.items()}, depth, set(), ties)
    assert as_tuples(pooled) == expected


def test_one_run_not_in_a_list_and_judged_only_are_refused():
    run = frame([("1", "a", 1.0)])
    with pytest.raises(ConfigError, match="got one DataFrame: give \\[run\\]"):
        pool(run, 1)
    with pytest.raises(ConfigError, match="judged_only"):
        pool([run], 1, options=EvaluationOptions(judged_only=True))


def test_one_file_under_two_spellings_is_refused(tmp_path, monkeypatch):
    # run.trec and its absolute path (or a link to it) were pooled as two runs (issue 27, item 19).
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run.trec").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    (tmp_path / "link.trec").symlink_to(tmp_path / "run.trec")
    (tmp_path / "other.trec").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")  # the same bytes, another file: a run of its own
    for other in (str(tmp_path / "run.trec"), "link.trec", f"../{tmp_path.name}/run.trec"):
        with pytest.raises(ConfigError, match=rf"^runs must be distinct files, 'run.trec' and '{other}' are the same file$"):
            pool(["run.trec", other], 1)
        with pytest.raises(ConfigError, match="are the same file"):
            pool({"a": "run.trec", "b": other}, 1)
    assert [list(runs) for runs in pool(["run.trec", "other.trec"], 1)["runs"]] == [["run.trec", "other.trec"]]
