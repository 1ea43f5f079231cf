"""Query-by-query explanations of an evaluation: what each run ranked, which documents were
unjudged (holes) or missed, and with a second run what changed (:func:`explain`). Their text for a
terminal and the explorer page are renderers of :mod:`retrieval_eval.report`.

Names are loaded on first use, so that the command line's ``--help`` loads no pandas.
"""

from .._lazy import lazy_attributes

_EXPORTS = {
    "Explanation": ".tables",
    "QueryExplanation": ".tables",
    "explain": ".tables",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
