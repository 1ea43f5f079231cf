"""Citations: each marker format, distinct markers, bad options and inputs, the schema, two oracles, linear time."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.executions.checks import citations
from retrieval_eval.executions.checks.citations import CITATION_FORMATS, Citations, markers
from retrieval_eval.executions.checks.evaluator import errored
from tests.reference.citations import oracle_count, regex_markers, scanned_markers

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
        ("[1]([2](u)", 1),  # a [N] inside the url of a marker begins none: the search resumes after it
        ("[1]([2](u) [2](u)", 2),
        ("[1]([2] [3](u)", 1),  # the first url stops at the space, so [1] is no marker and [3] is one
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
        ("[1]([2](u)", 0),  # both begin a markdown link, even the one inside the other's url
        ("[1]([2] u)", 2),
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


# -- against oracles: a character scanner written from the definitions, and the earlier regexes --

PIECES = [
    "[", "]", "^", "(", ")", "#", " ", "\n", "\t", "\u2003", "\x1c", "0", "1", "2", "12", "x", "\u0661",
    "\ue200", "\ue201", "\ue202", "cite", "turn", "search", "https://a", "[1](", "[^1", "\ue200cite\ue202turn1search",
    OAI_1, OAI_2, "[^1^]", "[^2^]", "[1]", "[2]", "[1](https://a)", "[1](https://a#b)", "[2](u)",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=25).map("".join)
# Few pieces, so that links inside urls, links left open and stops of every kind meet often.
NUMBERED = ["[1]", "[2]", "[1](", "[1](u)", "(", ")", "u", " ", "\u2003", "[", "]", "0", "1"]
numbered_texts = st.lists(st.sampled_from(NUMBERED), max_size=12).map("".join)
ONE_FORMAT = [fmt for fmt in CITATION_FORMATS if fmt != "mixed"]


@given(texts, st.sampled_from(CITATION_FORMATS), st.integers(1, 4))
def test_the_count_agrees_with_a_character_scanner(text, citation_format, threshold):
    assert count(text, citation_format, threshold) == oracle_count(text, citation_format)


@given(texts | numbered_texts, st.sampled_from(ONE_FORMAT))
def test_the_markers_are_the_scanner_s_and_the_earlier_regexes(text, citation_format):
    found = markers(text, citation_format)
    assert found == scanned_markers(text, citation_format) == regex_markers(text, citation_format)


@given(texts)
def test_the_markers_of_mixed_are_those_of_its_three_formats(text):
    assert markers(text, "mixed") == scanned_markers(text, "oai_unicode") | scanned_markers(text, "bracket") | (
        scanned_markers(text, "markdown")
    )


def test_markers_of_an_unknown_format_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown citation format 'MIXED'; known formats: oai_unicode, bracket"):
        markers("[1]", "MIXED")


@given(texts)
def test_mixed_counts_the_sum_of_its_three_formats(text):
    # The three formats never match the same text, so the union of their markers is a disjoint union.
    assert count(text, "mixed") == sum(count(text, fmt) for fmt in ("oai_unicode", "bracket", "markdown"))


@given(texts, st.sampled_from(CITATION_FORMATS))
def test_repeating_the_response_adds_no_citation(text, citation_format):
    # No marker contains whitespace, so none spans the two copies.
    assert count(f"{text} \n{text}", citation_format) == count(text, citation_format)


# -- linear time on hostile responses -----------------------------------------------------------

SIZE = 200_000


def hostile(piece: str) -> str:
    """``piece`` repeated to SIZE characters."""
    return (piece * (SIZE // len(piece) + 1))[:SIZE]


# Each one made a regular expression retry the rest of the text from every start (quadratic).
HOSTILE = {
    "open links": "[1](",
    "open links with a url": "[1](x",
    "links inside a url": "[1]([2](x)",
    "a long url": "[1](" + "u" * 997 + ")",
    "oai_unicode starts": "\ue200cite\ue202turn1search",
    "bracket starts": "[^1",
    "brackets": "[1",
}


class _CountingStops:
    """The url-stop pattern, counting the characters each search reads."""

    def __init__(self, pattern):
        self.pattern, self.read = pattern, 0

    def search(self, text, position):
        found = self.pattern.search(text, position)
        self.read += (len(text) if found is None else found.end()) - position
        return found


@pytest.mark.parametrize("piece", list(HOSTILE.values()), ids=list(HOSTILE))
@pytest.mark.parametrize("citation_format", ["markdown", "plain"])
def test_no_character_is_searched_twice_for_the_end_of_a_url(monkeypatch, piece, citation_format):
    stops = _CountingStops(citations._URL_STOP)
    monkeypatch.setattr(citations, "_URL_STOP", stops)
    text = hostile(piece)
    markers(text, citation_format)
    assert 0 < stops.read <= len(text) if "(" in piece else stops.read == 0


_HANG_GUARD = """
import sys
from retrieval_eval.executions.checks.citations import CITATION_FORMATS, Citations
for piece in sys.argv[1:]:
    text = (piece * ({size} // len(piece) + 1))[:{size}]
    for citation_format in CITATION_FORMATS:
        Citations(citation_format=citation_format)(text)
"""


def test_hostile_responses_of_200_kb_are_checked_without_hanging():
    # A hang guard, not a timing: each of these took 18 to 33 s before, and takes under 40 ms now.
    script = _HANG_GUARD.format(size=SIZE)
    subprocess.run([sys.executable, "-c", script, *HOSTILE.values()], check=True, timeout=20)
