"""The normalized retrieval execution: what a capability (OneDriveAndSharePoint, Email, ...) ran and returned.

Field names are upstream's (the Microsoft 365 Copilot evaluation CLI and the ``Diagnostics``
definition of its evaluation-document schema), so that ``diagnostics.retrieval_executions`` of an
exported document loads unchanged. Every object allows additional properties, as the schema
does, and keeps them: ``executionId``, ``startedAt`` and ``completedAt`` are our optional
extensions, ``raw_debugInfo`` is what the raw Work IQ form carried. Scalars are typed strictly
(``True`` is not an integer here, ``1`` is not a string); the checks ignore everything but
``capability``, ``status``, ``queries[].queryString``, ``retrievalHits[].rank``,
``retrievalHits[].webUrl`` and ``retrievalHits[].extracts[].text``.

Build these with :func:`retrieval_eval.executions.load_executions`, which applies the loader
rules (hits without an integer rank are ignored, ...) before validating.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictInt, StrictStr

# Strict scalars, lax containers: a tuple of hits is as good as a list, a bool is no rank.
_OPEN = ConfigDict(extra="allow", frozen=True)


def _json_number(value: object) -> object:
    # A bool is an int to Python and a numeric string is lax-coercible; neither is a JSON number.
    # (A validator instead of StrictInt | StrictFloat keeps union branch names out of error paths.)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("Input should be a number")
    return value


_Number = Annotated[int | float, BeforeValidator(_json_number)]


class Extract(BaseModel):
    """One text snippet of a hit; ``relevanceScore`` is the cosine similarity to the query, in [0, 1], when reported."""

    model_config = _OPEN

    text: StrictStr
    relevanceScore: _Number | None = None


class RetrievalHit(BaseModel):
    """One returned item. ``rank`` is 1-based within its execution (1 is the most relevant)."""

    model_config = _OPEN

    rank: StrictInt = Field(ge=1)
    webUrl: StrictStr | None = None
    extracts: list[Extract] = []
    resourceMetadata: dict[str, Any] | None = None
    resourceType: StrictStr | None = None


class ExecutedQuery(BaseModel):
    """A query the agent issued. Only ``queryString`` is matched; ``filterExpression`` never is."""

    model_config = _OPEN

    queryString: StrictStr | None = None
    filterExpression: StrictStr | None = None
    maximumNumberOfResults: StrictInt | None = None


class RetrievalExecution(BaseModel):
    """One capability execution. A ``status`` that is None or empty counts as success, as upstream."""

    model_config = _OPEN

    capability: StrictStr = Field(min_length=1)
    status: StrictStr | None = None
    queries: list[ExecutedQuery] = []
    latencyMs: _Number | None = None
    # Reported by the capability; no check uses it (candidates are counted from the hits).
    totalResultCount: StrictInt | None = None
    retrievalHits: list[RetrievalHit] = []
    executionId: StrictStr | None = None
    startedAt: StrictStr | None = None
    completedAt: StrictStr | None = None


class RetrievalTelemetry(BaseModel):
    """The retrieval executions behind one response, in the order they ran.

    ``source`` says where they came from; ``raw_artifact`` keeps the raw Work IQ data object
    when the executions were normalized from it (upstream keeps it too).
    """

    model_config = _OPEN

    source: StrictStr | None = None
    retrieval_executions: list[RetrievalExecution] = []
    raw_artifact: dict[str, Any] | None = None
