"""The one registry of metrics: evaluation, ``--help`` listings and the tests all read it."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator

from ..errors import ConfigError, UnknownMetricError
from .definition import MetricDefinition
from .names import Metric, parse_cutoff, split_name


class Registry:
    """Metric definitions by name, with parsing of metric names into :class:`Metric` values."""

    def __init__(self, definitions: Iterable[MetricDefinition]) -> None:
        # A name may have two meanings told apart by the cutoff: ``holes`` (a count) and ``holes@k`` (a share).
        self._definitions: dict[tuple[str, bool], MetricDefinition] = {}
        for definition in definitions:
            key = (definition.name, definition.cutoff)
            if key in self._definitions:
                raise ValueError(f"metric {definition.display_name} is defined twice")
            self._definitions[key] = definition

    def __iter__(self) -> Iterator[MetricDefinition]:
        return iter(self._definitions.values())

    def definition(self, metric: Metric) -> MetricDefinition:
        """The definition of a parsed metric."""
        try:
            return self._definitions[(metric.name, metric.k is not None)]
        except KeyError:
            raise self._unknown(str(metric)) from None

    def parse(self, text: str | Metric, *, default_k: int | None = None) -> Metric:
        """Parse a metric name; a name that only exists with a cutoff takes ``default_k`` when written without ``@k``."""
        if isinstance(text, Metric):
            self.definition(text)
            return text
        try:
            parsed = split_name(text)
            alias = self._parse_alias(text)
        except ValueError as error:
            raise ConfigError(f"metric {text!r}: {error}") from None
        if alias is not None:
            return alias
        if parsed is None:
            raise self._unknown(text)
        with_cutoff = self._definitions.get((parsed.name, True))
        without_cutoff = self._definitions.get((parsed.name, False))
        if with_cutoff is None and without_cutoff is None:
            raise self._unknown(text)
        if parsed.params:
            raise ConfigError(f"metric {text!r}: {parsed.name} takes no parameters")
        if parsed.has_cutoff:
            if with_cutoff is None:
                raise ConfigError(f"metric {text!r}: {parsed.name} takes no cutoff @k")
            return Metric(parsed.name, parsed.k)
        if without_cutoff is not None:
            return Metric(parsed.name)
        if default_k is None:
            raise ConfigError(f"metric {text!r} needs a cutoff: write {parsed.name}@k")
        return Metric(parsed.name, default_k)

    def _parse_alias(self, text: str) -> Metric | None:
        cleaned = text.strip().lower()
        for definition in self:
            for pattern in definition.alias_patterns():
                match = pattern.match(cleaned)
                if match is not None:
                    k = parse_cutoff(match["k"]) if "k" in pattern.groupindex else None
                    return Metric(definition.name, k)
        return None

    def _unknown(self, text: str) -> UnknownMetricError:
        known = sorted({d.name for d in self} | {a for d in self for a in d.aliases})
        base = text.strip().lower().split("@")[0].split("(")[0]
        close = difflib.get_close_matches(base, known, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        return UnknownMetricError(f"unknown metric {text!r}{hint} (see `retrieval-eval metrics` for the list)")


def _build() -> Registry:
    from . import document_retrieval

    return Registry(document_retrieval.DEFINITIONS)


REGISTRY = _build()
