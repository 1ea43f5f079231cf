"""Substring search of the containment and keyword kernels: the first occurrence, in linear time on any input.

Both ways of the search (bytes compared from each candidate position, and Knuth-Morris-Pratt past
a budget) find what a plain-Python reference finds, with and without word boundaries; a needle
that overlaps itself against a long run of its byte is searched within a hang guard.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.kernels.text import contains

WORD = np.zeros(contains.CODE_POINTS, dtype=np.uint8)
WORD[[ord(c) for c in "ab_é"]] = 1
texts = st.text(alphabet="aab b_é.", max_size=30)


def reference(text: str, needle: str, boundaries: bool) -> int:
    """The first occurrence's byte offset (as the kernels index bytes), or -1."""
    if not needle:
        return -1
    pattern = re.escape(needle)
    if boundaries:
        pattern = rf"(?<![ab_é]){pattern}(?![ab_é])"
    match = re.search(pattern, text)
    return -1 if match is None else len(text[: match.start()].encode())


def _bytes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode(), dtype=np.uint8)


@given(texts, st.text(alphabet="aab_é.", max_size=6), st.booleans())
def test_both_ways_find_the_first_occurrence(text: str, needle: str, boundaries: bool) -> None:
    h, n = _bytes(text), _bytes(needle)
    expected = reference(text, needle, boundaries)
    assert contains.first_occurrence.python(h, 0, len(h), 0, n, 0, len(n), WORD, boundaries) == expected
    if needle:
        kmp = contains._first_occurrence_kmp.python
        assert kmp(h, 0, len(h), 0, n, 0, len(n), WORD, boundaries, contains._SAME) == expected
        # Lower-casing the text as it is read: the needle (lower case here) is found in the upper-cased text.
        upper = _bytes(text.upper()) if text.upper().encode() == text.encode().upper() else None
        if upper is not None and not boundaries:
            assert kmp(upper, 0, len(upper), 0, n, 0, len(n), WORD, False, contains._LOWER) == expected


def test_a_self_overlapping_needle_is_searched_in_linear_time() -> None:
    """200 KB of "a" against 50,000 "a" and a "b" (never found): 10^10 byte comparisons the naive way.

    Through the three searches: containment, keywords (with and without word boundaries) and the
    extracts' search that lower-cases the text as it reads it (found once a "B" ends the text).
    """
    script = textwrap.dedent(
        """
        import numpy as np
        from retrieval_eval.kernels.text import contains, keywords
        text = np.frombuffer(b"a" * 200_000, dtype=np.uint8)
        needle = np.frombuffer(b"a" * 50_000 + b"b", dtype=np.uint8)
        rows = np.zeros(1, dtype=np.int64)
        for array in (text, needle, rows):
            array.setflags(write=False)
        h_offsets, n_offsets = np.array([0, text.size]), np.array([0, needle.size])
        word = np.zeros(contains.CODE_POINTS, dtype=np.uint8)
        assert not contains.contains_pairs(h_offsets, text, rows, n_offsets, needle, rows)[0]
        for boundaries in (False, True):
            flags = np.array([boundaries])
            assert not keywords.keywords_found(h_offsets, text, rows, n_offsets, needle, rows, word, flags)[0]
        # RetrievalResult's search of the extracts (Horspool over the lower-cased text): 'A' * 200 KB.
        upper = np.frombuffer(b"A" * 200_000, dtype=np.uint8)
        shifts = np.empty(256, dtype=np.int64)
        contains._fill_shifts(shifts, n_offsets, needle, 0)
        assert not contains._occurs_lowered(upper, 0, upper.size, n_offsets, needle, 0, shifts)
        found = np.frombuffer(b"A" * 200_000 + b"B", dtype=np.uint8)
        assert contains._occurs_lowered(found, 0, found.size, n_offsets, needle, 0, shifts)
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
