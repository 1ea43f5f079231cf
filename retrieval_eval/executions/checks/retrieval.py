"""RetrievalQuery and RetrievalResult: the retrieval-execution checks of the Microsoft 365 Copilot evaluation CLI.

Both reproduce the v1 (deterministic) behaviour of the CLI, with its output keys and
diagnostic codes; the exact rules and worked examples are in ``specs/m365-retrieval-checks.md``
(sections 4.3, 6, 7 and 8); the codes are decided by the tables of :mod:`..rules`, which the
column-wise engine follows too. Both are scoped to one ``capability`` (exact, case-sensitive) and
look only at the executions of it whose status is OK (``success``, ``succeeded``,
``completed`` in any case, or no status): call that set *E*.

A *retrieval failure* is: no telemetry, no executions at all, or executions of the capability
that all have a non-OK status. A capability that does not appear in the telemetry is not a
retrieval failure: it was never requested.

The threshold of both checks is pinned at 1.0; configuring one is an error. Invalid options
and unreadable telemetry are handled as for every evaluator (:mod:`.evaluator`): ``run``
gives the errored record.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Annotated, Any, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

from ...errors import ConfigError
from ..model.models import RetrievalExecution, RetrievalTelemetry
from ..model.normalize import ExecutionsLike, load_executions
from ..rules import QUERY_CODES, RESULT_CODES, is_ok_status, is_retrieval_failure, result_score_value
from .evaluator import DeterministicEvaluator
from .matching import SUBSTRING, ExtractMatcher, Verdict, contains

THRESHOLD = 1.0

_Text = Annotated[StrictStr, Field(min_length=1)]


class _Options(BaseModel):
    """The options shared by both checks, as the evaluation document spells them (no other keys)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    capability: _Text
    threshold: None = None

    @field_validator("threshold", mode="before")
    @classmethod
    def _pinned(cls, value: Any) -> None:
        raise ValueError(f"the threshold is pinned at {THRESHOLD} for retrieval checks and cannot be configured")


class _QueryOptions(_Options):
    selector: _Text
    includes: tuple[_Text, ...] = ()
    excludes: tuple[_Text, ...] = ()


def _snippet(item: Any) -> Any:
    # The document form is {"retrievalExtract_contains": snippet}; the Python API also takes the bare snippet.
    if isinstance(item, Mapping):
        if "webUrl" in item:
            raise ValueError("webUrl is not supported (URL matching is deferred to V2); use retrievalExtract_contains")
        unknown = sorted(set(item) - {"retrievalExtract_contains"})
        if unknown:
            raise ValueError(f"unknown key {unknown[0]!r}; an expected item has only retrievalExtract_contains")
        if "retrievalExtract_contains" not in item:
            raise ValueError("retrievalExtract_contains is required")
        return item["retrievalExtract_contains"]
    return item


class _ResultOptions(_Options):
    max_rank: StrictInt = Field(default=10, ge=1)
    min_expected_count: StrictInt | None = Field(default=None, ge=1)
    expected_items: tuple[Annotated[_Text, BeforeValidator(_snippet)], ...] | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _asserts_something(self) -> Self:
        if self.expected_items is None and self.min_expected_count is None:
            raise ValueError("at least one of 'expected_items' or 'min_expected_count' is required")
        return self


class _Check(DeterministicEvaluator):
    @abstractmethod
    def __call__(self, executions: ExecutionsLike | None) -> dict[str, Any]:
        """The score object for these executions (None: no telemetry)."""


class RetrievalQuery(_Check):
    """Did the agent issue the query it should have?

    The *matched queries* are every non-empty ``queryString`` of *E* (in execution order, then
    query order, duplicates kept) that contains ``selector``; ``filterExpression`` is never
    looked at. The check passes when any one matched query contains every ``includes`` term
    and no ``excludes`` term. Otherwise ``includes_missing`` and ``excludes_found`` are the
    sorted unions over all matched queries (so a term can be "missing" that another matched
    query has). Every test is casefolded containment (:func:`~.matching.contains`).

    Diagnostic codes: ``pass``; ``retrieval_failure`` (see the module docstring);
    ``no_matching_query``; ``required_terms_missing``, ``excluded_terms_found``,
    ``mixed_term_failure`` (both). The score is 1.0 on pass, else 0.0. When no query was
    matched, ``includes_missing`` is the whole ``includes`` list, as configured.
    """

    _options_model = _QueryOptions

    def __init__(self, capability: str, selector: str, *, includes: Sequence[str] = (), excludes: Sequence[str] = ()) -> None:
        self.options: _QueryOptions = self._parse(
            {"capability": capability, "selector": selector, "includes": includes, "excludes": excludes}
        )

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> RetrievalQuery:
        """The check from its evaluation-document options (``capability``, ``selector``, ``includes``, ``excludes``)."""
        parsed = cls._parse(options)
        return cls(parsed.capability, parsed.selector, includes=parsed.includes, excludes=parsed.excludes)

    def __call__(self, executions: ExecutionsLike | None) -> dict[str, Any]:
        """The ``retrievalQuery`` score object for these executions (None: no telemetry)."""
        options = self.options
        scope, failed = _scope(executions, options.capability)
        matched = [
            query.queryString
            for execution in scope
            for query in execution.queries
            if query.queryString and contains(query.queryString, options.selector)
        ]
        missing: set[str] = set()
        found: set[str] = set()
        passing = None
        for query in matched:
            query_missing = {term for term in options.includes if not contains(query, term)}
            query_found = {term for term in options.excludes if contains(query, term)}
            if not query_missing and not query_found:
                passing = query
                break
            missing |= query_missing
            found |= query_found
        code = QUERY_CODES.first(
            failure=failed is not None, no_match=not matched, passed=passing is not None, missing=bool(missing), found=bool(found)
        )
        score = partial(query_score, code, capability=options.capability, selector=options.selector, failed=failed)
        if code in ("retrieval_failure", "no_matching_query"):
            return score(matched=[], includes_missing=list(options.includes), excludes_found=[])
        if code == "pass":
            return score(matched=matched, includes_missing=[], excludes_found=[], passing=passing)
        return score(matched=matched, includes_missing=sorted(missing), excludes_found=sorted(found))


