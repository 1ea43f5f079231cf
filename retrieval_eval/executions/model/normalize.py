"""Loading retrieval executions: the raw Work IQ form, the normalized form, or a bare list.

Accepted inputs (:func:`load_executions`):

- the normalized form, ``{"source"?, "retrieval_executions": [...]}``, as the CLI writes it
  under ``items[].diagnostics`` (other keys are kept);
- the raw Work IQ form: the ``data`` object of the ``"Retrieval Info"`` artifact,
  ``{"executions": [{"name", "status", "debugInfo": {...}}, ...]}``;
- a bare list, taken as ``retrieval_executions``;
- a path to a ``.json`` file holding any of these;
- a :class:`RetrievalTelemetry`, returned as it is.

A record is read in the raw form when it comes from ``executions[]``, or when it has no
``capability`` but a ``name`` or a ``debugInfo`` (so a bare list of raw executions loads too).

Loader rules, in both forms:

- an execution without a non-empty string ``capability`` (raw: ``name``) is dropped, as
  upstream drops it; no check could select it. A record with none of the keys that make an
  execution of either form (``capability``, ``name``, ``debugInfo``), such as ``{"foo": 1}``, is
  an error: it is no execution left empty but something else given in its place;
- a hit whose ``rank`` is not an integer is ignored (``True`` is not an integer), because the
  ``max_rank`` filter needs it; a non-object hit has no rank and is ignored too. An integer
  rank below 1 is an error: ranks are 1-based;
- an extract without a string ``text`` is dropped; a ``resourceMetadata`` that is not an
  object becomes None.

The raw form is normalized as upstream does: ``name`` becomes ``capability``; ``status`` is
lower-cased, and a missing or non-string status becomes ``"success"``; the flat debugInfo
scalars become a one-element ``queries[]`` (``queryString`` "" when missing);
``latencyMs`` and ``totalResultCount`` move up to the execution; a missing ``webUrl`` becomes
""; the debugInfo itself is kept as ``raw_debugInfo``.

An object with both ``retrieval_executions`` and ``executions`` is an error (one form would be
dropped unread). Any other malformed value raises :class:`~retrieval_eval.errors.InputError`
naming the field.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ...errors import InputError
from ...io import read_json_file
from .models import RetrievalTelemetry
from .validation import field_path, first_error

ExecutionsLike = RetrievalTelemetry | Mapping[str, Any] | Sequence[Any] | str | os.PathLike[str]


def load_executions(data: ExecutionsLike) -> RetrievalTelemetry:
    """The normalized, validated executions from any accepted form (see the module docstring)."""
    if isinstance(data, RetrievalTelemetry):
        return data
    if isinstance(data, (str, os.PathLike)):
        return _load_file(Path(data))
    return _validate(*_normalize(data))


def normalize_executions(data: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    """The normalized form as plain JSON values, before validation; the input is not modified."""
    return _normalize(data)[0]


def _normalize(data: Any) -> tuple[dict[str, Any], list[str]]:
    # Also returns the input path of each execution kept, so that errors name the field the
    # user wrote even after raw records were renamed or dropped.
    if isinstance(data, Mapping):
        if "retrieval_executions" in data and "executions" in data:
            # Reading one would silently drop the other, however malformed it is.
            raise InputError(
                "holds executions in both forms, 'retrieval_executions' (normalized) and 'executions' "
                "(raw Work IQ form); give one",
                field="executions",
            )
        if "retrieval_executions" in data:
            records = _records(data["retrieval_executions"], "retrieval_executions")
            executions, paths = _executions(records, "retrieval_executions", raw=False)
            rest = {key: value for key, value in data.items() if key != "retrieval_executions"}
            return {**rest, "retrieval_executions": executions}, paths
        if "executions" in data:
            executions, paths = _executions(_records(data["executions"], "executions"), "executions", raw=True)
            return {"retrieval_executions": executions, "raw_artifact": dict(data)}, paths
        raise InputError("expected an object with 'retrieval_executions' (normalized) or 'executions' (raw Work IQ form)")
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        executions, paths = _executions(data, "retrieval_executions", raw=False)
        return {"retrieval_executions": executions}, paths
    raise InputError(f"expected retrieval executions as an object or a list, got {type(data).__name__}")


def _load_file(path: Path) -> RetrievalTelemetry:
    data = read_json_file(path)
    try:
        return _validate(*_normalize(data))
    except InputError as exc:
        raise InputError(exc.detail, source=str(path), field=exc.field) from None


def _records(value: Any, field: str) -> Sequence[Any]:
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return value
    raise InputError(f"must be a list, got {type(value).__name__}", field=field)


#: The keys of which an execution has at least one, in either form.
_EXECUTION_KEYS = frozenset({"capability", "name", "debugInfo"})


def _executions(records: Sequence[Any], field: str, *, raw: bool) -> tuple[list[dict[str, Any]], list[str]]:
    executions, paths = [], []
    for index, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise InputError(f"an execution must be an object, got {type(record).__name__}", field=f"{field}[{index}]")
        if _EXECUTION_KEYS.isdisjoint(record):
            found = ", ".join(repr(key) for key in record) if record else "no keys"
            raise InputError(
                f"an execution has a 'capability' (normalized form) or a 'name' and 'debugInfo' (raw Work IQ form); "
                f"this one has {found}",
                field=f"{field}[{index}]",
            )
        is_raw = raw or ("capability" not in record and ("name" in record or "debugInfo" in record))
        execution = _from_raw(record, f"{field}[{index}]") if is_raw else _from_normalized(record)
        if execution is not None:
            executions.append(execution)
            paths.append(f"{field}[{index}]")
    return executions, paths


def _from_normalized(record: Mapping[str, Any]) -> dict[str, Any] | None:
    if not _non_empty_string(record.get("capability")):
        return None
    execution = dict(record)
    if "retrievalHits" in record:
        execution["retrievalHits"] = _hits(record["retrievalHits"])
    return execution


def _from_raw(record: Mapping[str, Any], field: str) -> dict[str, Any] | None:
    if not _non_empty_string(record.get("name")):
        return None
    debug = record.get("debugInfo")
    if debug is None:
        debug = {}
    elif not isinstance(debug, Mapping):
        raise InputError(f"must be an object, got {type(debug).__name__}", field=f"{field}.debugInfo")
    hits = debug.get("retrievalHits", [])
    if not isinstance(hits, Sequence) or isinstance(hits, (str, bytes)):
        raise InputError(f"must be a list, got {type(hits).__name__}", field=f"{field}.debugInfo.retrievalHits")
    status = record.get("status")
    query_string = debug.get("queryString")
    execution = {key: value for key, value in record.items() if key not in ("name", "status", "debugInfo")}
    return {
        **execution,
        "capability": record["name"],
        "status": status.lower() if isinstance(status, str) else "success",
        "queries": [
            {
                "queryString": "" if query_string is None else query_string,
                "filterExpression": debug.get("filterExpression"),
                "maximumNumberOfResults": debug.get("maximumNumberOfResults"),
            }
        ],
        "latencyMs": debug.get("latencyMs"),
        "totalResultCount": debug.get("totalResultCount"),
        "retrievalHits": [
            {**hit, "webUrl": "" if hit.get("webUrl") is None else hit["webUrl"]}
            for hit in _hits(hits)
        ],
        "raw_debugInfo": dict(debug),
    }


def _hits(hits: Any) -> Any:
    # Not a list: left as it is, for validation to report with the field's path.
    if not isinstance(hits, Sequence) or isinstance(hits, (str, bytes)):
        return hits
    return [_hit(hit) for hit in hits if isinstance(hit, Mapping) and _is_integer(hit.get("rank"))]


def _hit(hit: Mapping[str, Any]) -> dict[str, Any]:
    cleaned = dict(hit)
    extracts = hit.get("extracts", [])
    if isinstance(extracts, Sequence) and not isinstance(extracts, (str, bytes)):
        cleaned["extracts"] = [
            dict(extract) for extract in extracts if isinstance(extract, Mapping) and isinstance(extract.get("text"), str)
        ]
    if "resourceMetadata" in hit and not isinstance(hit["resourceMetadata"], Mapping):
        cleaned["resourceMetadata"] = None
    return cleaned


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _non_empty_string(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _validate(normalized: dict[str, Any], paths: list[str]) -> RetrievalTelemetry:
    try:
        return RetrievalTelemetry.model_validate(normalized)
    except ValidationError as exc:
        field, message = first_error(exc)
        loc = exc.errors()[0]["loc"]
        # Name the execution as the input did: raw records were renamed, and some were dropped.
        if len(loc) >= 2 and loc[0] == "retrieval_executions" and isinstance(loc[1], int):
            rest = field_path(loc[2:])
            field = paths[loc[1]] + (f".{rest}" if rest else "")
        raise InputError(message, field=field) from None
