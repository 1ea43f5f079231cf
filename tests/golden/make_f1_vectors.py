"""Generate golden vectors from azure-ai-evaluation's ``F1ScoreEvaluator`` (pinned to 1.18.10).

Run once with the SDK installed; CI does not need the SDK, it only reads the committed output::

    python3 -m venv .venv-sdk && .venv-sdk/bin/pip install azure-ai-evaluation==1.18.10
    .venv-sdk/bin/python tests/golden/make_f1_vectors.py      # from the repository root

The cases come from a fixed seed, so re-running reproduces ``tests/data/f1_golden.jsonl`` byte for
byte. Each case is run through the SDK's public call ``F1ScoreEvaluator(**init)(**call)``.

Output format: one JSON object per line, with the keys of ``make_azure_vectors.py``'s records
(``case_id``, ``category``, ``sdk_version``, ``init``, ``call``, ``output``, ``error``; the same
encodings of inputs and typed outputs) except ``bugs``. ``error.message`` is the exception's first argument.
"""

from __future__ import annotations

import json
import logging
import random
import string
from importlib.metadata import version
from pathlib import Path
from typing import Any

from azure.ai.evaluation import F1ScoreEvaluator
from azure.ai.evaluation._exceptions import EvaluationException
from make_azure_vectors import encode_input, encode_typed

OUTPUT = Path(__file__).resolve().parents[1] / "data" / "f1_golden.jsonl"
SEED = 20_261_201
SDK_VERSION = version("azure-ai-evaluation")

# Words that exercise each step of the SDK's normalization: case (with the characters whose
# lower case is longer, or depends on context: "İ", final sigma), ASCII punctuation inside and
# around words, the articles (whole words only: "\b" is Unicode-aware), digits and underscores
# (word characters for "\b"), non-ASCII punctuation and symbols (kept), and repeated tokens.
WORDS = [
    "the", "The", "THE", "a", "A", "an", "An", "AN", "then", "there", "anna", "ant", "at", "and",
    "cat", "Cat", "dog", "DOG", "sat", "mat", "on", "in", "is", "it", "its", "it's", "don't",
    "the's", "a.n", "t.h.e", "(the)", "'a'", '"an"', "the-end", "the_end", "_the", "the_", "2the",
    "the2", "a1", "1a", "éthe", "theé", "thé", "café", "Café", "CAFÉ", "naïve", "straße", "STRASSE",
    "İstanbul", "istanbul", "ΟΔΟΣ", "οδος", "ὀδός", "ΣΑΣ", "Σ", "σ", "ς", "ﬁne", "Ǆ", "ǆ", "ǅ",
    "中文", "日本語", "привет", "ПРИВЕТ", "x²", "½", "٣", "€100", "$100", "100%", "+1", "e-mail",
    "«the»", "¿a?", "the…", "—the—", "the’s", "🙂", "a🙂", "🙂the", "#tag", "@user", "a/b", "1,000",
]
WHITESPACE = [" ", " ", " ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2003",
              "\u2028", "\u3000", "\u200b"]


def text(rng: random.Random, words: int) -> str:
    """A random text of ``words`` words from :data:`WORDS`, joined by random whitespace."""
    parts = []
    for index in range(words):
        if index:
            parts.append(rng.choice(WHITESPACE))
        parts.append(rng.choice(WORDS))
    return "".join(parts)


def related(rng: random.Random, base: str) -> str:
    """A text sharing some of ``base``'s words: a shuffled sample, with a few others mixed in."""
    words = base.split()
    kept = rng.sample(words, rng.randint(0, len(words))) if words else []
    kept += [rng.choice(WORDS) for _ in range(rng.randint(0, 3))]
    rng.shuffle(kept)
    return " ".join(kept)


def edge_pairs() -> list[tuple[str, str, str]]:
    """(category, response, ground_truth) pairs chosen by hand."""
    pairs = [
        ("empty", "", ""),
        ("empty", "", "the cat"),
        ("empty", "the cat", ""),
        ("empty", "   ", "\t\n"),
        ("punctuation", string.punctuation, string.punctuation),
        ("punctuation", "!!!", "cat"),
        ("punctuation", "cat.", "CAT!"),
        ("punctuation", "«»¿¡…—–’“”", "«»¿¡…—–’“”"),
        ("articles", "a an the", "the an a"),
        ("articles", "the", "cat"),
        ("articles", "A.N t.h.e", "an the"),
        ("articles", "the cat", "a cat"),
        ("articles", "the_cat the-cat", "the cat"),
        ("articles", "théatre the", "theatre"),
        ("articles", "1the the1 _the_", "the"),
        ("articles", "€the ½a …an…", "€ ½ … …"),
        ("articles", "cat€the€dog x", "cat€ €dog"),
        ("repeated", "cat cat cat cat", "cat"),
        ("repeated", "cat", "cat cat cat cat"),
        ("repeated", "cat cat dog", "dog cat dog"),
        ("unicode", "İstanbul", "i̇stanbul"),
        ("unicode", "ΟΔΟΣ ΣΑΣ", "οδος σας"),
        ("unicode", "ΟΔΟΣ.ΣΑΣ Σ.", "οδοσσας σ"),
        ("unicode", "ὈΔΌΣ.", "ὀδός"),
        ("unicode", "STRASSE", "straße"),
        ("unicode", "ﬁne", "FINE"),
        ("unicode", "Ǆ ǅ", "ǆ"),
        ("unicode", "中文 日本語", "中文"),
        ("unicode", "a\u200bthe", "a the"),
        ("unicode", "e\u0301 café", "café"),
        ("whitespace", "cat\x1cdog\x1fmat\x85hat", "cat dog mat hat"),
        ("whitespace", "cat\u3000dog\xa0mat", "cat dog mat"),
        ("identical", "The quick brown fox.", "The quick brown fox."),
        ("identical", "Paris is the capital of France.", "paris is the capital of france"),
        ("disjoint", "alpha beta", "gamma delta"),
        ("half", "cat dog", "cat"),
    ]
    return pairs


