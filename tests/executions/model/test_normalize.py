"""Loading retrieval executions: the raw Work IQ form (spec 4.1), the normalized form, bare lists, the loader rules (5)."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import InputError
from retrieval_eval.executions import RetrievalTelemetry, contains, load_executions, normalize_executions

from ..fixtures import GUIDEBOOK, ODSP, example_telemetry

RAW = {
    "executions": [
        {
            "name": ODSP,
            "status": "Success",
            "debugInfo": {
                "queryString": "mortgage joint check",
                "filterExpression": "path:x",
                "maximumNumberOfResults": 25,
                "totalResultCount": 2,
                "latencyMs": 412,
                "retrievalHits": [
                    {
                        "webUrl": GUIDEBOOK,
                        "rank": 1,
                        "extracts": [{"text": "Joint Check", "relevanceScore": 0.9}],
                        "resourceMetadata": {"title": "Guidebook"},
                    },
                    {"rank": 2, "extracts": [{"text": "no score"}, {"relevanceScore": 0.1}, "junk"], "resourceMetadata": "?"},
                ],
            },
        }
    ]
}


def test_the_raw_form_is_normalized_as_upstream_does():
    telemetry = load_executions(RAW)
    (execution,) = telemetry.retrieval_executions
    assert execution.capability == ODSP and execution.status == "success"
    assert [q.model_dump() for q in execution.queries] == [
        {"queryString": "mortgage joint check", "filterExpression": "path:x", "maximumNumberOfResults": 25}
    ]
    assert execution.latencyMs == 412 and execution.totalResultCount == 2
    first, second = execution.retrievalHits
    assert (first.rank, first.webUrl, first.resourceMetadata) == (1, GUIDEBOOK, {"title": "Guidebook"})
    assert [(e.text, e.relevanceScore) for e in first.extracts] == [("Joint Check", 0.9)]
    # A missing webUrl becomes "", extracts without string text are dropped, non-object metadata becomes None.
    assert (second.webUrl, [e.text for e in second.extracts], second.resourceMetadata) == ("", ["no score"], None)
    assert execution.model_extra["raw_debugInfo"] == RAW["executions"][0]["debugInfo"]
    assert telemetry.raw_artifact == RAW


def test_raw_defaults_missing_status_query_string_and_debug_info():
    telemetry = load_executions({"executions": [{"name": "Email", "status": 3}, {"name": "People", "debugInfo": None}]})
    email, people = telemetry.retrieval_executions
    assert email.status == people.status == "success"
    assert email.queries[0].queryString == "" and email.queries[0].filterExpression is None
    assert email.retrievalHits == [] and email.latencyMs is None


@pytest.mark.parametrize("name", [None, "", 7])
def test_raw_executions_without_a_name_are_dropped(name):
    telemetry = load_executions({"executions": [{"name": name, "debugInfo": {}}, {"name": "Email"}]})
    assert [e.capability for e in telemetry.retrieval_executions] == ["Email"]


def test_the_normalized_form_loads_unchanged_with_its_extras():
    data = example_telemetry()
    telemetry = load_executions(data)
    assert telemetry.source == "example-fixture"
    assert telemetry.model_dump(exclude_unset=True) == data
    assert telemetry.retrieval_executions[0].executionId == "exec-1"
    assert telemetry.retrieval_executions[1].queries[0].filterExpression.startswith("path:")


def test_a_bare_list_is_the_executions_and_may_hold_raw_records():
    data = example_telemetry()["retrieval_executions"] + [{"name": "People", "debugInfo": {"queryString": "who"}}]
    telemetry = load_executions(data)
    assert [e.capability for e in telemetry.retrieval_executions] == [ODSP, ODSP, "Email", "People"]
    assert telemetry.retrieval_executions[-1].queries[0].queryString == "who"


def test_unknown_fields_are_kept_at_every_level():
    data = [{"capability": "Email", "x": 1, "queries": [{"queryString": "q", "y": 2}],
             "retrievalHits": [{"rank": 1, "sensitivityLabel": "General", "extracts": [{"text": "t", "z": 3}]}]}]  # fmt: skip
    assert load_executions(data).model_dump(exclude_unset=True)["retrieval_executions"] == data


@pytest.mark.parametrize("rank", ["1", 1.0, True, False, None, [1]])
def test_hits_without_an_integer_rank_are_ignored(rank):
    for data in ([{"capability": "Email", "retrievalHits": [{"rank": rank}, {"rank": 2}]}],
                 {"executions": [{"name": "Email", "debugInfo": {"retrievalHits": [{"rank": rank}, {"rank": 2}]}}]}):  # fmt: skip
        assert [h.rank for h in load_executions(data).retrieval_executions[0].retrievalHits] == [2]


def test_non_object_hits_are_ignored_and_a_missing_rank_too():
    data = [{"capability": "Email", "retrievalHits": ["x", None, {"webUrl": "u"}, {"rank": 1}]}]
    assert len(load_executions(data).retrieval_executions[0].retrievalHits) == 1


@pytest.mark.parametrize(("data", "field"), [
    ([{"capability": "Email", "retrievalHits": [{"rank": 0}]}], r"retrieval_executions\[0\]\.retrievalHits\[0\]\.rank"),
    ([{"capability": "x"}, {"capability": "Email", "status": 1}], r"retrieval_executions\[1\]\.status"),
    ([{"capability": "Email", "queries": [{"queryString": 5}]}], r"retrieval_executions\[0\]\.queries\[0\]\.queryString"),
    ([{"capability": "Email", "latencyMs": "fast"}], r"retrieval_executions\[0\]\.latencyMs"),
    ([{"capability": "Email", "totalResultCount": True}], r"retrieval_executions\[0\]\.totalResultCount"),
    ([{"capability": "Email", "retrievalHits": [{"rank": 1, "webUrl": 3}]}], r"retrievalHits\[0\]\.webUrl"),
    ([{"capability": "Email", "retrievalHits": "none"}], r"retrieval_executions\[0\]\.retrievalHits"),
    ({"executions": [{"name": ""}, {"name": "Email", "debugInfo": {"latencyMs": "x"}}]}, r"executions\[1\]\.latencyMs"),
    ({"executions": [{"name": "Email", "debugInfo": "x"}]}, r"executions\[0\]\.debugInfo"),
    ([1], r"retrieval_executions\[0\]"),
    ({"retrieval_executions": {}}, "retrieval_executions"),
])  # fmt: skip
def test_malformed_values_raise_input_error_naming_the_field(data, field):
    with pytest.raises(InputError, match=field) as caught:
        load_executions(data)
    assert caught.value.field is not None


@pytest.mark.parametrize("data", [{"hits": []}, {}, 3])
def test_unknown_containers_are_rejected(data):
    with pytest.raises(InputError, match="expected"):
        load_executions(data)


def test_a_json_file_loads_and_its_errors_name_the_file(tmp_path):
    good = tmp_path / "telemetry.json"
    good.write_text(json.dumps(RAW), encoding="utf-8")
    assert load_executions(good) == load_executions(RAW)
    assert load_executions(str(good)).retrieval_executions[0].capability == ODSP
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"capability": "Email", "retrievalHits": [{"rank": -1}]}]), encoding="utf-8")
    with pytest.raises(InputError, match="bad.json") as caught:
        load_executions(bad)
    assert caught.value.field == "retrieval_executions[0].retrievalHits[0].rank"
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="broken.json.*line 1"):
        load_executions(broken)
    with pytest.raises(InputError, match="cannot read"):
        load_executions(tmp_path / "absent.json")


def test_loading_never_modifies_the_input_and_a_model_passes_through():
    raw, normalized = copy.deepcopy(RAW), example_telemetry()
    load_executions(raw), normalize_executions(normalized), load_executions(normalized)
    assert raw == RAW and normalized == example_telemetry()
    telemetry = load_executions(normalized)
    assert load_executions(telemetry) is telemetry
    assert isinstance(telemetry, RetrievalTelemetry)


# -- properties -------------------------------------------------------------------------------

_text = st.text(max_size=12)


@given(_text, st.text(min_size=1, max_size=6), _text)
def test_a_needle_is_contained_in_any_text_around_it_whatever_the_case(before, needle, after):
    assert contains(before + needle + after, needle)
    assert contains((before + needle + after).casefold(), needle)
    assert contains(before + needle.casefold() + after, needle)


@given(_text, _text)
def test_containment_is_casefolded_substring(haystack, needle):
    assert contains(haystack, needle) == (needle != "" and needle.casefold() in haystack.casefold())
    assert contains(haystack, needle) == contains(haystack.casefold(), needle.casefold())
    assert not contains(haystack, "")


_raw_hit = st.fixed_dictionaries(
    {"rank": st.one_of(st.integers(1, 5), st.booleans(), st.none(), st.text(max_size=2)),
     "extracts": st.lists(st.fixed_dictionaries({"text": st.one_of(_text, st.none())}), max_size=2)},
    optional={"webUrl": st.one_of(st.none(), _text)},
)  # fmt: skip
_raw_execution = st.fixed_dictionaries(
    {"name": st.one_of(st.sampled_from(["Email", "People", ""]), st.none()),
     "debugInfo": st.fixed_dictionaries({"retrievalHits": st.lists(_raw_hit, max_size=4)}, optional={"queryString": _text})},
    optional={"status": st.one_of(st.none(), st.sampled_from(["Success", "FAILED"]))},
)  # fmt: skip


@given(st.lists(_raw_execution, max_size=4))
def test_normalizing_is_idempotent_and_keeps_only_integer_ranks(executions):
    telemetry = load_executions({"executions": executions})
    again = load_executions(telemetry.model_dump(exclude={"raw_artifact"}))
    assert again.retrieval_executions == telemetry.retrieval_executions
    kept = [h.rank for e in telemetry.retrieval_executions for h in e.retrievalHits]
    expected = [h["rank"] for e in executions if e["name"] for h in e["debugInfo"]["retrievalHits"]
                if isinstance(h["rank"], int) and not isinstance(h["rank"], bool)]  # fmt: skip
    assert kept == expected


def test_executions_in_both_forms_are_an_error_naming_the_raw_field():
    with pytest.raises(InputError, match="both forms") as caught:
        load_executions({"retrieval_executions": [], "executions": [{"name": "X"}]})
    assert caught.value.field == "executions"


@pytest.mark.parametrize("hits", ["abc", 5, {"rank": 1}, None])
def test_raw_hits_that_are_not_a_list_are_an_error_naming_the_field(hits):
    with pytest.raises(InputError, match="must be a list") as caught:
        load_executions({"executions": [{"name": "X", "debugInfo": {"retrievalHits": hits}}]})
    assert caught.value.field == "executions[0].debugInfo.retrievalHits"


_KEYS = st.sampled_from(["retrieval_executions", "executions", "name", "capability", "status", "debugInfo", "queries",
                         "queryString", "retrievalHits", "rank", "webUrl", "extracts", "text", "resourceMetadata"])
_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 3) | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


@given(_ANY_JSON.filter(lambda value: not isinstance(value, str)))  # a string is a path
def test_any_json_value_loads_or_raises_input_error(value):
    # Whatever shape a log record or a diagnostics object has, loading names what is wrong; it never crashes.
    try:
        load_executions(value)
    except InputError:
        pass


@pytest.mark.parametrize(
    ("data", "field", "found"),
    [
        ([{"foo": 1}], "retrieval_executions[0]", "'foo'"),
        ({"retrieval_executions": [{"capability": "Web"}, {"foo": 1, "bar": 2}]}, "retrieval_executions[1]", "'foo', 'bar'"),
        ({"executions": [{}]}, "executions[0]", "no keys"),
    ],
)
def test_a_record_of_neither_form_is_refused_not_dropped(data, field, found):
    # It was dropped as an execution without a capability, and the item then read "no executions" (issue 27, item 19).
    with pytest.raises(InputError) as raised:
        load_executions(data)
    assert raised.value.field == field
    assert raised.value.detail == ("an execution has a 'capability' (normalized form) or a 'name' and 'debugInfo' "
                                   f"(raw Work IQ form); this one has {found}")
    # An execution of either form with an empty capability is still dropped, as upstream drops it.
    assert load_executions([{"capability": None}, {"name": ""}]).retrieval_executions == []
