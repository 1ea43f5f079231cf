"""Answer F1 written from its definition, by another route than the library's (a plain-Python oracle).

The library deletes punctuation with ``str.translate`` and articles with the SDK's regular
expression; this reads the lower-cased text character by character: ASCII punctuation is
skipped, maximal runs of word characters (``str.isalnum`` or ``_``) that are ``a``, ``an`` or
``the`` become a space, and tokens are the maximal runs of characters that are not
``str.isspace``. The shared count is computed by pairing equal tokens one by one.
"""

from __future__ import annotations

import string


def oracle_tokens(text: str) -> list[str]:
    """The normalized tokens of ``text``."""
    kept = [char for char in text.lower() if char not in string.punctuation]
    chars = list(kept)
    i = 0
    while i < len(chars):
        if chars[i].isalnum() or chars[i] == "_":
            start = i
            while i < len(chars) and (chars[i].isalnum() or chars[i] == "_"):
                i += 1
            if "".join(chars[start:i]) in ("a", "an", "the"):
                chars[start:i] = [" "] * (i - start)
        else:
            i += 1
    tokens, current = [], []
    for char in chars:
        if char.isspace():
            if current:
                tokens.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        tokens.append("".join(current))
    return tokens


def multiset_overlap(got: list[str], want: list[str]) -> int:
    """How many tokens of ``got`` can be paired with an equal token of ``want``, each used once."""
    unmatched = list(want)
    overlap = 0
    for token in got:
        if token in unmatched:
            unmatched.remove(token)
            overlap += 1
    return overlap


def oracle_f1(response: str, ground_truth: str) -> float:
    """F1 = 2PR/(P+R) of the shared tokens (0 when none are shared), in the SDK's order of operations."""
    predicted, reference = oracle_tokens(response), oracle_tokens(ground_truth)
    shared = multiset_overlap(predicted, reference)
    if shared == 0:
        return 0.0
    precision = 1.0 * shared / len(predicted)
    recall = 1.0 * shared / len(reference)
    return (2.0 * precision * recall) / (precision + recall)
