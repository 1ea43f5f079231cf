"""The registry and the name grammar."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import REGISTRY, ConfigError, Metric, UnknownMetricError
from tests.strategies import example_metric

DEFINITIONS = list(REGISTRY)


def test_names_are_unique_and_documented():
    keys = [(d.name, d.cutoff) for d in DEFINITIONS]
    assert len(keys) == len(set(keys))
    for definition in DEFINITIONS:
        assert definition.definition.strip(), definition.name
        assert definition.name == definition.name.lower()


@given(definition=st.sampled_from(DEFINITIONS), k=st.integers(1, 10_000))
def test_names_round_trip(definition, k):
    metric = example_metric(definition, k)
    assert REGISTRY.parse(str(metric)) == metric
    assert REGISTRY.parse(str(metric).upper()) == metric


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ndcg_exp@10", Metric("ndcg_exp", 10)),
        ("top3_max_relevance", Metric("max_relevance", 3)),
        ("top10_max_relevance", Metric("max_relevance", 10)),
        ("holes", Metric("holes")),
        ("holes@5", Metric("holes", 5)),
        (" fidelity ", Metric("fidelity")),
    ],
)
def test_parse_examples(text, expected):
    assert REGISTRY.parse(text) == expected


@given(definition=st.sampled_from(DEFINITIONS), k=st.integers(1, 10_000))
def test_every_spelling_of_a_metric_parses_back_to_it(definition, k):
    metric = example_metric(definition, k)
    spellings = REGISTRY.spellings(metric)
    assert spellings[0] == str(REGISTRY.parse(str(metric))) and len(set(spellings)) == len(spellings)
    assert all(REGISTRY.parse(spelling) == REGISTRY.parse(str(metric)) for spelling in spellings)


@pytest.mark.parametrize(
    ("text", "spellings"),
    [
        ("holes", ["holes"]),  # no alias: the name it was asked by is its only one
        ("ndcg_cut.10", ["ndcg@10", "ndcg_cut_10", "ndcg_cut.10"]),
        ("top3_max_relevance", ["max_relevance@3", "top3_max_relevance"]),
        ("rprec_mult_2", ["rprec_mult(mult=2.0)", "rprec_mult_2.0"]),
        ("map", ["map", "ap"]),
    ],
)
def test_spellings_write_each_alias_out_with_the_cutoff_and_parameters(text, spellings):
    assert REGISTRY.spellings(REGISTRY.parse(text)) == spellings


def test_default_cutoff_applies_only_to_cutoff_metrics():
    assert REGISTRY.parse("xdcg", default_k=7) == Metric("xdcg", 7)
    assert REGISTRY.parse("holes", default_k=7) == Metric("holes")
    with pytest.raises(ConfigError, match="needs a cutoff"):
        REGISTRY.parse("xdcg")


def test_unknown_names_suggest_the_closest():
    with pytest.raises(UnknownMetricError, match="ndcg_exp") as raised:
        REGISTRY.parse("ndcg_ex@10")
    assert isinstance(raised.value, ValueError)
    with pytest.raises(UnknownMetricError, match="fidelity"):
        REGISTRY.parse("fidelty")


@pytest.mark.parametrize("text", ["ndcg_exp@0", "ndcg_exp@-1", "ndcg_exp@x", "ndcg_exp@1.5"])
def test_bad_cutoffs(text):
    with pytest.raises(ConfigError, match="positive integer"):
        REGISTRY.parse(text)


@pytest.mark.parametrize("text", ["fidelity@3", "ndcg_exp(rel=2)@3", "", "@3", "ndcg exp@3"])
def test_malformed_names(text):
    with pytest.raises(ConfigError):
        REGISTRY.parse(text)


def test_the_manual_documents_every_metric():
    from pathlib import Path

    # The measures page is generated from the registry (docs/generate.py; tests/docs checks it is current).
    page = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "measures.md").read_text(encoding="utf-8")
    for definition in DEFINITIONS:
        assert f"`{definition.display_name}`" in page, definition.display_name
