"""What every judged evaluator shares: options parsed with one-line errors, the texts it reads, and its two steps.

A judged evaluator scores an item in two steps, so that a whole document is judged in one batch
(:mod:`.batch`): :meth:`JudgedEvaluator.asks` says what to ask the judge for one item (or
raises when the item lacks a text it needs), and :meth:`JudgedEvaluator.score` turns the
values read from the replies into the item's score object. Invalid options raise
:class:`~retrieval_eval.errors.ConfigError` naming the evaluator and the option; the runner
adds the item and writes the errored record (``{"result": "error", "error": ...}``).

The evaluators of Copilot Studio are known to the evaluation-document schema only as custom
evaluators (``{"options": {...}, "threshold": t}``, :data:`CustomEvaluatorOptions`), so their
options are also read in that form: ``{"options": X}`` reads as ``X``, and a top-level
``threshold`` is the evaluator's pass score where it has one (giving both is an error).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ValidationError

from ....errors import ConfigError, InputError
from ...model.normalize import load_executions
from ...model.validation import first_error
from ...rules import is_ok_status
from .batch import Ask


@dataclass(frozen=True)
class Texts:
    """What an item gives a judge: ``prompt``, ``response``, ``expected_response``, ``context`` (the item's own),
    and ``telemetry`` (its retrieval executions, whose extracts are retrieved context)."""

    prompt: str | None
    response: str | None
    expected_response: str | None = None
    context: str | None = None
    telemetry: Any = None


class JudgedEvaluator(ABC):
    """Base class: options parsing (pydantic, unknown keys refused) and the two steps (see the module docstring)."""

    name: ClassVar[str]
    _options_model: ClassVar[type[BaseModel]]
    #: The option a custom-form top-level ``threshold`` sets (None: the evaluator takes no custom form).
    _custom_threshold: ClassVar[str | None] = None
    _custom_form: ClassVar[bool] = False

    def __init__(self, **options: Any) -> None:
        self.options = self._parse(options)

    @classmethod
    def from_options(cls, options: Any) -> Self:
        """The evaluator from its evaluation-document options; ConfigError naming the evaluator and the option."""
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise ConfigError(f"{cls.name}: the options must be an object, got {type(options).__name__}")
        return cls(**cls._unwrap(options))

    @classmethod
    def _unwrap(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        if not cls._custom_form or "options" not in options or not set(options) <= {"options", "threshold"}:
            return dict(options)
        inner = options["options"]
        if not isinstance(inner, Mapping):
            raise ConfigError(f"{cls.name}: option 'options': must be an object, got {type(inner).__name__}")
        inner = dict(inner)
        if "threshold" in options:
            if cls._custom_threshold is None:
                raise ConfigError(f"{cls.name}: option 'threshold': {cls.name} has no pass score to set")
            if cls._custom_threshold in inner:
                raise ConfigError(f"{cls.name}: option 'threshold': give it or options.{cls._custom_threshold}, not both")
            inner[cls._custom_threshold] = options["threshold"]
        return inner

    @classmethod
    def _parse(cls, options: Mapping[str, Any]) -> Any:
        try:
            return cls._options_model.model_validate(dict(options))
        except ValidationError as exc:
            field, message = first_error(exc)
            raise ConfigError(f"{cls.name}: " + (f"option '{field}': {message}" if field else message)) from None

    @abstractmethod
    def asks(self, texts: Texts, key: str) -> list[Ask]:
        """The requests for one item (``key`` names it); InputError when the item lacks a text this needs."""

    @abstractmethod
    def score(self, values: Sequence[Any]) -> dict[str, Any]:
        """The item's score object from the values read from the replies to :meth:`asks`, in order."""


def required(value: str | None, what: str, evaluator: str, invalid: bool = False) -> str:
    """``value`` when it is a non-blank string; else InputError ``<evaluator>: no <what> to judge``.

    ``invalid``: a missing text makes the test case invalid (Copilot Studio's rule for an expected answer).
    """
    if isinstance(value, str) and value.strip():
        return value
    if invalid:
        raise InputError(f"{evaluator}: the test case has no {what}, so its result is invalid (neither pass nor fail)")
    state = "is empty" if isinstance(value, str) else "is missing"
    raise InputError(f"{evaluator}: no {what} to judge (the {what} {state})")


def retrieved_passages(telemetry: Any) -> list[str]:
    """The extract texts of every hit of every OK execution, in execution then hit order (blank ones left out)."""
    if telemetry is None:
        return []
    executions = load_executions(telemetry).retrieval_executions
    return [extract.text for execution in executions if is_ok_status(execution.status)
            for hit in execution.retrievalHits for extract in hit.extracts if extract.text and extract.text.strip()]


def context_text(texts: Texts) -> str | None:
    """The item's context for a judge: its ``context`` then its retrieved extracts, one numbered passage each."""
    passages = ([texts.context] if isinstance(texts.context, str) and texts.context.strip() else [])
    passages += retrieved_passages(texts.telemetry)
    if not passages:
        return None
    return "\n".join(f"[{number}] {passage}" for number, passage in enumerate(passages, 1))
