"""The model-judged evaluators of evaluation documents, run through the judge layer in one batch per document.

- :mod:`.likert`: Relevance, Coherence, Groundedness, Similarity (the Microsoft 365 Copilot
  evaluation CLI's LLM evaluators, 1-5, threshold 3);
- :mod:`.studio`: Copilot Studio's GeneralQuality, CompareMeaning, TextSimilarity and Custom;
- :mod:`.entailment`: RetrievalResult's claims judged as supported by the retrieved evidence
  (schema 1.6.0);
- :mod:`.document`: a document's judged evaluators planned per item and sent as one batch
  (:mod:`.batch`); :mod:`.prompts` and :mod:`.replies`: our prompts and their strict readers.
"""

from __future__ import annotations

from ...._lazy import lazy_attributes

_EXPORTS = {
    "Relevance": ".likert",
    "Coherence": ".likert",
    "Groundedness": ".likert",
    "Similarity": ".likert",
    "GeneralQuality": ".studio",
    "CompareMeaning": ".studio",
    "TextSimilarity": ".studio",
    "Custom": ".studio",
    "JudgedEvaluator": ".base",
    "Texts": ".base",
    "JUDGED": ".document",
    "judge_document": ".document",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
