"""Retrieval executions (what an agent's retrieval capabilities ran and returned), the checks over them,
and the offline scoring of evaluation documents.

>>> from retrieval_eval.executions import RetrievalQuery, load_executions
>>> telemetry = load_executions({"executions": [{"name": "Email", "debugInfo": {"queryString": "Q3 budget"}}]})
>>> RetrievalQuery("Email", "budget", includes=["q3"])(telemetry)["diagnostic_code"]
'pass'

- :func:`check_document` scores an evaluation document (schemaVersion 1.x): Citations,
  ExactMatch, PartialMatch, RetrievalQuery and RetrievalResult, with the status rollup.
- :func:`check_log` runs the retrieval checks over every record of an execution log, column-wise.
"""

from .checks import OK_STATUSES, THRESHOLD, RetrievalQuery, RetrievalResult
from .citations import CITATION_FORMATS, Citations
from .document import read_document
from .evaluator import DeterministicEvaluator
from .log_check import LogCheck, check_log
from .matching import SUBSTRING, ExtractMatcher, Verdict, contains, extract_matcher
from .models import ExecutedQuery, Extract, RetrievalExecution, RetrievalHit, RetrievalTelemetry
from .normalize import ExecutionsLike, load_executions, normalize_executions
from .outcomes import CheckSummary
from .rollup import thread_summary, turn_status
from .runner import DocumentCheck, check_document
from .text_match import PARTIAL_MATCH_MODES, ExactMatch, PartialMatch

__all__ = [
    "CITATION_FORMATS",
    "OK_STATUSES",
    "PARTIAL_MATCH_MODES",
    "SUBSTRING",
    "THRESHOLD",
    "CheckSummary",
    "Citations",
    "DeterministicEvaluator",
    "DocumentCheck",
    "ExactMatch",
    "ExecutedQuery",
    "ExecutionsLike",
    "Extract",
    "ExtractMatcher",
    "LogCheck",
    "PartialMatch",
    "RetrievalExecution",
    "RetrievalHit",
    "RetrievalQuery",
    "RetrievalResult",
    "RetrievalTelemetry",
    "Verdict",
    "check_document",
    "check_log",
    "contains",
    "extract_matcher",
    "load_executions",
    "normalize_executions",
    "read_document",
    "thread_summary",
    "turn_status",
]
