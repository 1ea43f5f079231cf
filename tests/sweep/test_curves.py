"""Cutoff curves equal the metric evaluated at each cutoff on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval_eval import evaluate
from retrieval_eval.errors import ConfigError
from retrieval_eval.sweep.curves import cutoff_curve

DATA = Path(__file__).resolve().parents[2] / "data"
QRELS, RUN = str(DATA / "qrels.trec"), str(DATA / "run.trec")


@pytest.mark.parametrize("metric", ["ndcg", "recall", "precision", "map", "ndcg_exp", "P(rel=2)", "ndcg_cut"])
def test_each_point_is_the_metric_at_that_cutoff(metric):
    curve = cutoff_curve(QRELS, RUN, metric, 12)
    assert curve["k"].tolist() == list(range(1, 13))
    base = metric.split("@")[0]
    for k, mean in zip(curve["k"], curve["mean"]):
        assert mean == evaluate(QRELS, RUN, [f"{base}@{k}"]).summary["mean"].iloc[0]


def test_a_metric_that_grows_with_k_gives_a_rising_curve():
    means = cutoff_curve(QRELS, RUN, "recall", 30)["mean"].tolist()
    assert means == sorted(means) and means[-1] > means[0]


def test_bad_input():
    with pytest.raises(ConfigError, match="fidelity takes no cutoff"):
        cutoff_curve(QRELS, RUN, "fidelity", 5)
    with pytest.raises(ConfigError, match="max_k must be a positive integer"):
        cutoff_curve(QRELS, RUN, "ndcg", 0)


@pytest.mark.parametrize("metric", ["ndcg@5", "P_5", "ndcg_cut.10", "P(rel=2)@5", "top3_max_relevance"])
def test_a_name_with_its_own_cutoff_is_refused_not_ignored(metric):
    # Once its @5 was dropped silently: the curve was of every k all the same.
    with pytest.raises(ConfigError, match="without a cutoff"):
        cutoff_curve(QRELS, RUN, metric, 10)
