"""Citations: each marker format, distinct-marker counting, bad options and inputs, the schema, and a scanner oracle."""

from __future__ import annotations


import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.executions.citations import CITATION_FORMATS, Citations
from retrieval_eval.executions.evaluator import errored

KEYS = ["count", "result", "threshold", "format", "reason"]

OAI_1 = "\ue200cite\ue202turn0search1\ue201"
OAI_2 = "\ue200cite\ue202turn12search3\ue201"


def count(response: str, citation_format: str = "oai_unicode", threshold: int = 1) -> int:
    out = Citations(threshold=threshold, citation_format=citation_format)(response)
    assert list(out) == KEYS
    assert out["format"] == citation_format and out["threshold"] == threshold
    assert out["result"] == ("pass" if out["count"] >= threshold else "fail")
    return out["count"]


# -- formats ----------------------------------------------------------------------------------


def test_oai_unicode_is_the_default_format():
    out = Citations()(f"Paris is the capital{OAI_1}.")
    assert out == {
        "count": 1,
        "result": "pass",
        "threshold": 1,
        "format": "oai_unicode",
        "reason": "Found 1 unique citation(s); at least 1 required",
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (OAI_1, 1),
        (OAI_1 + OAI_2, 2),
        ("\ue200cite\ue202turn0search\ue201", 0),  # no digits after search
        ("\ue200cite\ue202turnsearch1\ue201", 0),
        ("\ue200cite\ue202turn0search1", 0),  # not closed by U+E201
        ("cite turn0search1", 0),
        ("\ue200cite\ue202turn\u0661search1\ue201", 0),  # an Arabic-Indic digit is not an ASCII digit
        ("[^1^] [1](https://a) [1]", 0),  # the other formats do not count
    ],
)
def test_oai_unicode(text, expected):
    assert count(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[^1^]", 1),
        ("[^1^][^2^] and [^10^]", 3),
        ("[^0^]", 1),  # any digits, as upstream
        ("[^^]", 0),
        ("[^1]", 0),
        ("[1^]", 0),
        ("[^a^]", 0),
        ("[1] [1](https://a) " + OAI_1, 0),
    ],
)
def test_bracket(text, expected):
    assert count(text, "bracket") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1](https://learn.microsoft.com/graph)", 1),
        ("[1](https://learn.microsoft.com/graph#overview)", 1),
        ("[1](https://a#x) [1](https://a#y)", 2),  # another fragment is another marker text
        ("[2](doc.docx)", 1),  # any non-empty url
        ("[12](https://a)", 1),
        ("[0](https://a)", 0),  # N is a positive integer
        ("[01](https://a)", 0),  # written without leading zeros
        ("[1]()", 0),  # the url is non-empty
        ("[1](https://a b)", 0),  # and has no whitespace
        ("[1](https://a\tb)", 0),
        ("[1] (https://a)", 0),
        ("[x](https://a)", 0),
        ("[1](https://a", 0),
        ("[^1^] [1] " + OAI_1, 0),
    ],
)
def test_markdown(text, expected):
    assert count(text, "markdown") == expected


def test_markdown_url_stops_at_the_first_closing_parenthesis():
    out = Citations(citation_format="markdown")("see [1](https://w.org/Foo_(bar)) and [1](https://w.org/Foo_(bar)")
    assert out["count"] == 1  # both are the text "[1](https://w.org/Foo_(bar)"


def test_mixed_is_the_union_of_oai_unicode_bracket_and_markdown_with_per_format_tallies():
    text = f"a{OAI_1} b{OAI_1}{OAI_2} c[^1^] d[^1^] e[1](https://a#b) f[1] g[2]"
    out = Citations(citation_format="mixed", threshold=5)(text)
    assert out == {
        "count": 4,
        "result": "fail",
        "threshold": 5,
        "format": "mixed",
        "reason": "Found 4 unique citation(s) (oai_unicode: 2, bracket: 1, markdown: 1); at least 5 required",
    }


