"""Ranking agreement: Kendall's tau-b against scipy, tau_AP and RBO against the papers' definitions
(tests/reference/rank_correlation.py), the pairs' t-tests against scipy's ttest_rel and Holm's
definition; a judge that agrees, one that reverses the order; and one-line errors."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from retrieval_eval import evaluate
from retrieval_eval.data import Run
from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.judging.ranking_agreement import kendall_tau_b, ranking_agreement, rbo_ext, tau_ap
from retrieval_eval.metrics.options import EvaluationOptions
from tests.reference import rank_correlation as reference

QUERIES = [f"q{index:02d}" for index in range(12)]


def _qrels(relevant: dict[str, list[str]]) -> pd.DataFrame:
    """Every query judges d0..d5: the docs of ``relevant[query]`` 1 (or 2 for the first), the others 0."""
    rows = []
    for query in QUERIES:
        for doc in (f"d{index}" for index in range(6)):
            chosen = relevant[query]
            rows.append((query, doc, 0 if doc not in chosen else (2 if doc == chosen[0] else 1)))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def _run(seed: int) -> pd.DataFrame:
    """Six documents per query in an order of their own."""
    rng = np.random.default_rng(seed)
    rows = [(query, f"d{doc}", float(6 - rank)) for query in QUERIES for rank, doc in enumerate(rng.permutation(6))]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


HUMAN = _qrels({query: ["d0", "d1"] for query in QUERIES})
RUNS = {f"run{seed}": _run(seed) for seed in range(5)}


def _ranking(means: dict[str, float]) -> list[str]:
    return sorted(means, key=lambda name: (-means[name], name))


def test_every_statistic_is_its_oracle():
    judge = _qrels({query: ["d0", "d2"] if index % 3 else ["d3"] for index, query in enumerate(QUERIES)})
    agreement = ranking_agreement(HUMAN, judge, RUNS, "ndcg@5", alpha=0.2)
    per_query = {}
    for side, qrels in (("human", HUMAN), ("judge", judge)):
        per_query[side] = {name: evaluate(qrels, run, ["ndcg@5"], query_set="qrels").values("ndcg@5") for name, run in RUNS.items()}
    means = {side: {name: float(np.mean(values)) for name, values in runs.items()} for side, runs in per_query.items()}
    frame = agreement.rankings
    human_order, judge_order = _ranking(means["human"]), _ranking(means["judge"])
    assert frame["run"].tolist() == human_order and agreement.n_queries == len(QUERIES)
    assert frame["mean_human"].tolist() == pytest.approx([means["human"][name] for name in human_order], abs=1e-12)
    assert frame["mean_judge"].tolist() == pytest.approx([means["judge"][name] for name in human_order], abs=1e-12)
    assert frame["rank_human"].tolist() == list(range(1, 6))
    assert frame["rank_judge"].tolist() == [judge_order.index(name) + 1 for name in human_order]
    names = list(RUNS)
    tau = stats.kendalltau([means["human"][n] for n in names], [means["judge"][n] for n in names]).statistic
    assert agreement.kendall_tau == pytest.approx(tau, abs=1e-12)
    assert agreement.tau_ap == pytest.approx(reference.tau_ap(human_order, judge_order), abs=1e-12)
    assert agreement.tau_ap_reverse == pytest.approx(reference.tau_ap(judge_order, human_order), abs=1e-12)
    assert agreement.tau_ap_symmetric == pytest.approx((agreement.tau_ap + agreement.tau_ap_reverse) / 2)
    assert agreement.rbo == pytest.approx(reference.rbo_ext(human_order, judge_order, 0.9), abs=1e-12)
    pairs = agreement.pairs
    assert list(zip(pairs["a"], pairs["b"])) == list(combinations(human_order, 2))
    for side in ("human", "judge"):
        p = [stats.ttest_rel(per_query[side][a], per_query[side][b]).pvalue for a, b in zip(pairs["a"], pairs["b"])]
        assert pairs[f"p_{side}"].tolist() == pytest.approx(np.nan_to_num(p, nan=1.0).tolist(), abs=1e-12)
        assert pairs[f"p_{side}_holm"].tolist() == pytest.approx(_holm(pairs[f"p_{side}"].tolist()), abs=1e-15)
        difference = [means[side][a] - means[side][b] for a, b in zip(pairs["a"], pairs["b"])]
        assert pairs[f"difference_{side}"].tolist() == pytest.approx(difference, abs=1e-12)
        verdict = ["not significant" if q > 0.2 else ("a better" if d > 0 else "b better")
                   for q, d in zip(pairs[f"p_{side}_holm"], difference)]  # fmt: skip
        assert pairs[f"verdict_{side}"].tolist() == verdict
    swapped = [(a, b) for a, b in combinations(human_order, 2)
               if (means["human"][a] - means["human"][b]) * (means["judge"][a] - means["judge"][b]) < 0]  # fmt: skip
    assert list(zip(agreement.swapped["a"], agreement.swapped["b"])) == swapped and swapped
    flipped = pairs["verdict_human"] != pairs["verdict_judge"]
    assert agreement.flips[["a", "b"]].values.tolist() == pairs.loc[flipped, ["a", "b"]].values.tolist()


def _holm(p: list[float]) -> list[float]:
    """Holm's step-down adjustment from its definition: the i-th smallest times (m - i + 1), never below an earlier one, at most 1."""
    order = sorted(range(len(p)), key=lambda index: p[index])
    adjusted, running = [0.0] * len(p), 0.0
    for position, index in enumerate(order):
        running = max(running, min(1.0, (len(p) - position) * p[index]))
        adjusted[index] = running
    return adjusted


