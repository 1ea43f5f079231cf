"""Retrieval executions (what an agent's retrieval capabilities ran and returned), the checks over them,
and the offline scoring of evaluation documents.

>>> from retrieval_eval.executions import RetrievalQuery, load_executions
>>> telemetry = load_executions({"executions": [{"name": "Email", "debugInfo": {"queryString": "Q3 budget"}}]})
>>> RetrievalQuery("Email", "budget", includes=["q3"])(telemetry)["diagnostic_code"]
'pass'

- :func:`check_document` scores an evaluation document (schemaVersion 1.x): Citations,
  ExactMatch, PartialMatch, RetrievalQuery and RetrievalResult, and Copilot Studio's
  KeywordMatch and ToolUse, with the status rollup.
- With a judge (``judge=``), :func:`check_document` also scores the judged evaluators
  (Relevance, Coherence, Groundedness, Similarity; Copilot Studio's GeneralQuality,
  CompareMeaning, TextSimilarity, Custom), one batch per document (:mod:`.judged`).
- :func:`score_tasks` judges a Foundry agent optimizer task dataset criterion by criterion.
- :func:`check_log` runs RetrievalQuery, RetrievalResult, KeywordMatch and ToolUse over every
  record of an execution log, column-wise.
"""

from __future__ import annotations

from .._lazy import lazy_attributes

# Loaded on first use: scoring a document does not load the log engine (pandas) and the reverse.
_EXPORTS = {
    "OK_STATUSES": ".checks",
    "THRESHOLD": ".checks",
    "RetrievalQuery": ".checks",
    "RetrievalResult": ".checks",
    "MATCH_MODES": ".expectations",
    "KeywordMatch": ".keyword_match",
    "ToolUse": ".tool_use",
    "CITATION_FORMATS": ".citations",
    "Citations": ".citations",
    "read_document": ".document",
    "DeterministicEvaluator": ".evaluator",
    "LogCheck": ".log_check",
    "check_log": ".log_check",
    "SUBSTRING": ".matching",
    "ExtractMatcher": ".matching",
    "Verdict": ".matching",
    "contains": ".matching",
    "extract_matcher": ".matching",
    "ExecutedQuery": ".models",
    "Extract": ".models",
    "RetrievalExecution": ".models",
    "RetrievalHit": ".models",
    "RetrievalTelemetry": ".models",
    "ExecutionsLike": ".normalize",
    "load_executions": ".normalize",
    "normalize_executions": ".normalize",
    "CheckSummary": ".outcomes",
    "thread_summary": ".rollup",
    "turn_status": ".rollup",
    "DocumentCheck": ".runner",
    "check_document": ".runner",
    "PARTIAL_MATCH_MODES": "..policies",
    "Relevance": ".judged.likert",
    "Coherence": ".judged.likert",
    "Groundedness": ".judged.likert",
    "Similarity": ".judged.likert",
    "GeneralQuality": ".judged.studio",
    "CompareMeaning": ".judged.studio",
    "TextSimilarity": ".judged.studio",
    "Custom": ".judged.studio",
    "Task": ".tasks",
    "TaskResults": ".tasks",
    "read_tasks": ".tasks",
    "score_tasks": ".tasks",
    "ExactMatch": ".text_match",
    "PartialMatch": ".text_match",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
