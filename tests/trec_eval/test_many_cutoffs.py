"""Thousands of measures on one command line cost what they print, not their number squared."""

from __future__ import annotations

from pathlib import Path

from retrieval_eval import evaluate
from retrieval_eval.metrics.names import Metric
from tests.trec_eval.differential import assert_same

DATA = Path(__file__).resolve().parents[2] / "data"


def test_ten_thousand_precision_cutoffs_are_trec_evals_bytes(trec_eval_binary):
    cutoffs = ",".join(str(k) for k in range(1, 10_001))
    assert_same(trec_eval_binary, ["-q", "-m", f"P.{cutoffs}"], DATA / "qrels.trec", DATA / "run.trec")


def test_looking_up_each_of_n_metrics_renders_a_number_of_names_linear_in_n(monkeypatch):
    # Each lookup once rendered every evaluated metric's name: -m P.1,...,10000 took minutes.
    metrics = [f"P@{k}" for k in range(1, 2_001)]
    result = evaluate(DATA / "qrels.trec", DATA / "run.trec", metrics)
    rendered = 0
    plain_str = Metric.__str__

    def counting_str(metric: Metric) -> str:
        nonlocal rendered
        rendered += 1
        return plain_str(metric)

    monkeypatch.setattr(Metric, "__str__", counting_str)
    by_metric = [result.values(metric) for metric in result.columns]
    by_name = [result.values(name) for name in metrics]
    assert all(a is b for a, b in zip(by_metric, by_name))
    assert rendered <= 2 * len(metrics)
