"""Drop-ins for azure-ai-evaluation's deterministic evaluators (1.18.10), on the columnar core.

- :class:`DocumentRetrievalEvaluator`: NDCG@3, XDCG@3, fidelity, top-k relevance and holes.
- :class:`F1ScoreEvaluator`: token-overlap F1 of a response against its ground truth.
- The model-judged ones (:mod:`.judged`): :class:`RelevanceEvaluator`, :class:`RetrievalEvaluator`,
  :class:`GroundednessEvaluator`, :class:`ResponseCompletenessEvaluator`, :class:`CoherenceEvaluator`,
  :class:`FluencyEvaluator`, :class:`SimilarityEvaluator` (1-5 scores from a chat model through the
  judge layer, with a cache, retries and a concurrent batch) and :class:`QAEvaluator` (five of them and F1).

Each takes the SDK's constructor arguments, is called with the SDK's keywords and returns the
SDK's output dict (keys, order and value types); each also scores a whole file of rows in one
columnar pass. Where the SDK misbehaves the drop-in does the right thing instead (see each
class and the README).
"""

from __future__ import annotations

from .._lazy import lazy_attributes

# Loaded on first use: the F1 evaluator does not need the metrics engine, nor the judge layer, nor the reverse.
_EXPORTS = {
    "DocumentRetrievalEvaluator": ".document_retrieval",
    "EvaluationException": ".exceptions",
    "NdcgOutsideUnitIntervalWarning": ".document_retrieval",
    "F1ScoreEvaluator": ".f1_score",
    "RelevanceEvaluator": ".judged.quality",
    "CoherenceEvaluator": ".judged.quality",
    "FluencyEvaluator": ".judged.quality",
    "SimilarityEvaluator": ".judged.quality",
    "ResponseCompletenessEvaluator": ".judged.quality",
    "RetrievalEvaluator": ".judged.grounding",
    "GroundednessEvaluator": ".judged.grounding",
    "QAEvaluator": ".judged.qa",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
