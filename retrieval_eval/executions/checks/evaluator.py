"""The shape every deterministic evaluator of the evaluation document shares.

An evaluator is built from its evaluation-document options (``from_options``), validated by a
pydantic model that forbids unknown keys, and scores one item or turn (``__call__``). Invalid
options raise :class:`~retrieval_eval.errors.ConfigError` naming the field; an item the
evaluator cannot score (an empty response, unreadable telemetry) raises
:class:`~retrieval_eval.errors.InputError`. :meth:`DeterministicEvaluator.run` turns either
into upstream's errored-evaluator record, ``{"result": "error", "error": "Evaluator failed: <message>"}``,
so that one bad evaluator does not stop the rest of a document from being scored.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ValidationError

from ...errors import ConfigError, RetrievalEvalError
from ..model.validation import first_error


def errored(message: str) -> dict[str, Any]:
    """Upstream's record for an evaluator that produced no result (the schema's ``ErroredScore``)."""
    return {"result": "error", "error": f"Evaluator failed: {message}"}


class OptionError(ConfigError):
    """Options that do not parse: not an object, an unknown option, a value of the wrong type or out of range.

    Options that parse but leave nothing to check (no keywords, no expected items) are not one:
    the reference systems score such a case as invalid, and so does this project.
    """


class DeterministicEvaluator(ABC):
    """Base class: options parsing with field-naming errors, and the errored record on failure."""

    _options_model: ClassVar[type[BaseModel]]

    @classmethod
    def _parse(cls, options: Any) -> Any:
        if not isinstance(options, Mapping):
            raise OptionError(f"{cls.__name__}: the options must be an object, got {type(options).__name__}")
        try:
            return cls._options_model.model_validate(options)
        except ValidationError as exc:
            field, message = first_error(exc)
            if field:
                raise OptionError(f"{cls.__name__}: option '{field}': {message}") from None
            raise ConfigError(f"{cls.__name__}: {message}") from None

    @classmethod
    def run(cls, options: Mapping[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The evaluator's entry in ``scores``: ``from_options(options)(*args)``, or the errored record."""
        try:
            return cls.from_options(options, **kwargs)(*args)
        except RetrievalEvalError as exc:
            return errored(str(exc))

    @classmethod
    @abstractmethod
    def from_options(cls, options: Mapping[str, Any], **kwargs: Any) -> Self:
        """The evaluator from its evaluation-document options; ConfigError names the invalid field."""

    @abstractmethod
    def __call__(self, *args: Any) -> dict[str, Any]:
        """The score object for one item or turn."""
