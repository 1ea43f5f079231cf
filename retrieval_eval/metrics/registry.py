"""The one registry of metrics: evaluation, ``--help`` listings and the tests all read it."""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Iterator, Mapping

from ..errors import ConfigError, UnknownMetricError
from .definition import MetricDefinition
from .families import FAMILIES
from .family import Family
from .names import Metric, parse_cutoff, split_name


class Registry:
    """Metric definitions by name, with parsing of metric names into :class:`Metric` values."""

    def __init__(self, definitions: Iterable[MetricDefinition]) -> None:
        # A name may have two meanings told apart by the cutoff: ``holes`` (a count) and ``holes@k`` (a share).
        self._definitions: dict[tuple[str, bool], MetricDefinition] = {}
        self._renames: dict[str, str] = {}
        for definition in definitions:
            key = (definition.name, definition.cutoff)
            if key in self._definitions:
                raise ValueError(f"metric {definition.display_name} is defined twice")
            self._definitions[key] = definition
        names = {name for name, _ in self._definitions}
        for definition in self:
            for alias in definition.name_aliases:
                if alias in names or self._renames.get(alias, definition.name) != definition.name:
                    raise ValueError(f"alias {alias!r} of {definition.name} names another metric")
                self._renames[alias] = definition.name

    def __iter__(self) -> Iterator[MetricDefinition]:
        return iter(self._definitions.values())

    def family(self, metric: Metric) -> Family:
        """The family that computes a parsed metric."""
        return FAMILIES[self.definition(metric).family]

    def definition(self, metric: Metric) -> MetricDefinition:
        """The definition of a parsed metric."""
        try:
            return self._definitions[(metric.name, metric.k is not None)]
        except KeyError:
            raise self._unknown(str(metric)) from None

    def parse(
        self, text: str | Metric, *, default_k: int | None = None, defaults: Mapping[str, int] | None = None
    ) -> Metric:
        """Parse a metric name into its canonical :class:`Metric`.

        A name that only exists with a cutoff takes ``default_k`` when written without ``@k``; a
        parameter the name leaves out takes its value from ``defaults`` (``{"rel": 2}``), else the
        metric's own default. Parameters equal to the metric's default are left out of the
        canonical name, so ``precision(rel=1)@5`` and ``precision@5`` are one metric.
        """
        if isinstance(text, Metric):
            # A Metric says all it means: the defaults are for names that leave parameters out.
            return self._canonical(self.definition(text), text.k, text.params, None)
        try:
            alias = self._parse_alias(text, defaults)
            if alias is not None:
                return alias
            parsed = split_name(text)
            if parsed is None:
                raise self._unknown(text)
            name = self._renames.get(parsed.name, parsed.name)
            with_cutoff = self._definitions.get((name, True))
            without_cutoff = self._definitions.get((name, False))
            if with_cutoff is None and without_cutoff is None:
                raise self._unknown(text)
            if parsed.has_cutoff:
                if with_cutoff is None:
                    raise ConfigError(f"{name} takes no cutoff @k")
                return self._canonical(with_cutoff, parsed.k, parsed.params, defaults)
            if without_cutoff is not None:
                return self._canonical(without_cutoff, None, parsed.params, defaults)
            if default_k is None:
                raise ConfigError(f"needs a cutoff: write {name}@k")
            return self._canonical(with_cutoff, default_k, parsed.params, defaults)
        except (ConfigError, ValueError) as error:
            if isinstance(error, UnknownMetricError):
                raise
            raise ConfigError(f"metric {text!r}: {error}") from None

    def _canonical(
        self,
        definition: MetricDefinition,
        k: int | None,
        given: tuple[tuple[str, str], ...],
        defaults: Mapping[str, int] | None,
    ) -> Metric:
        allowed = dict(definition.params)
        values = dict(given)
        for key in values:
            if key not in allowed:
                takes = f"takes only {', '.join(allowed)}" if allowed else "takes no parameters"
                raise ConfigError(f"{definition.name} {takes}, got {key}")
        params = []
        for key, own_default in allowed.items():
            if key in values:
                value = _PARAMETER_VALUES[key](key, values[key])
            elif defaults and key in defaults:
                value = _PARAMETER_VALUES[key](key, str(defaults[key]))
            elif own_default is None:
                raise ConfigError(f"{definition.name} needs {key}=VALUE, e.g. {definition.name}({key}=0.5)")
            else:
                continue
            if value != own_default:
                params.append((key, value))
        return Metric(definition.name, k, tuple(params))

    def _parse_alias(self, text: str, defaults: Mapping[str, int] | None) -> Metric | None:
        cleaned = text.strip().lower()
        for definition in self:
            for pattern in definition.alias_patterns():
                match = pattern.match(cleaned)
                if match is not None:
                    k = parse_cutoff(match["k"]) if "k" in pattern.groupindex else None
                    given = tuple((key, value) for key, value in match.groupdict().items() if key != "k")
                    return self._canonical(definition, k, given, defaults)
        return None

    def _unknown(self, text: str) -> UnknownMetricError:
        known = sorted({d.name for d in self} | {a for d in self for a in d.aliases})
        base = text.strip().lower().split("@")[0].split("(")[0]
        close = difflib.get_close_matches(base, known, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        return UnknownMetricError(f"unknown metric {text!r}{hint} (see `retrieval-eval metrics` for the list)")


def _positive_integer(key: str, value: str) -> str:
    """A positive integer, written without sign or leading zeros (the relevance level ``rel``)."""
    text = value.strip()
    if not text.isdigit() or int(text) <= 0:
        raise ConfigError(f"parameter {key} must be a positive integer, got {value!r}")
    return str(int(text))


def _fraction(key: str, value: str) -> str:
    """A number in [0, 1], written as Python writes the float (a recall level: ``0.1``, ``1.0``)."""
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not 0.0 <= number <= 1.0:
        raise ConfigError(f"parameter {key} must be a number from 0 to 1, got {value!r}")
    return repr(number)


_PARAMETER_VALUES = {"rel": _positive_integer, "recall": _fraction}


def _build() -> Registry:
    return Registry(definition for family in FAMILIES.values() for definition in family.definitions)


REGISTRY = _build()
