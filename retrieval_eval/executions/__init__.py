"""Retrieval executions (what an agent's retrieval capabilities ran and returned) and the checks over them.

>>> from retrieval_eval.executions import RetrievalQuery, load_executions
>>> telemetry = load_executions({"executions": [{"name": "Email", "debugInfo": {"queryString": "Q3 budget"}}]})
>>> RetrievalQuery("Email", "budget", includes=["q3"])(telemetry)["diagnostic_code"]
'pass'
"""

from .checks import OK_STATUSES, THRESHOLD, RetrievalQuery, RetrievalResult
from .matching import SUBSTRING, ExtractMatcher, Verdict, contains, extract_matcher
from .models import ExecutedQuery, Extract, RetrievalExecution, RetrievalHit, RetrievalTelemetry
from .normalize import ExecutionsLike, load_executions, normalize_executions

__all__ = [
    "OK_STATUSES",
    "SUBSTRING",
    "THRESHOLD",
    "ExecutedQuery",
    "ExecutionsLike",
    "Extract",
    "ExtractMatcher",
    "RetrievalExecution",
    "RetrievalHit",
    "RetrievalQuery",
    "RetrievalResult",
    "RetrievalTelemetry",
    "Verdict",
    "contains",
    "extract_matcher",
    "load_executions",
    "normalize_executions",
]
