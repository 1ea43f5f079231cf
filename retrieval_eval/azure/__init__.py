"""Drop-ins for azure-ai-evaluation's deterministic evaluators (1.18.10), on the columnar core.

- :class:`DocumentRetrievalEvaluator`: NDCG@3, XDCG@3, fidelity, top-k relevance and holes.
- :class:`F1ScoreEvaluator`: token-overlap F1 of a response against its ground truth.

Each takes the SDK's constructor arguments, is called with the SDK's keywords and returns the
SDK's output dict (keys, order and value types); each also scores a whole file of rows in one
columnar pass. Where the SDK misbehaves the drop-in does the right thing instead (see each
class and the README).
"""

from __future__ import annotations

from .._lazy import lazy_attributes

# Loaded on first use: the F1 evaluator does not need the metrics engine, nor the reverse.
_EXPORTS = {
    "DocumentRetrievalEvaluator": ".document_retrieval",
    "EvaluationException": ".exceptions",
    "F1ScoreEvaluator": ".f1_score",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