def test_a_judge_that_agrees_agrees_everywhere():
    runs = [Run.read(run, name=name) for name, run in RUNS.items()]  # a list: each run under its own name
    agreement = ranking_agreement(HUMAN, HUMAN.iloc[::-1], runs)
    assert sorted(agreement.rankings["run"]) == sorted(RUNS)
    assert agreement.kendall_tau == agreement.tau_ap == agreement.tau_ap_reverse == 1.0
    assert agreement.rbo == pytest.approx(1.0, abs=1e-15)
    assert agreement.swapped.empty and agreement.flips.empty
    assert agreement.rankings["rank_human"].tolist() == agreement.rankings["rank_judge"].tolist()


def test_a_judge_that_reverses_the_order_swaps_and_flips_every_pair():
    # Run k puts d0 (the human's relevant document) at rank k + 1 and d5 (the judge's) at rank 6 - k, in every query.
    runs = {}
    for k in range(4):
        order = [f"d{index}" for index in range(1, 5)]
        order.insert(k, "d0")
        order.insert(len(order) - k, "d5")
        runs[f"k{k}"] = pd.DataFrame([(q, doc, 10.0 - r) for q in QUERIES for r, doc in enumerate(order)],
                                     columns=["query_id", "doc_id", "score"])
    human, judge = _qrels({q: ["d0"] for q in QUERIES}), _qrels({q: ["d5"] for q in QUERIES})
    agreement = ranking_agreement(human, judge, runs, "ndcg@6", rbo_p=0.5)
    assert agreement.rankings["run"].tolist() == ["k0", "k1", "k2", "k3"]
    assert agreement.rankings["rank_judge"].tolist() == [4, 3, 2, 1]
    assert agreement.kendall_tau == agreement.tau_ap == agreement.tau_ap_reverse == -1.0
    assert agreement.rbo == pytest.approx(reference.rbo_ext(["k0", "k1", "k2", "k3"], ["k3", "k2", "k1", "k0"], 0.5), abs=1e-15)
    # The same difference in every query: t = +-inf, p = 0, significant both ways round.
    assert agreement.pairs["swapped"].all() and len(agreement.flips) == 6
    assert set(agreement.flips["verdict_human"]) == {"a better"} and set(agreement.flips["verdict_judge"]) == {"b better"}


def test_ranks_follow_a_lower_is_better_metric():
    runs = {"few_holes": _run(1), "many_holes": _run(1).iloc[:30]}
    agreement = ranking_agreement(HUMAN, HUMAN, runs, "holes@6")
    assert not agreement.higher_is_better and agreement.rankings["run"].tolist() == ["few_holes", "many_holes"]