def test_mixed_does_not_count_plain_brackets():
    assert count("[1] [2] [3]", "mixed") == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1]", 1),
        ("[1] [2] [1]", 2),
        ("[1](https://a)", 0),  # a markdown marker, not a plain one
        ("[1](https://a) [1]", 1),
        ("[1](https://a b)", 1),  # not a markdown marker (whitespace in the url), so a plain one
        ("[1]()", 1),
        ("[0] [01] [-1] [1.5] [ 1]", 0),
        ("[^1^] " + OAI_1, 0),
    ],
)
def test_plain_is_an_opt_in_format_that_leaves_markdown_links_to_markdown(text, expected):
    assert count(text, "plain") == expected


def test_repeated_markers_count_once():
    assert count(OAI_1 * 5) == 1
    assert count("[^3^] [^3^] [^03^]", "bracket") == 2  # distinct texts, even when the numbers are equal


@pytest.mark.parametrize("citation_format", CITATION_FORMATS)
def test_an_empty_response_has_no_citations(citation_format):
    out = Citations(citation_format=citation_format)("")
    assert out["count"] == 0 and out["result"] == "fail"


@pytest.mark.parametrize(("threshold", "result"), [(1, "pass"), (2, "pass"), (3, "fail")])
def test_pass_when_count_reaches_threshold(threshold, result):
    out = Citations.run({"threshold": threshold, "citation_format": "bracket"}, "[^1^] [^2^]")
    assert out["count"] == 2 and out["result"] == result and out["threshold"] == threshold


# -- options and inputs -----------------------------------------------------------------------


def test_from_options_reads_the_document_options():
    citations = Citations.from_options({"threshold": 2, "citation_format": "mixed"})
    assert (citations.options.threshold, citations.options.citation_format) == (2, "mixed")
    assert Citations.from_options({}).options == Citations().options


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"threshold": True}, "option 'threshold': Input should be a valid integer"),
        ({"threshold": 0}, "option 'threshold': Input should be greater than or equal to 1"),
        ({"threshold": -1}, "option 'threshold'"),
        ({"threshold": 1.0}, "option 'threshold'"),
        ({"threshold": "1"}, "option 'threshold'"),
        (
            {"citation_format": "footnote"},
            "option 'citation_format': unknown citation format 'footnote'; "
            "known formats: oai_unicode, bracket, markdown, mixed, plain",
        ),
        ({"citation_format": "MIXED"}, "unknown citation format 'MIXED'"),
        ({"citation_format": None}, "option 'citation_format'"),
        ({"format": "bracket"}, "option 'format': Extra inputs are not permitted"),
        (["threshold"], "the options must be an object"),
    ],
)  # fmt: skip
def test_invalid_options_become_error_records(options, message):
    out = Citations.run(options, "[^1^]")
    assert out == {"result": "error", "error": out["error"]}
    assert out["error"].startswith("Evaluator failed: Citations: ") and message in out["error"]
    with pytest.raises(ConfigError):
        Citations.from_options(options)


def test_the_constructor_validates_like_the_options():
    with pytest.raises(ConfigError, match="'threshold'"):
        Citations(threshold=False)
    with pytest.raises(ConfigError, match="known formats"):
        Citations(citation_format="numeric")


def test_a_missing_response_is_an_input_error():
    with pytest.raises(InputError, match="no response to evaluate"):
        Citations()(None)
    assert Citations.run({}, None) == errored("Citations: no response to evaluate")
    assert Citations.run({}, 3)["error"] == "Evaluator failed: Citations: the response must be a string, got int"


# -- the schema -------------------------------------------------------------------------------


@pytest.mark.parametrize("citation_format", CITATION_FORMATS)
@pytest.mark.parametrize("text", ["", f"[^1^] [1](https://a#b) [2] {OAI_1}"])
def test_outputs_are_valid_citation_scores(conforms, citation_format, text):
    out = Citations(citation_format=citation_format)(text)
    conforms(out, "CitationScoreValid")
    conforms(out, "CitationScore")


