"""Hypothesis strategies for retrieval telemetry and check configurations.

The texts come from a small vocabulary, so that selectors, terms and snippets often match, with
the cases where casefolding is more than lower-casing: ``ß`` (folds to ``ss``), ``İ`` (to
``i̇``), final and capital sigma, the ``ﬁ`` ligature, the long s, and an en dash that must not
match a hyphen.
"""

from __future__ import annotations

from hypothesis import strategies as st

CAPABILITIES = ["Email", "OneDriveAndSharePoint", "People"]
WORDS = [
    "budget", "Budget", "BUDGET", "plan", "q3", "straße", "STRASSE", "ss", "ß", "İ", "i̇", "i", "Σ", "σ", "ς",
    "ﬁle", "FILE", "ſ", "5–15", "5-15", "joint check", "Ω", "",
]  # fmt: skip
STATUSES = [None, "", "success", "Success", "SUCCEEDED", "completed", "failed", "error", "partial", "ſuccess"]

words = st.sampled_from(WORDS)
texts = st.lists(words, max_size=4).map(" ".join) | st.lists(words, max_size=3).map("".join)
terms = st.sampled_from([word for word in WORDS if word])
extracts = st.lists(st.fixed_dictionaries({"text": texts}), max_size=3)
hits = st.lists(
    st.fixed_dictionaries(
        {"rank": st.integers(1, 8), "extracts": extracts},
        optional={"webUrl": st.sampled_from([None, "", "https://a", "https://b"])},
    ),
    max_size=5,
)
queries = st.lists(st.fixed_dictionaries({"queryString": st.none() | texts}), max_size=3)
executions = st.lists(
    st.fixed_dictionaries(
        {"capability": st.sampled_from(CAPABILITIES), "queries": queries, "retrievalHits": hits},
        optional={"status": st.sampled_from(STATUSES)},
    ),
    max_size=4,
)


@st.composite
def raw_form(draw) -> dict:
    """The raw Work IQ form of some executions (one query each, status lower-cased on load)."""
    raw = []
    for execution in draw(executions):
        debug = {"retrievalHits": execution["retrievalHits"]}
        if execution["queries"]:
            debug["queryString"] = execution["queries"][0]["queryString"]
        raw.append({"name": execution["capability"], "status": execution.get("status"), "debugInfo": debug})
    return {"executions": raw}


telemetry = st.one_of(
    st.none(),
    executions,
    executions.map(lambda found: {"source": "test", "retrieval_executions": found}),
    raw_form(),
)

query_options = st.fixed_dictionaries(
    {"capability": st.sampled_from(CAPABILITIES + ["GraphConnectors"]), "selector": terms},
    optional={"includes": st.lists(terms, max_size=4), "excludes": st.lists(terms, max_size=3)},
)
expected_items = st.lists(terms.map(lambda snippet: {"retrievalExtract_contains": snippet}) | terms, min_size=1, max_size=4)
result_options = st.fixed_dictionaries(
    {"capability": st.sampled_from(CAPABILITIES + ["GraphConnectors"])},
    optional={"max_rank": st.integers(1, 9), "min_expected_count": st.integers(1, 8), "expected_items": expected_items},
)
# Invalid options of each kind the checks reject: each gives the errored record.
invalid_query_options = st.sampled_from(
    [
        {"selector": "budget"},
        {"capability": "Email"},
        {"capability": "", "selector": "budget"},
        {"capability": "Email", "selector": "budget", "threshold": 1.0},
        {"capability": "Email", "selector": "budget", "includes": ["a", ""]},
        {"capability": "Email", "selector": "budget", "max_rank": 3},
        None,
    ]
)
invalid_result_options = st.sampled_from(
    [
        {"capability": "Email"},
        {"capability": "Email", "max_rank": 0, "min_expected_count": 1},
        {"capability": "Email", "min_expected_count": True},
        {"capability": "Email", "expected_items": []},
        {"capability": "Email", "expected_items": [{"webUrl": "https://a"}]},
        ["not", "an", "object"],
    ]
)


@st.composite
def evaluator_maps(draw) -> dict:
    """An evaluator map with RetrievalQuery and/or RetrievalResult, valid or not, in either order."""
    chosen = {
        "RetrievalQuery": draw(query_options | invalid_query_options),
        "RetrievalResult": draw(result_options | invalid_result_options),
    }
    names = draw(st.lists(st.sampled_from(sorted(chosen)), min_size=1, max_size=2, unique=True))
    return {name: chosen[name] for name in names}