@given(st.permutations(list("abcdefgh")), st.floats(0.05, 0.95))
def test_tau_ap_and_rbo_are_the_papers_definitions(order, p):
    reference_order = list("abcdefgh")
    ranks = np.array([order.index(item) + 1 for item in reference_order])
    reference_ranks = np.arange(1, 9)
    assert tau_ap(reference_ranks, ranks) == pytest.approx(reference.tau_ap(reference_order, order), abs=1e-12)
    assert rbo_ext(reference_ranks, ranks, p) == pytest.approx(reference.rbo_ext(reference_order, order, p), abs=1e-12)
    assert rbo_ext(ranks, ranks, p) == pytest.approx(1.0, abs=1e-12) and tau_ap(ranks, ranks) == 1.0


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=12))
def test_kendall_tau_b_is_scipys(values):
    x, y = (np.array(side, dtype=np.float64) for side in zip(*values))
    expected = stats.kendalltau(x, y).statistic
    assert kendall_tau_b(x, y) == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_the_dict_is_json_and_the_text_says_what_flipped():
    judge = _qrels({query: ["d3"] for query in QUERIES})
    agreement = ranking_agreement(HUMAN, judge, RUNS, "ndcg@5", alpha=0.5)
    data = json.loads(json.dumps(agreement.to_dict(), allow_nan=False))
    assert [row["run"] for row in data["rankings"]] == agreement.rankings["run"].tolist()
    assert len(data["pairs"]) == 10 and data["tau_ap_symmetric"] == pytest.approx(agreement.tau_ap_symmetric)
    text = str(agreement)
    assert text.startswith("ranking agreement on ndcg@5 over 12 queries judged by both (5 runs;")
    assert "Kendall's tau-b" in text and f"swapped pairs: {len(agreement.swapped)} of 10" in text
    assert f"significance flips (paired t-test, Holm over 10 pairs, alpha 0.5): {len(agreement.flips)}" in text


def test_only_the_queries_both_judge_are_scored():
    judge = _qrels({query: ["d0"] for query in QUERIES})
    judge = judge[judge["query_id"].isin(QUERIES[:5])]
    extra = pd.DataFrame({"query_id": ["zz"], "doc_id": ["d0"], "relevance": [1]})
    agreement = ranking_agreement(HUMAN, pd.concat([judge, extra]), RUNS, "ndcg@5")
    assert agreement.n_queries == 5
    expected = np.mean(evaluate(HUMAN[HUMAN["query_id"].isin(QUERIES[:5])], RUNS["run0"], ["ndcg@5"], query_set="qrels").values("ndcg@5"))
    assert agreement.rankings.set_index("run").loc["run0", "mean_human"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("runs", "options", "error", "message"),
    [
        ({"a": RUNS["run0"]}, {}, ConfigError, "two or more runs, got 1"),
        (RUNS["run0"], {}, ConfigError, "runs must be a list of runs or a mapping"),
        ([RUNS["run0"], RUNS["run1"]], {}, ConfigError, "distinct names, '<DataFrame>' is given more than once"),
        (RUNS, {"options": EvaluationOptions(query_set="both")}, ConfigError, "query_set is 'both'"),
        (RUNS, {"rbo_p": 1.0}, ConfigError, r"rbo_p must be a number in \(0, 1\)"),
        (RUNS, {"alpha": 0}, ConfigError, r"alpha must be a number in \(0, 1\)"),
        (RUNS, {"metric": "ndcg@5 map"}, ConfigError, "metric must be one metric name"),
        (RUNS, {"metric": ["map"]}, ConfigError, "metric must be one metric name"),
    ],
)
def test_bad_settings_fail_in_one_line(runs, options, error, message):
    with pytest.raises(error, match=message) as raised:
        ranking_agreement(HUMAN, HUMAN, runs, **options)
    assert "\n" not in str(raised.value)


def test_fewer_than_two_shared_queries_is_an_input_error():
    with pytest.raises(InputError, match=r"1 query judged by both the human qrels \(<DataFrame>, 12\) and the judge labels"):
        ranking_agreement(HUMAN, HUMAN[HUMAN["query_id"] == "q00"], RUNS)


def test_one_run_file_under_two_spellings_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    RUNS["run0"].to_csv(tmp_path / "run.csv", index=False)
    with pytest.raises(ConfigError, match=rf"^runs must be distinct files, 'run.csv' and '{tmp_path}/run.csv' are the same file$"):
        ranking_agreement(HUMAN, HUMAN, ["run.csv", str(tmp_path / "run.csv")])
