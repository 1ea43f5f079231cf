"""Drop-ins for ragas' deterministic retrieval metrics (0.4.3), on columnar arrays.

- :class:`IDBasedContextPrecision`, :class:`IDBasedContextRecall`: set overlap of context ids.
- :class:`NonLLMContextPrecisionWithReference`, :class:`NonLLMContextRecall`: string similarity of
  contexts through rapidfuzz (:class:`DistanceMeasure`: levenshtein, hamming, jaro, jaro_winkler).
- :func:`average_precision`: ragas' context precision from any 0/1 verdicts per retrieved context.
- :func:`evaluate_samples`: every metric over a file or table of samples with ragas' field names.

Each drop-in scores one sample as ragas does (``single_turn_ascore``) and many column-wise
(``score_samples``); the values equal ragas' to the bit (where ragas fails, see :mod:`.string_based`).
"""

from __future__ import annotations

from .._lazy import lazy_attributes

_EXPORTS = {
    "DistanceMeasure": ".string_based",
    "IDBasedContextPrecision": ".metrics",
    "IDBasedContextRecall": ".metrics",
    "NonLLMContextPrecisionWithReference": ".metrics",
    "NonLLMContextRecall": ".metrics",
    "NonLLMStringSimilarity": ".metrics",
    "average_precision": ".verdict_precision",
    "evaluate_samples": ".samples",
    "id_based_context_precision_recall": ".id_based",
    "non_llm_context_precision": ".string_based",
    "non_llm_context_recall": ".string_based",
    "samples_as_qrels_run": ".qrels_run",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