class RetrievalResult(_Check):
    """Did the capability return the expected content within ``max_rank``?

    The *candidates* are the hits of *E* with ``rank <= max_rank`` (ranks are 1-based and per
    execution, so two executions can give more than ``max_rank`` candidates), in execution
    order, then hit order; ``results_evaluated`` is their number (``totalResultCount`` is not
    used). The count check passes when ``min_expected_count`` is unset or at most the number of
    candidates. Each expected snippet is judged independently by ``matcher`` (default: some
    extract of a candidate contains it, casefolded; the best-ranked such hit is reported). A
    matcher that is not callable is a ConfigError; one whose answer is not a
    :class:`~.matching.Verdict` with no hit or one of the candidates gives the errored record.

    Outcomes, in this order:

    - a retrieval failure: ``error``, score 0.0, ``results_evaluated`` 0, empty lists;
    - no expected items: ``pass`` (1.0) or ``count_below_minimum`` (0.0);
    - no candidates: ``not_retrieved`` (0.0), every item missing, ``extract_failures`` empty
      (the capability returned nothing), even when the count check failed too;
    - the count check failed: ``count_below_minimum``, score **0.0** whatever matched (as
      upstream, although the docs call the score proportional); the lists are filled in;
    - every item matched: ``pass``, 1.0;
    - else ``not_retrieved``, score matched / expected, unrounded (2 of 3 is 0.666...).
    """

    _options_model = _ResultOptions

    def __init__(
        self,
        capability: str,
        *,
        max_rank: int = 10,
        min_expected_count: int | None = None,
        expected_items: Sequence[str | Mapping[str, str]] | None = None,
        matcher: ExtractMatcher = SUBSTRING,
    ) -> None:
        options = {"capability": capability, "max_rank": max_rank}
        if min_expected_count is not None:
            options["min_expected_count"] = min_expected_count
        if expected_items is not None:
            options["expected_items"] = expected_items
        self.options: _ResultOptions = self._parse(options)
        if not callable(matcher):
            kind = type(matcher).__name__
            raise ConfigError(f"RetrievalResult: matcher must be callable (snippet, candidates) -> Verdict, got {kind}")
        self.matcher = matcher

    @classmethod
    def from_options(cls, options: Mapping[str, Any], *, matcher: ExtractMatcher = SUBSTRING) -> RetrievalResult:
        """The check from its evaluation-document options.

        Those are ``capability``, ``max_rank``, ``min_expected_count`` and ``expected_items``.
        """
        parsed = cls._parse(options)
        return cls(
            parsed.capability,
            max_rank=parsed.max_rank,
            min_expected_count=parsed.min_expected_count,
            expected_items=parsed.expected_items,
            matcher=matcher,
        )

    def __call__(self, executions: ExecutionsLike | None) -> dict[str, Any]:
        """The ``retrievalResult`` score object for these executions (None: no telemetry)."""
        options = self.options
        scope, failed = _scope(executions, options.capability)
        max_rank, minimum = options.max_rank, options.min_expected_count
        candidates = [hit for execution in scope for hit in execution.retrievalHits if hit.rank <= max_rank]
        snippets = options.expected_items or ()
        matched, missing = [], []
        if failed is None and not candidates:  # the capability returned nothing: every item is missing
            missing = [{"extractMatch": snippet} for snippet in snippets]
        for snippet in snippets if candidates else ():  # each judged only when there is something to search
            verdict = self.matcher(snippet, candidates)
            # A hit from elsewhere would report a url and rank that were never within max_rank.
            if not isinstance(verdict, Verdict) or not (verdict.hit is None or verdict.hit in candidates):
                raise ConfigError(
                    f"RetrievalResult: the matcher returned {verdict!r}; expected a Verdict whose hit is None or "
                    "one of the candidates"
                )
            because = {} if verdict.reason is None else {"reason": verdict.reason}
            if verdict.hit is None:
                missing.append({"extractMatch": snippet, **because})
            else:
                hit = {"matchedHitUrl": verdict.hit.webUrl or "", "matchedHitRank": verdict.hit.rank}
                matched.append({"extractMatch": snippet, **hit, **because})
        count = len(candidates)
        code = RESULT_CODES.first(
            failure=failed is not None,
            no_items=not snippets,
            count_passed=minimum is None or count >= minimum,
            no_candidates=not candidates,
            all_found=not missing,
        )
        return result_score(
            code, capability=options.capability, max_rank=max_rank, minimum=minimum, failed=failed, count=count,
            matched=matched, missing=missing,
        )