def test_error_records_are_valid_citation_scores(conforms):
    conforms(Citations.run({"threshold": 0}, "x"), "CitationScore")
    conforms(Citations.run({}, None), "CitationScore")


# -- against an oracle: a character scanner written from the definitions ------------------------

DIGITS = "0123456789"


def _digits(text: str, i: int) -> int:
    """The index after the run of ASCII digits starting at ``i``."""
    while i < len(text) and text[i] in DIGITS:
        i += 1
    return i


def _number(text: str, i: int) -> int | None:
    """The end of ``[N]`` at ``i`` (N positive, no leading zero), or None."""
    if not text.startswith("[", i) or i + 1 >= len(text) or text[i + 1] not in "123456789":
        return None
    end = _digits(text, i + 1)
    return end + 1 if text.startswith("]", end) else None


def _link(text: str, i: int) -> int | None:
    """The end of ``(url)`` at ``i``, or None."""
    if not text.startswith("(", i):
        return None
    end = i + 1
    while end < len(text) and not text[end].isspace() and text[end] != ")":
        end += 1
    return end + 1 if end > i + 1 and text.startswith(")", end) else None


def _oai(text: str, i: int) -> int | None:
    head = "\ue200cite\ue202turn"
    if not text.startswith(head, i):
        return None
    end = _digits(text, i + len(head))
    if end == i + len(head) or not text.startswith("search", end):
        return None
    start = end + len("search")
    end = _digits(text, start)
    return end + 1 if end > start and text.startswith("\ue201", end) else None


def _bracket(text: str, i: int) -> int | None:
    if not text.startswith("[^", i):
        return None
    end = _digits(text, i + 2)
    return end + 2 if end > i + 2 and text.startswith("^]", end) else None


def _markdown(text: str, i: int) -> int | None:
    end = _number(text, i)
    return None if end is None else _link(text, end)


def _plain(text: str, i: int) -> int | None:
    end = _number(text, i)
    return None if end is None or _link(text, end) is not None else end


SCANNERS = {"oai_unicode": _oai, "bracket": _bracket, "markdown": _markdown, "plain": _plain}


def oracle(text: str, citation_format: str) -> int:
    """Distinct markers, found left to right, each scan resuming after the marker it found."""
    formats = ["oai_unicode", "bracket", "markdown"] if citation_format == "mixed" else [citation_format]
    markers = set()
    for fmt in formats:
        i = 0
        while i < len(text):
            end = SCANNERS[fmt](text, i)
            if end is None:
                i += 1
            else:
                markers.add(text[i:end])
                i = end
    return len(markers)


PIECES = [
    "[", "]", "^", "(", ")", "#", " ", "\n", "0", "1", "2", "12", "x", "\u0661",
    "\ue200", "\ue201", "\ue202", "cite", "turn", "search", "https://a",
    OAI_1, OAI_2, "[^1^]", "[^2^]", "[1]", "[2]", "[1](https://a)", "[1](https://a#b)", "[2](u)",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=25).map("".join)


@given(texts, st.sampled_from(CITATION_FORMATS), st.integers(1, 4))
def test_the_count_agrees_with_a_character_scanner(text, citation_format, threshold):
    assert count(text, citation_format, threshold) == oracle(text, citation_format)


@given(texts)
def test_mixed_counts_the_sum_of_its_three_formats(text):
    # The three formats never match the same text, so the union of their markers is a disjoint union.
    assert count(text, "mixed") == sum(count(text, fmt) for fmt in ("oai_unicode", "bracket", "markdown"))


@given(texts, st.sampled_from(CITATION_FORMATS))
def test_repeating_the_response_adds_no_citation(text, citation_format):
    # No marker contains whitespace, so none spans the two copies.
    assert count(f"{text} \n{text}", citation_format) == count(text, citation_format)
