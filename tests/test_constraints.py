"""The rules module: one message for every rule, one "did you mean", the intervals' two notations, integer text."""

import numpy as np
import pytest

from retrieval_eval.constraints import (
    MAX_INTEGER,
    Choices,
    Interval,
    check_flag,
    closest,
    did_you_mean,
    documents_per_query,
    int64_value,
    integer_at_least,
    integer_text,
    must_be,
)
from retrieval_eval.errors import ConfigError


def test_the_message_names_the_option_the_rule_and_the_value_as_python_writes_it():
    assert str(must_be("alpha", "a number in (0, 1)", np.float64(2.0))) == "alpha must be a number in (0, 1), got 2.0"
    assert str(must_be("k", "a positive integer", got="0")) == "k must be a positive integer, got 0"


@pytest.mark.parametrize(("candidates", "before", "after", "expected"), [
    ([], "; ", "", ""),
    (["rrf"], "; ", "", "; did you mean 'rrf'?"),
    (["k", "kk"], "", " ", "did you mean 'k' or 'kk'? "),
])  # fmt: skip
def test_did_you_mean_lists_the_closest_quoted(candidates, before, after, expected):
    assert did_you_mean(candidates, before=before, after=after) == expected


def test_closest_casefolded_answers_with_the_known_spelling():
    assert closest("COMBMNZ", ["comb_mnz", "CombMNZ"], casefold=True) == ["CombMNZ"]
    assert closest(3, ["a"]) == []


@pytest.mark.parametrize(("interval", "allowed"), [
    (Interval(0, 1, low_open=True, high_open=True), "a number in (0, 1)"),
    (Interval(0, 1, low_open=True), "a number in (0, 1]"),
    (Interval(0, 1, notation="comparisons"), "a finite number >= 0 and <= 1"),
    (Interval(0, low_open=True), "a finite number > 0"),
    (Interval(), "a finite number"),
    (Interval(1, 10, integer=True), "an integer from 1 to 10"),
    (Interval(2, integer=True), "an integer >= 2"),
])  # fmt: skip
def test_an_interval_says_what_it_allows(interval, allowed):
    assert interval.allowed == allowed


@pytest.mark.parametrize("value", [True, "0.5", float("nan"), 0.0, 1.0])
def test_an_open_interval_refuses_its_bounds_and_what_is_no_number(value):
    with pytest.raises(ConfigError, match=r"^p must be a number in \(0, 1\) \(a share\), got "):
        Interval(0, 1, low_open=True, high_open=True).check("p", value, unit="a share")


def test_an_interval_gives_the_number_as_int_or_float():
    assert type(Interval(1, integer=True).check("n", np.int64(3))) is int
    assert type(Interval(0, 1).check("p", 1)) is float


def test_choices_name_the_closest():
    with pytest.raises(ConfigError, match=r"^ties must be one of \['docid', 'input'\], got 'docd'; did you mean 'docid'\?$"):
        Choices(("docid", "input"), bracketed=True).check("ties", "docd")
    with pytest.raises(ConfigError, match="^test must be one of t, sign, got 1$"):
        Choices(("t", "sign")).check("test", 1)


def test_a_flag_is_true_or_false_only():
    assert check_flag("judged_only", False) is False
    with pytest.raises(ConfigError, match="^judged_only must be True or False, got 1$"):
        check_flag("judged_only", 1)


@pytest.mark.parametrize(("text", "signed", "expected"), [
    (" 12 ", True, 12), ("-3", True, -3), ("-3", False, None), ("1e3", True, None),
    ("9" * 5000, True, MAX_INTEGER + 1), ("-" + "9" * 30, True, -MAX_INTEGER - 2),
])  # fmt: skip
def test_integer_text_reads_digits_and_never_converts_past_int64(text, signed, expected):
    assert integer_text(text, signed=signed) == expected


def test_integers_up_to_int64():
    assert integer_at_least("max_docs", "0", least=0) == 0 and int64_value("rel_level", "-2") == -2
    with pytest.raises(ConfigError, match=r"^max_docs must be an integer >= 0 up to 2\^63 - 1 = 9223372036854775807, got 9{30}$"):
        integer_at_least("max_docs", "9" * 30, least=0)
    with pytest.raises(ConfigError, match=r"^top_k must be a positive integer \(documents per query\) up to 2\^63 - 1 or None, got 0$"):
        documents_per_query("top_k", 0, optional=True)