def call_cases(rng: random.Random) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(category, init, call) for every case."""
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for category, response, truth in edge_pairs():
        cases.append((category, {}, {"response": response, "ground_truth": truth}))
    for words in (1, 2, 3, 5, 8, 13, 40):
        for _ in range(25):
            base = text(rng, rng.randint(1, words))
            cases.append(("random", {}, {"response": related(rng, base), "ground_truth": base}))
    for _ in range(4):
        base = text(rng, 5000)
        cases.append(("long", {}, {"response": related(rng, base), "ground_truth": base}))
    # Long texts without capital sigma or capital I with dot, the two code points whose lower
    # case the columnar kernel leaves to Python: these go through the kernel.
    plain = [word for word in WORDS if "Σ" not in word and "İ" not in word]
    for _ in range(2):
        base = " ".join(rng.choice(plain) for _ in range(5000))
        cases.append(("long", {}, {"response": related(rng, base), "ground_truth": base}))
    # The pass/fail boundary: scores of exactly 1/2, 1/3, 2/3 against thresholds at and beside them.
    boundary = [("cat dog", "cat"), ("cat dog mat", "cat"), ("cat dog mat", "cat dog"), ("cat", "cat")]
    for threshold in (0.5, 1 / 3, 2 / 3, 0.5000000000000001, 0, 1, 0.0, 1.0, -1, 2, 0.3333333333333333, True):
        for response, truth in boundary:
            cases.append(("threshold", {"threshold": threshold}, {"response": response, "ground_truth": truth}))
    for threshold in (float("nan"), float("inf"), None, "0.5"):
        cases.append(("threshold", {"threshold": threshold}, {"response": "cat dog", "ground_truth": "cat"}))
    plumbing = [
        {},
        {"response": "cat"},
        {"ground_truth": "cat"},
        {"response": None, "ground_truth": "cat"},
        {"response": "cat", "ground_truth": None},
        {"response": "cat", "ground_truth": "cat", "query": "what?"},
        {"response": 5, "ground_truth": "cat"},
        {"response": "cat", "ground_truth": ["cat"]},
        {"response": True, "ground_truth": "cat"},
    ]
    cases += [("plumbing", {}, call) for call in plumbing]
    conversations = [
        {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "the cat", "ground_truth": "a cat"}]},
        {"messages": [
            {"role": "user", "content": "q1"}, {"role": "assistant", "content": "cat dog", "ground_truth": "cat"},
            {"role": "user", "content": "q2"}, {"role": "assistant", "content": "mat", "ground_truth": "hat"},
        ]},
        {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "cat"}]},
        {"messages": []},
    ]
    cases += [("conversation", {}, {"conversation": conversation}) for conversation in conversations]
    cases.append(("conversation", {}, {"conversation": conversations[0], "response": "cat"}))
    cases.append(("conversation", {}, {"conversation": conversations[0], "response": ""}))
    return cases


def record(index: int, category: str, init: dict[str, Any], call: dict[str, Any]) -> dict[str, Any]:
    """Run one case through the SDK and encode what it returned or raised."""
    out: dict[str, Any] = {
        "case_id": f"f1-{index:04d}",
        "category": category,
        "sdk_version": SDK_VERSION,
        "init": encode_input(init),
        "call": encode_input(call),
        "output": None,
        "error": None,
    }
    stage = "init"
    try:
        evaluator = F1ScoreEvaluator(**init)
        stage = "call"
        result = evaluator(**call)
    except Exception as exc:  # noqa: BLE001 -- every failure is part of the record
        error = {"stage": stage, "type": type(exc).__name__, "message": str(exc.args[0]) if exc.args else ""}
        if isinstance(exc, EvaluationException):
            error["category"] = exc.category.value
            error["blame"] = exc.blame.value
        out["error"] = error
        return out
    out["output"] = encode_typed(result)[1]
    return out


def main() -> None:
    logging.disable(logging.CRITICAL)  # the SDK logs every rejected call at ERROR level
    rng = random.Random(SEED)
    records = [record(index, *case) for index, case in enumerate(call_cases(rng))]
    # ASCII escapes: the texts hold line separators (U+2028, U+0085) that line readers split on.
    lines = "".join(json.dumps(item) + "\n" for item in records)
    OUTPUT.write_text(lines, encoding="utf-8")
    print(f"{len(records)} cases -> {OUTPUT}")


if __name__ == "__main__":
    main()
