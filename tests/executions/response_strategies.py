"""Hypothesis strategies for responses, keywords and tool invocations, with plain-Python oracles of both evaluators.

The vocabulary mixes what decides a keyword match: casefolding beyond lower-casing (``ß``,
``İ``, sigmas, the ``ﬁ`` ligature), word and non-word neighbours (``_``, digits of other
scripts, combining marks, ``$``, ``+``, punctuation), phrases with spaces and CJK text.
"""

from __future__ import annotations

import re

from hypothesis import strategies as st

WORDS = [
    "plan", "Plan", "PLAN", "planning", "plan_b", "plans", "q3 budget", "Q3 BUDGET", "budget", "straße", "STRASSE",
    "ss", "ß", "İ", "i̇", "i", "Σ", "σ", "ς", "ﬁle", "FILE", "$5", "US$5", "C++", "c", "٣", "3", "e\u0301", "é",
    "東京", "京", "joint check", "joint", "(", ")", ".", ",", "-", "–", "_", "",
]  # fmt: skip
SEPARATORS = [" ", "", "\n", "\u00a0", "_", "."]
TOOLS = ["SearchPolicies", "searchpolicies", "SEARCHPOLICIES", "Escalate", "Greeting", "Straße", "STRASSE", "Σ", "ς",
         "σ", "Search", "SearchWeb", "İ", "i̇"]  # fmt: skip

words = st.sampled_from(WORDS)


@st.composite
def responses(draw) -> str:
    """A response of a few vocabulary words joined by separators of every kind."""
    parts = draw(st.lists(words, max_size=6))
    text = ""
    for part in parts:
        text += draw(st.sampled_from(SEPARATORS)) + part
    return text


keywords = st.lists(st.sampled_from([word for word in WORDS if word]) | st.text(min_size=1, max_size=3), min_size=1, max_size=5)
modes = st.sampled_from(["all", "any"])
tool_names = st.lists(st.sampled_from(TOOLS), max_size=5)
# An invoked_tools value: names, or objects with a name (and other keys), mixed.
invocations = tool_names.flatmap(
    lambda names: st.tuples(*[st.sampled_from([name, {"name": name}, {"name": name, "type": "topic"}]) for name in names])
).map(list)


def keyword_oracle(response: str, keyword: str, *, case_sensitive: bool, word_boundaries: bool) -> bool:
    """The definition: ``(?<!\\w)keyword(?!\\w)`` (or the bare keyword) searched in the texts, casefolded unless case-sensitive."""
    fold = (lambda text: text) if case_sensitive else str.casefold
    pattern = re.escape(fold(keyword))
    if word_boundaries:
        pattern = r"(?<!\w)" + pattern + r"(?!\w)"
    return re.search(pattern, fold(response)) is not None


def keyword_score_oracle(response: str, options: dict) -> dict:
    """The score object from the definition (see KeywordMatch's docstring)."""
    mode = options.get("mode", "all")
    found = [
        keyword_oracle(
            response,
            keyword,
            case_sensitive=options.get("case_sensitive", False),
            word_boundaries=options.get("word_boundaries", False),
        )
        for keyword in options["keywords"]
    ]
    passed = all(found) if mode == "all" else any(found)
    return {
        "result": "pass" if passed else "fail",
        "mode": mode,
        "matched_keywords": [k for k, hit in zip(options["keywords"], found) if hit],
        "missing_keywords": [k for k, hit in zip(options["keywords"], found) if not hit],
    }


def tool_score_oracle(invoked: list, options: dict) -> dict:
    """The score object from the definition (see ToolUse's docstring)."""
    names = [item["name"] if isinstance(item, dict) else item for item in invoked]
    same = (lambda a, b: a == b) if options.get("case_sensitive", False) else (lambda a, b: a.casefold() == b.casefold())
    found = [any(same(name, tool) for name in names) for tool in options["tools"]]
    mode = options.get("mode", "all")
    passed = all(found) if mode == "all" else any(found)
    return {
        "result": "pass" if passed else "fail",
        "mode": mode,
        "matched_tools": [t for t, hit in zip(options["tools"], found) if hit],
        "missing_tools": [t for t, hit in zip(options["tools"], found) if not hit],
        "invoked_tools": sorted(set(names)),
    }


keyword_options = st.fixed_dictionaries(
    {"keywords": keywords},
    optional={"mode": modes, "case_sensitive": st.booleans(), "word_boundaries": st.booleans()},
)
tool_options = st.fixed_dictionaries(
    {"tools": st.lists(st.sampled_from(TOOLS), min_size=1, max_size=4)},
    optional={"mode": modes, "case_sensitive": st.booleans()},
)
# Options of each kind the evaluators reject (unknown key, bad mode, no expectations, bad types).
invalid_keyword_options = st.sampled_from(
    [{}, {"keywords": []}, {"keywords": ["a", ""]}, {"keywords": "plan"}, {"keywords": ["a"], "mode": "some"},
     {"keywords": ["a"], "threshold": 1.0}, {"keywords": ["a"], "case_sensitive": "yes"}, ["plan"]]
)  # fmt: skip
invalid_tool_options = st.sampled_from(
    [{}, {"tools": []}, {"tools": [""]}, {"tools": ["a"], "mode": "every"}, {"tools": ["a"], "capability": "Email"},
     {"tools": [1]}, None]
)  # fmt: skip