def _scope(executions: ExecutionsLike | None, capability: str) -> tuple[list[RetrievalExecution], int | None]:
    """*E* (the OK executions of ``capability``), and for a retrieval failure the ``failed`` of :func:`failure_reason`.

    The second item is None when there is no retrieval failure.
    """
    telemetry: RetrievalTelemetry | None = None if executions is None else load_executions(executions)
    if telemetry is None or not telemetry.retrieval_executions:
        return [], 0
    own = [execution for execution in telemetry.retrieval_executions if execution.capability == capability]
    scope = [execution for execution in own if is_ok_status(execution.status)]
    if is_retrieval_failure(len(telemetry.retrieval_executions), len(own), len(scope)):
        return [], len(own)
    return scope, None


def failure_reason(capability: str, failed: int) -> str:
    """The reason of a retrieval failure: all ``failed`` executions of ``capability`` failed (0: none was recorded)."""
    if failed == 0:
        return "Retrieval telemetry unavailable: no retrieval executions were recorded"
    return f"All {failed} {capability} retrieval executions failed"


def query_score(
    code: str,
    *,
    capability: str,
    selector: str,
    failed: int | None,
    matched: list[str],
    includes_missing: list[str],
    excludes_found: list[str],
    passing: str | None = None,
) -> dict[str, Any]:
    """The ``retrievalQuery`` score object with diagnostic ``code``.

    ``failed`` is for ``retrieval_failure`` (see :func:`failure_reason`), ``passing`` the matched
    query that passed.
    """
    if code == "retrieval_failure":
        reason = failure_reason(capability, failed)
    elif code == "no_matching_query":
        reason = f"No {capability} query contains the selector {selector!r}"
    elif code == "pass":
        reason = f"The query {passing!r} matches the selector, has every required term and no excluded term"
    elif code == "mixed_term_failure":
        reason = f"Missing required terms {includes_missing}; found excluded terms {excludes_found}"
    elif code == "excluded_terms_found":
        reason = f"Found excluded terms {excludes_found}"
    else:
        reason = f"Missing required terms {includes_missing}"
    passed = code == "pass"
    return {
        "score": 1.0 if passed else 0.0,
        "result": "pass" if passed else "fail",
        "threshold": THRESHOLD,
        "diagnostic_code": code,
        "reason": reason,
        "matched_queries": matched,
        "includes_missing": includes_missing,
        "excludes_found": excludes_found,
    }


def result_score(
    code: str,
    *,
    capability: str,
    max_rank: int,
    minimum: int | None,
    failed: int | None,
    count: int,
    matched: list[dict[str, Any]],
    missing: list[dict[str, Any]],
) -> dict[str, Any]:
    """The ``retrievalResult`` score object with diagnostic ``code``, ``count`` candidates and the judged items.

    ``failed`` is for ``error`` (see :func:`failure_reason`). The score follows from the code and
    the items: 1.0 on pass, matched / expected on ``not_retrieved``, else 0.0. Every missing item
    is also an extract failure when there were candidates to search.
    """
    snippets = [item["extractMatch"] for item in missing]
    expected = len(matched) + len(missing)
    if code == "error":
        reason = failure_reason(capability, failed)
    elif code == "pass" and expected:
        reason = f"All {expected} expected items found within rank {max_rank}"
    elif code in ("pass", "count_below_minimum"):
        reason = f"Retrieved {count} results within rank {max_rank}; at least {minimum} required"
    elif count == 0:
        reason = f"No {capability} results within rank {max_rank}; missing: {snippets!r}"
    else:
        reason = f"Found {len(matched)} of {expected} expected items within rank {max_rank}; missing: {snippets!r}"
    score = result_score_value(code == "pass", code == "not_retrieved", len(matched), expected)
    return {
        "score": score,
        "result": "pass" if code == "pass" else "fail",
        "threshold": THRESHOLD,
        "diagnostic_code": code,
        "reason": reason,
        "results_evaluated": count,
        "matched_items": matched,
        "missing_items": missing,
        "extract_failures": [dict(item) for item in missing] if count else [],
    }
