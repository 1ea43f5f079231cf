"""Marginal effects and the Pareto front, against brute-force definitions."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.sweep.effects import marginal_effects, pareto_front


def grid() -> pd.DataFrame:
    rows = [
        {"top_k": k, "chunk": c, "ndcg": 0.1 * k / 10 + (0.05 if c == 256 else 0.0), "latency_ms": k * 2 + c / 64}
        for k, c in itertools.product([5, 10, 20], [256, 512])
    ]
    return pd.DataFrame(rows)


def test_marginal_effects_average_over_the_other_parameters():
    effects = marginal_effects(grid(), ["top_k", "chunk"], "ndcg").set_index(["parameter", "value"])
    assert effects.loc[("top_k", 10), "mean"] == pytest.approx((0.1 + 0.05 + 0.1) / 2)
    assert effects.loc[("chunk", 256), "mean"] - effects.loc[("chunk", 512), "mean"] == pytest.approx(0.05)
    assert effects.loc[("chunk", 256), "configurations"] == 3
    assert effects["delta"].groupby(level="parameter").apply(lambda d: d.mean()).abs().max() == pytest.approx(0.0)


def _dominated_brute_force(goal: list[float], costs: list[list[float]]) -> list[bool]:
    n = len(goal)
    out = []
    for i in range(n):
        out.append(
            any(
                goal[j] >= goal[i]
                and all(c[j] <= c[i] for c in costs)
                and (goal[j] > goal[i] or any(c[j] < c[i] for c in costs))
                for j in range(n)
            )
        )
    return out


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=12))
def test_pareto_front_is_the_undominated_configurations(rows):
    frame = pd.DataFrame(rows, columns=["ndcg", "latency_ms", "tokens"]).astype(float)
    front = pareto_front(frame, "ndcg", ["latency_ms", "tokens"])
    dominated = _dominated_brute_force(frame["ndcg"].tolist(), [frame["latency_ms"].tolist(), frame["tokens"].tolist()])
    assert front.tolist() == [not d for d in dominated]
    assert front.any()  # the best on the objective among the cheapest is never dominated


def test_a_lower_is_better_objective():
    frame = pd.DataFrame({"holes": [0.1, 0.2, 0.3], "latency_ms": [30.0, 20.0, 25.0]})
    assert pareto_front(frame, "holes", ["latency_ms"], higher_is_better=False).tolist() == [True, True, False]


def test_a_missing_column_names_it_and_the_columns_found():
    with pytest.raises(ConfigError, match="no column 'price'; the columns are top_k, chunk, ndcg, latency_ms"):
        pareto_front(grid(), "ndcg", ["price"])
    with pytest.raises(ConfigError, match="no column 'rerank'"):
        marginal_effects(grid(), ["rerank"], "ndcg")
    with pytest.raises(ConfigError, match="at least one cost column"):
        pareto_front(grid(), "ndcg", [])
    with pytest.raises(ConfigError, match="^the objective 'ndcg' must not be missing"):
        pareto_front(grid().assign(ndcg=np.nan), "ndcg", ["latency_ms"])


@pytest.mark.parametrize(
    ("bad", "message"),
    [(np.nan, "the cost of configuration 3 must be a finite number, got nan"),
     (np.inf, "the cost of configuration 3 must be a finite number, got inf"),
     (-np.inf, "the cost of configuration 3 must be a finite number, got -inf"),
     ("fast", "the cost of configuration 3 must be a finite number, got 'fast'"),
     (True, "the cost of configuration 3 must be a finite number, got True"),
     (None, "configuration 3 has no cost 'latency_ms'")],
    ids=repr,
)  # fmt: skip
def test_a_cost_that_is_no_finite_number_names_the_configuration_and_column(bad, message):
    table = grid().astype({"latency_ms": object})
    table.loc[3, "latency_ms"] = bad
    with pytest.raises(InputError) as raised:
        pareto_front(table, "ndcg", ["latency_ms"])
    assert str(raised.value) == f"configurations, field 'latency_ms': {message}"
