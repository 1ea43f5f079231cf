"""Reading an evaluation document (the Microsoft 365 Copilot evaluation CLI's format, schemaVersion 1.x).

A document is ``{"schemaVersion": "1.x.y", "items": [...], "default_evaluators"?: {...}, ...}``.
An item is either a single turn (``prompt``, ``response``, ``expected_response``,
``evaluators``, ``evaluators_mode``, ``diagnostics``, ``extensions``, ...) or a thread
(``turns``: 1 to 20 turns of those fields). :func:`read_document` checks the structure the
runner relies on and raises :class:`~retrieval_eval.errors.InputError` naming the file and
the field (``items[2].turns[0].prompt``); it does not judge evaluator options, which become
that evaluator's errored record instead, as upstream does. Properties it does not know are
kept: nothing of the input is lost from the output document.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from copy import deepcopy
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError, field_validator

from ...errors import InputError
from ...io import read_json_file
from .validation import first_error

SUPPORTED_MAJOR = 1
_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")
_EVALUATOR_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_]*$")
DocumentLike = Mapping[str, Any] | str | os.PathLike[str]


def _evaluator_names(value: dict[str, Any]) -> dict[str, Any]:
    for name in value:
        if not _EVALUATOR_NAME.match(name):
            raise ValueError(f"evaluator name {name!r} must match {_EVALUATOR_NAME.pattern}")
    return value


class _Shape(BaseModel):
    model_config = ConfigDict(extra="allow")

    @field_validator("evaluators", "default_evaluators", check_fields=False)
    @classmethod
    def _names(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else _evaluator_names(value)


class _Extensions(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: StrictStr | None = None


class _TurnShape(_Shape):
    prompt: StrictStr = Field(min_length=1)
    response: StrictStr | None = None
    expected_response: StrictStr | None = None
    evaluators: dict[str, Any] | None = None
    evaluators_mode: Literal["extend", "replace"] = "extend"
    diagnostics: dict[str, Any] | None = None
    scores: dict[str, Any] | None = None
    extensions: _Extensions | None = None


class _ThreadShape(_Shape):
    turns: list[_TurnShape] = Field(min_length=1, max_length=20)
    extensions: _Extensions | None = None


class _DocumentShape(_Shape):
    schemaVersion: StrictStr
    default_evaluators: dict[str, Any] | None = None
    # Each item is checked against its own kind by read_document, so that errors name its fields.
    items: list[dict[str, Any]] = Field(min_length=1)

    @field_validator("schemaVersion")
    @classmethod
    def _version(cls, value: str) -> str:
        match = _VERSION.match(value)
        if match is None:
            raise ValueError(f"schemaVersion must be MAJOR.MINOR.PATCH (1.x.y), got {value!r}")
        if int(match.group(1)) != SUPPORTED_MAJOR:
            raise ValueError(
                f"schemaVersion {value} has major version {match.group(1)}; only 1.x documents are supported"
            )
        return value


@dataclass(frozen=True)
class Unit:
    """One scored unit of a document: a single-turn item, or one turn of a thread.

    ``path`` locates it (``items[3]``, ``items[4].turns[1]``); ``record`` is its object in the
    output document (a copy of the input), where the runner writes the results.
    """

    path: str
    id: str | None
    record: dict[str, Any]
    thread: dict[str, Any] | None


#: Where a JSON Lines file given as a document goes: an execution log is one record per line.
LOG_HINT = "an execution log (one record per line) is passed with --executions (executions= in Python)"


def read_document(source: DocumentLike) -> dict[str, Any]:
    """The document as plain JSON values, its structure checked; a mapping is copied, never modified."""
    if isinstance(source, Mapping):
        document, label = deepcopy(dict(source)), None
    else:
        label = os.fspath(source)
        document = read_json_file(label, lines_hint=LOG_HINT)
    if not isinstance(document, dict):
        raise InputError(f"an evaluation document is a JSON object, got {type(document).__name__}", source=label)
    _check(_DocumentShape, document, label, None)
    for index, item in enumerate(document["items"]):
        if "turns" in item and "prompt" in item:
            raise InputError(
                "an item is a single turn (prompt) or a thread (turns), not both", source=label, field=f"items[{index}]"
            )
        _check(_ThreadShape if "turns" in item else _TurnShape, item, label, f"items[{index}]")
    return document


def _check(shape: type[BaseModel], value: dict[str, Any], label: str | None, path: str | None) -> None:
    try:
        shape.model_validate(value)
    except ValidationError as exc:
        field, message = first_error(exc)
        where = ".".join(part for part in (path, field) if part) or None
        raise InputError(message, source=label, field=where.replace(".[", "[") if where else None) from None


def units(document: dict[str, Any]) -> Iterator[Unit]:
    """Every single-turn item and every turn of every thread, in document order."""
    for index, item in enumerate(document["items"]):
        if "turns" in item:
            for number, turn in enumerate(item["turns"]):
                yield Unit(f"items[{index}].turns[{number}]", _id(turn), turn, item)
        else:
            yield Unit(f"items[{index}]", _id(item), item, None)


def _id(record: Mapping[str, Any]) -> str | None:
    extensions = record.get("extensions") or {}
    return extensions.get("id")
