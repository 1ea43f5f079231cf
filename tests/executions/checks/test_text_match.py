"""ExactMatch and PartialMatch: the rules, the schema's example, bad options and inputs, and plain-Python oracles."""

from __future__ import annotations

import json
import string
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.executions.checks.evaluator import errored
from retrieval_eval.executions.checks.text_match import PARTIAL_MATCH_MODES, ExactMatch, PartialMatch, token_f1, tokens
from tests.reference.answer_f1 import multiset_overlap

PARTIAL_KEYS = ["score", "result", "threshold", "reason", "mode"]


def partial(response: str, expected: str, **options) -> dict:
    out = PartialMatch(**options)(response, expected)
    assert list(out) == PARTIAL_KEYS
    assert out["result"] == ("pass" if out["score"] >= out["threshold"] else "fail")
    assert out["reason"] == f"Match score: {out['score']:.3f}"
    return out


def score(response: str, expected: str, **options) -> float:
    return partial(response, expected, **options)["score"]


# -- the schema's example (comprehensive.json, item 2) ------------------------------------------


def test_the_schema_s_comprehensive_example(eval_schema):
    document = json.loads((eval_schema / "examples" / "valid" / "comprehensive.json").read_text(encoding="utf-8"))
    item = document["items"][1]
    evaluators, scores = item["evaluators"], item["scores"]
    args = (item["response"], item["expected_response"])
    assert ExactMatch.run(evaluators["ExactMatch"], *args) == scores["exactMatch"]
    assert PartialMatch.run(evaluators["PartialMatch"], *args) == {**scores["partialMatch"], "mode": "token_f1"}
    upstream = PartialMatch.run({**evaluators["PartialMatch"], "mode": "upstream_v1"}, *args)
    assert upstream == {**scores["partialMatch"], "mode": "upstream_v1"}


# -- ExactMatch -------------------------------------------------------------------------------


def test_exact_match_trims_and_ignores_case_by_default():
    out = ExactMatch()("  You can authenticate using OAuth 2.0.\n", "you can AUTHENTICATE using oauth 2.0.")
    assert out == {"match": True, "result": "pass", "reason": "Exact match found"}


def test_exact_match_casefolds():
    assert ExactMatch()("Straße", "STRASSE")["match"]


def test_exact_match_case_sensitive():
    out = ExactMatch(case_sensitive=True)(" OAuth ", "oauth")
    assert out == {
        "match": False,
        "result": "fail",
        "reason": "The response differs from the expected response (case-sensitive, trimmed)",
    }
    assert ExactMatch(case_sensitive=True)(" OAuth\t", "OAuth")["match"]


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("OAuth 2.0", "OAuth 2.0 or client credentials"),  # equality, not containment
        ("OAuth 2.0 or client credentials", "OAuth 2.0"),
        ("OAuth  2.0", "OAuth 2.0"),  # only the ends are trimmed
        ("OAuth 2.0.", "OAuth 2.0"),
    ],
)
def test_exact_match_is_equality(response, expected):
    out = ExactMatch()(response, expected)
    assert out["match"] is False and out["result"] == "fail"
    assert out["reason"] == "The response differs from the expected response (case-insensitive, trimmed)"


def test_exact_match_from_options():
    assert ExactMatch.from_options({}).options.case_sensitive is False
    assert ExactMatch.from_options({"case_sensitive": True}).options.case_sensitive is True


# -- PartialMatch: token F1 -------------------------------------------------------------------


def test_token_f1_is_the_default_mode():
    # r = [the, cat, sat], e = [the, cat]: P = 2/3, R = 1, F1 = 0.8.
    assert partial("The cat sat.", "the cat") == {
        "score": 0.8,
        "result": "pass",
        "threshold": 0.5,
        "reason": "Match score: 0.800",
        "mode": "token_f1",
    }


