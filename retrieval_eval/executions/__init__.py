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
  CompareMeaning, TextSimilarity, Custom), one batch per document (:mod:`.checks.judged`).
- :func:`score_tasks` judges a Foundry agent optimizer task dataset criterion by criterion.
- :func:`check_log` runs RetrievalQuery, RetrievalResult, KeywordMatch and ToolUse over every
  record of an execution log, column-wise.
"""

from __future__ import annotations

from .._lazy import lazy_attributes

# Loaded on first use: scoring a document does not load the log engine (pandas) and the reverse.
_EXPORTS = {
    "OK_STATUSES": ".rules",
    "THRESHOLD": ".checks.retrieval",
    "RetrievalQuery": ".checks.retrieval",
    "RetrievalResult": ".checks.retrieval",
    "MATCH_MODES": ".checks.expectations",
    "KeywordMatch": ".checks.keyword_match",
    "ToolUse": ".checks.tool_use",
    "CITATION_FORMATS": ".checks.citations",
    "Citations": ".checks.citations",
    "read_document": ".model.document",
    "DeterministicEvaluator": ".checks.evaluator",
    "LogCheck": ".batch.log_check",
    "check_log": ".batch.log_check",
    "SUBSTRING": ".checks.matching",
    "ExtractMatcher": ".checks.matching",
    "Verdict": ".checks.matching",
    "contains": ".checks.matching",
    "extract_matcher": ".checks.matching",
    "ExecutedQuery": ".model.models",
    "Extract": ".model.models",
    "RetrievalExecution": ".model.models",
    "RetrievalHit": ".model.models",
    "RetrievalTelemetry": ".model.models",
    "ExecutionsLike": ".model.normalize",
    "load_executions": ".model.normalize",
    "normalize_executions": ".model.normalize",
    "CheckSummary": ".outcomes",
    "thread_summary": ".rules",
    "turn_status": ".rules",
    "DocumentCheck": ".runner",
    "check_document": ".runner",
    "PARTIAL_MATCH_MODES": "..policies",
    "Relevance": ".checks.judged.likert",
    "Coherence": ".checks.judged.likert",
    "Groundedness": ".checks.judged.likert",
    "Similarity": ".checks.judged.likert",
    "GeneralQuality": ".checks.judged.studio",
    "CompareMeaning": ".checks.judged.studio",
    "TextSimilarity": ".checks.judged.studio",
    "Custom": ".checks.judged.studio",
    "Task": ".tasks",
    "TaskResults": ".tasks",
    "read_tasks": ".tasks",
    "score_tasks": ".tasks",
    "ExactMatch": ".checks.text_match",
    "PartialMatch": ".checks.text_match",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
