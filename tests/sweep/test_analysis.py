"""A whole sweep: parameters, effects and Pareto front joined to the leaderboard."""

from __future__ import annotations

import pandas as pd
import pytest

from retrieval_eval.errors import ConfigError
from retrieval_eval.sweep.analysis import sweep

from .test_leaderboard import FAST, qrels, run


def _setup():
    runs = {
        f"k{k}_{mode}": run(good=good, seed=k)
        for k, mode, good in [(5, "a", 0.3), (10, "a", 0.6), (5, "b", 0.5), (10, "b", 0.9)]
    }
    parameters = pd.DataFrame(
        {"top_k": [5, 10, 5, 10], "mode": ["a", "a", "b", "b"], "latency_ms": [10.0, 20.0, 30.0, 40.0]},
        index=pd.Index(list(runs), name="configuration"),
    )
    return runs, parameters


def test_a_sweep_joins_parameters_effects_and_the_pareto_front(tmp_path):
    runs, parameters = _setup()
    result = sweep(qrels(), runs, ["ndcg@5"], parameters=parameters, costs=["latency_ms"], **FAST)
    table = result.table
    assert table.index[0] == "k10_b" and table.loc["k10_b", "top_k"] == 10
    assert table.loc["k5_a", "pareto"]  # the cheapest is never dominated
    assert set(result.effects["parameter"]) == {"top_k", "mode"}  # costs are not parameters
    effects = result.effects.set_index(["parameter", "value"])["mean"]
    assert effects[("top_k", 10)] == pytest.approx(table.loc[["k10_a", "k10_b"], "ndcg@5"].mean())
    result.write(tmp_path / "leaderboard.parquet")
    assert pd.read_parquet(tmp_path / "leaderboard.parquet")["configuration"].tolist() == list(table.index)


def test_a_missing_cost_column_names_it_and_the_columns_found():
    runs, parameters = _setup()
    with pytest.raises(ConfigError, match="cost 'price' is not a column of the parameters; their columns are top_k, mode, latency_ms"):
        sweep(qrels(), runs, ["ndcg@5"], parameters=parameters, costs=["price"], **FAST)


def test_without_parameters_only_the_leaderboard():
    runs, _ = _setup()
    result = sweep(qrels(), runs, ["ndcg@5"], **FAST)
    assert result.effects is None and result.pareto is None and len(result.table) == 4


def test_identical_configurations_rank_the_cheapest_first_and_it_is_on_the_front():
    same = run(good=0.7, seed=3)
    runs = {"k100": same, "k20": same.copy(), "k5": run(good=0.2, seed=4)}
    parameters = pd.DataFrame({"top_k": [100, 20, 5], "latency_ms": [50.0, 12.0, 3.0]},
                              index=pd.Index(list(runs), name="configuration"))  # fmt: skip
    result = sweep(qrels(), runs, ["ndcg@5"], parameters=parameters, costs=["latency_ms"], **FAST)
    table = result.table
    assert list(table.index) == ["k20", "k100", "k5"]  # k20 as cheap as it is good; text order would put k100 first
    assert table.loc["k20", "pareto"] and not table.loc["k100", "pareto"]
    assert ("ranks 1-2 (k20, k100) are identical on every query compared on ndcg@5: ordered by cost, then by name"
            in result.leaderboard.notes)