@pytest.mark.parametrize(
    ("response", "expected", "value"),
    [
        ("a b c d", "a b", 2 * 2 / 6),
        ("a a a", "a", 2 * 1 / 4),  # a multiset: the one expected "a" is matched once
        ("a a b", "a a c", 2 * 2 / 6),
        ("x y", "a b", 0.0),
        ("b a", "a b", 1.0),  # order does not matter
        ("Hello, world!", "hello world", 1.0),
        ("state-of-the-art", "stateoftheart", 1.0),  # punctuation is deleted, not replaced by a space
        ("«quoted» text", "quoted text", 1.0),  # Unicode punctuation (Pi, Pf)
        ("costs $5 + tax", "costs 5 tax", 2 * 2 / 7),  # symbols (S*) are not punctuation: "$5" and "+" stay
        ("the cat", "a cat", 2 * 1 / 4),  # no articles are removed
        ("...", "?!", 1.0),  # both token lists empty
        ("...", "word", 0.0),  # one empty
        ("word", "!", 0.0),
    ],
)
def test_token_f1(response, expected, value):
    assert score(response, expected) == pytest.approx(value, rel=1e-15)


def test_token_f1_threshold_boundary_is_exact():
    # 2 x 1 / (1 + 3) is exactly 0.5, so it reaches a 0.5 threshold.
    out = partial("a", "a b c")
    assert out["score"] == 0.5 and out["result"] == "pass"


def test_token_f1_case_sensitive():
    assert score("The Cat", "the cat", case_sensitive=True) == 0.0
    assert score("The Cat", "the cat") == 1.0


def test_tokens_and_token_f1_as_functions():
    assert tokens("  Hello,\tWorld!  (x) ") == ["Hello", "World", "x"]
    assert token_f1("Hello", "hello") == 0.0  # no case folding of their own


# -- PartialMatch: upstream_v1 ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected", "value"),
    [
        ("The cat sat.", "the cat", 7 / 12),
        ("  the cat  ", "THE CAT", 1.0),  # trimmed and casefolded first
        ("the cat", "the cat sat", 0.0),  # not a substring
        ("the cat sat", "cat  sat", 0.0),  # no whitespace normalization
        ("x\U0001f600", "x", 1 / 2),  # code points (upstream counts UTF-16 code units: 1/3)
    ],
)
def test_upstream_v1(response, expected, value):
    assert score(response, expected, mode="upstream_v1") == value


def test_upstream_v1_case_sensitive():
    assert score("The cat sat", "the cat", mode="upstream_v1", case_sensitive=True) == 0.0


@pytest.mark.parametrize(
    ("threshold", "result"), [(0.0, "pass"), (0.5, "pass"), (0.8, "pass"), (0.81, "fail"), (1, "fail")]
)
def test_pass_when_the_score_reaches_the_threshold(threshold, result):
    out = PartialMatch.run({"threshold": threshold}, "The cat sat.", "the cat")
    assert out["score"] == 0.8 and out["result"] == result
    assert out["threshold"] == threshold and isinstance(out["threshold"], float)


def test_partial_match_from_options():
    options = PartialMatch.from_options({"threshold": 0.25, "case_sensitive": True, "mode": "upstream_v1"}).options
    assert (options.threshold, options.case_sensitive, options.mode) == (0.25, True, "upstream_v1")
    assert PartialMatch.from_options({}).options == PartialMatch().options


