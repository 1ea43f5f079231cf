"""Answer F1 as azure-ai-evaluation 1.18.10 defines it, in plain Python: the definition both F1 paths share.

Normalization (``answer_tokens``): lower-case (``str.lower``), delete ASCII punctuation
(``string.punctuation``), replace each article by a space (``re.sub(r"\\b(a|an|the)\\b", " ",
text)``), split on Unicode whitespace (``str.split``). F1 from the token counts
(``f1_from_counts``): 0 when no token is shared, else 2PR/(P+R), in the SDK's order of
floating-point operations.
"""

from __future__ import annotations

import numbers
import re
import string
from collections import Counter
from typing import Any

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def answer_tokens(text: str) -> list[str]:
    """The tokens of ``text`` after the SDK's normalization (see the module docstring)."""
    return _ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split()


def shared_token_count(response: str, ground_truth: str) -> tuple[int, int, int]:
    """(response tokens, ground-truth tokens, size of their multiset intersection)."""
    predicted, reference = answer_tokens(response), answer_tokens(ground_truth)
    shared = Counter(predicted) & Counter(reference)
    return len(predicted), len(reference), sum(shared.values())


def f1_from_counts(shared: Any, predicted: Any, reference: Any) -> Any:
    """F1 from token counts, in the SDK's order of operations; numbers or numpy arrays of them.

    0 where ``shared`` is 0 (then a count may be 0 too, and no division happens).
    """
    if isinstance(shared, numbers.Integral):
        if shared == 0:
            return 0.0
        precision = 1.0 * shared / predicted
        recall = 1.0 * shared / reference
        return (2.0 * precision * recall) / (precision + recall)
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        precision = 1.0 * shared / predicted
        recall = 1.0 * shared / reference
        return np.where(shared == 0, 0.0, (2.0 * precision * recall) / (precision + recall))