# -- bad options and inputs -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("ExactMatch", {"case_sensitive": "yes"}, "option 'case_sensitive': Input should be a valid boolean"),
        ("ExactMatch", {"case_sensitive": 1}, "option 'case_sensitive'"),
        ("ExactMatch", {"threshold": 1}, "option 'threshold': Extra inputs are not permitted"),
        ("ExactMatch", {"mode": "token_f1"}, "option 'mode': Extra inputs are not permitted"),
        ("PartialMatch", {"threshold": True}, "option 'threshold': Input should be a valid number"),
        ("PartialMatch", {"threshold": 1.5}, "option 'threshold': Input should be less than or equal to 1"),
        ("PartialMatch", {"threshold": -0.1}, "option 'threshold': Input should be greater than or equal to 0"),
        ("PartialMatch", {"threshold": float("nan")}, "option 'threshold': Input should be a finite number"),
        ("PartialMatch", {"threshold": "0.5"}, "option 'threshold'"),
        ("PartialMatch", {"case_sensitive": None}, "option 'case_sensitive'"),
        ("PartialMatch", {"mode": "f1"}, "option 'mode': unknown mode 'f1'; known modes: token_f1, upstream_v1"),
        ("PartialMatch", {"mode": 1}, "option 'mode'"),
        ("PartialMatch", {"citation_format": "mixed"}, "option 'citation_format': Extra inputs are not permitted"),
        ("PartialMatch", "token_f1", "the options must be an object"),
    ],
)
def test_invalid_options_become_error_records(name, options, message):
    evaluator = {"ExactMatch": ExactMatch, "PartialMatch": PartialMatch}[name]
    out = evaluator.run(options, "the answer", "the answer")
    assert out == {"result": "error", "error": out["error"]}
    assert out["error"].startswith(f"Evaluator failed: {name}: ") and message in out["error"]
    with pytest.raises(ConfigError):
        evaluator.from_options(options)


def test_the_constructors_validate_like_the_options():
    with pytest.raises(ConfigError, match="'case_sensitive'"):
        ExactMatch(case_sensitive=0)
    with pytest.raises(ConfigError, match="'threshold'"):
        PartialMatch(threshold=False)
    with pytest.raises(ConfigError, match="known modes"):
        PartialMatch(mode="jaccard")


@pytest.mark.parametrize(
    ("response", "expected", "message"),
    [
        ("", "x", "the response is empty"),
        (" \t\n\u00a0", "x", "the response is empty"),  # Unicode whitespace is trimmed too
        (None, "x", "no response to compare"),
        (7, "x", "the response must be a string, got int"),
        ("x", None, "no expected response to compare"),
        ("x", "  ", "the expected response is empty"),
        ("x", ["x"], "the expected response must be a string, got list"),
    ],
)
@pytest.mark.parametrize("name", ["ExactMatch", "PartialMatch"])
@pytest.mark.parametrize("mode", PARTIAL_MATCH_MODES)
def test_missing_or_blank_texts_become_error_records(name, mode, response, expected, message):
    evaluator, options = (ExactMatch, {}) if name == "ExactMatch" else (PartialMatch, {"mode": mode})
    assert evaluator.run(options, response, expected) == errored(f"{name}: {message}")
    with pytest.raises(InputError, match=message):
        evaluator.from_options(options)(response, expected)


# -- the schema -------------------------------------------------------------------------------


PAIRS = [("The cat sat.", "the cat"), ("x", "y"), ("same", "SAME"), ("...", "?!"), ("a", "a b c")]


@pytest.mark.parametrize(("response", "expected"), PAIRS)
@pytest.mark.parametrize("case_sensitive", [False, True])
def test_outputs_are_valid_scores(conforms, response, expected, case_sensitive):
    exact = ExactMatch(case_sensitive=case_sensitive)(response, expected)
    conforms(exact, "ExactMatchScoreValid")
    conforms(exact, "ExactMatchScore")
    for mode in PARTIAL_MATCH_MODES:
        for threshold in (0.0, 0.5, 1.0):
            out = PartialMatch(threshold=threshold, case_sensitive=case_sensitive, mode=mode)(response, expected)
            conforms(out, "PartialMatchScoreValid")
            conforms(out, "PartialMatchScore")


def test_error_records_are_valid_scores(conforms):
    conforms(ExactMatch.run({"case_sensitive": "no"}, "x", "x"), "ExactMatchScore")
    conforms(ExactMatch.run({}, " ", "x"), "ExactMatchScore")
    conforms(PartialMatch.run({"threshold": 1.5}, "x", "x"), "PartialMatchScore")
    conforms(PartialMatch.run({}, "x", None), "PartialMatchScore")


# -- against plain-Python oracles written from the definitions ----------------------------------


def oracle_tokens(text: str, case_sensitive: bool) -> list[str]:
    text = text.strip()
    if not case_sensitive:
        text = text.casefold()
    kept = "".join(" " if char.isspace() else char for char in text if unicodedata.category(char)[0] != "P")
    return [token for token in kept.split(" ") if token]


def oracle_f1(response: str, expected: str, case_sensitive: bool) -> float:
    got, want = oracle_tokens(response, case_sensitive), oracle_tokens(expected, case_sensitive)
    if not got and not want:
        return 1.0
    overlap = multiset_overlap(got, want)
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(got), overlap / len(want)
    return 2 * precision * recall / (precision + recall)


def oracle_ratio(response: str, expected: str, case_sensitive: bool) -> float:
    response, expected = response.strip(), expected.strip()
    if not case_sensitive:
        response, expected = response.casefold(), expected.casefold()
    found = any(response[i : i + len(expected)] == expected for i in range(len(response) - len(expected) + 1))
    return len(expected) / len(response) if found else 0.0


WORDS = ["a", "A", "cat", "Cat", "the", "oauth", "2.0", "ß", "SS", "«x»", "-", ",", "!", "$", "é", "\u00a0", "\t"]
texts = st.lists(st.sampled_from(WORDS) | st.text(max_size=3), min_size=1, max_size=12).map(" ".join)
nonblank = texts.filter(lambda text: text.strip() != "")
ascii_texts = st.text(alphabet=string.ascii_letters + string.digits + " .,!?-", max_size=30).filter(str.strip)


@given(nonblank, nonblank, st.booleans())
def test_token_f1_agrees_with_its_oracle(response, expected, case_sensitive):
    value = score(response, expected, case_sensitive=case_sensitive)
    assert value == pytest.approx(oracle_f1(response, expected, case_sensitive), rel=1e-12, abs=0)
    assert 0.0 <= value <= 1.0


@given(nonblank, nonblank, st.booleans())
def test_upstream_v1_agrees_with_its_oracle(response, expected, case_sensitive):
    value = score(response, expected, mode="upstream_v1", case_sensitive=case_sensitive)
    assert value == oracle_ratio(response, expected, case_sensitive)
    assert 0.0 <= value <= 1.0


@given(nonblank, nonblank, st.booleans())
def test_token_f1_is_symmetric(response, expected, case_sensitive):
    options = {"case_sensitive": case_sensitive}
    assert score(response, expected, **options) == score(expected, response, **options)


@given(nonblank, st.booleans(), st.sampled_from(PARTIAL_MATCH_MODES))
def test_a_text_matches_itself(text, case_sensitive, mode):
    assert score(text, text, case_sensitive=case_sensitive, mode=mode) == 1.0
    assert ExactMatch(case_sensitive=case_sensitive)(f" {text}\n", text)["match"]


@given(ascii_texts, ascii_texts, st.sampled_from(PARTIAL_MATCH_MODES))
def test_case_does_not_matter_unless_case_sensitive(response, expected, mode):
    assert score(response.swapcase(), expected.upper(), mode=mode) == score(response, expected, mode=mode)
    same = response.strip().lower() == expected.strip().lower()
    assert ExactMatch()(response.swapcase(), expected)["match"] == same


@given(nonblank, nonblank, st.booleans())
def test_exact_match_is_a_full_upstream_v1_match(response, expected, case_sensitive):
    # A substring as long as the text is the text itself.
    exact = ExactMatch(case_sensitive=case_sensitive)(response, expected)
    full = partial(response, expected, mode="upstream_v1", threshold=1.0, case_sensitive=case_sensitive)
    assert exact["match"] == (full["result"] == "pass")
    assert exact["result"] == ("pass" if exact["match"] else "fail")


@given(nonblank, st.sampled_from(["", " ", "\n\t"]))
def test_padding_and_casefolding_keep_an_exact_match_with_a_token_f1_of_one(text, padding):
    # casefold is idempotent, so a casefolded copy of the text is equal to it after folding.
    response = padding + text.casefold() + padding
    assert ExactMatch()(response, text)["match"]
    assert score(response, text) == 1.0
