"""The one registry of metrics: evaluation, ``--help`` listings and the tests all read it."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Iterator, Mapping

from ..constraints import closest, did_you_mean, int64_value, integer_at_least
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
        # Compiled once: a name is matched against every alias pattern each time it is parsed.
        self._patterns = [(definition, pattern) for definition in self for pattern in definition.alias_patterns()]

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
        canonical name, so ``precision(rel=1)@5`` and ``precision@5`` are one metric. Anything but
        a string or a :class:`Metric` is a :class:`ConfigError`.
        """
        if isinstance(text, Metric):
            try:
                # A Metric says all it means: the defaults are for names that leave parameters out.
                return self._canonical(self.definition(text), text.k, text.params, None)
            except UnknownMetricError:
                raise
            except ConfigError as error:
                raise ConfigError(f"metric {text.name!r}: {error}") from None
        if not isinstance(text, str):
            raise ConfigError(f"a metric is a name (str) or a Metric, got {type(text).__name__} {text!r:.60}")
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
            raise ConfigError(f"metric {_quoted(text)}: {error}") from None

    def spellings(self, metric: Metric) -> list[str]:
        """The names that parse to ``metric``: its canonical name, then each alias written out with the
        metric's cutoff and parameters (``ndcg_cut.10`` -> ``ndcg@10``, ``ndcg_cut_10``, ``ndcg_cut.10``);
        an alias that cannot say them (``{k}`` of a metric without a cutoff) is left out."""
        canonical = self.parse(metric)
        definition = self.definition(canonical)
        candidates = [str(canonical)] + [str(Metric(alias, canonical.k, canonical.params)) for alias in definition.name_aliases]
        fields = {key: value for key, value in definition.params if value is not None} | dict(canonical.params)
        for alias in definition.aliases:
            if alias not in definition.name_aliases:
                try:
                    candidates.append(alias.format(k=canonical.k, **fields))
                except KeyError:  # a placeholder of a parameter this metric does not set
                    continue
        return [spelling for spelling in dict.fromkeys(candidates) if self._names(spelling, canonical)]

    def _names(self, text: str, metric: Metric) -> bool:
        """Whether ``text`` parses to ``metric``."""
        try:
            return self.parse(text) == metric
        except ConfigError:
            return False

    def with_cutoff(self, metric: Metric, k: int) -> Metric:
        """The cutoff form of ``metric`` at ``k`` (``ndcg`` -> ``ndcg@k``; ``precision@5`` -> ``precision@k``)."""
        definition = self._definitions.get((metric.name, True))
        if definition is None:
            raise ConfigError(f"{metric.name} takes no cutoff @k")
        return self._canonical(definition, k, metric.params, None)

    def _canonical(
        self,
        definition: MetricDefinition,
        k: int | None,
        given: tuple[tuple[str, str], ...],
        defaults: Mapping[str, int] | None,
    ) -> Metric:
        if k is not None and (isinstance(k, bool) or not isinstance(k, numbers.Integral)):
            raise ConfigError(f"the cutoff k must be a positive integer, got {k!r}")
        k = None if k is None else integer_at_least("the cutoff k", int(k))
        allowed = dict(definition.params)
        if not all(isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str) for pair in given):
            raise ConfigError(f"parameters are (name, value) pairs, got {given!r:.60}")
        values: dict[str, str] = {}
        for key, value in given:
            # One rule for every option given twice: an error, not the last one silently winning.
            if key in values:
                raise ConfigError(f"parameter {key} is given twice ({key}={values[key]}, {key}={value})")
            values[key] = value
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
        for definition, pattern in self._patterns:
            match = pattern.match(cleaned)
            if match is not None:
                k = parse_cutoff(match["k"]) if "k" in pattern.groupindex else None
                given = tuple((key, value) for key, value in match.groupdict().items() if key != "k")
                return self._canonical(definition, k, given, defaults)
        return None

    def _unknown(self, text: str) -> UnknownMetricError:
        known = sorted({d.name for d in self} | {a for d in self for a in d.aliases})
        base = text.strip().lower().split("@")[0].split("(")[0]
        hint = did_you_mean(closest(base, known, n=3, cutoff=0.5))
        return UnknownMetricError(f"unknown metric {_quoted(text)}{hint} (see `retrieval-eval metrics` for the list)")


def parse_spelling(
    spelling: str, canonical: str, *, peer: str, default_k: int | None = None, defaults: Mapping[str, int] | None = None
) -> Metric:
    """:meth:`Registry.parse` of ``canonical``, the registry's name for a ``peer``'s ``spelling``: an error names the spelling.

    ``parse_spelling("IPrec@2", "iprec_at_recall(recall=2.0)", peer="ir_measures measure")`` raises
    ``ir_measures measure 'IPrec@2' (iprec_at_recall(recall=2.0) here): parameter recall must be ...``.
    """
    try:
        return REGISTRY.parse(canonical, default_k=default_k, defaults=defaults)
    except ConfigError as error:
        message, prefix = str(error), f"metric {_quoted(canonical)}: "
        message = message[len(prefix):] if message.startswith(prefix) else message
        raise type(error)(f"{peer} {_quoted(spelling.strip())} ({canonical} here): {message}") from None


def _quoted(text: str) -> str:
    """A name as a message quotes it: whole up to 80 characters (a 5000-digit cutoff is cut short)."""
    return repr(text) if len(text) <= 80 else repr(text[:60]) + f"... ({len(text)} characters)"


def _relevance_level(key: str, value: str) -> str:
    """An integer from -2^63 to 2^63 - 1, written without leading zeros (the relevance level ``rel``).

    trec_eval's ``-l`` takes any long: 0 makes label 0 relevant, a negative level also the
    documents marked unjudged.
    """
    return str(int64_value(f"parameter {key}", value))


def _fraction(key: str, value: str) -> str:
    """A number in [0, 1], written as Python writes the float (a recall level: ``0.1``, ``1.0``)."""
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not 0.0 <= number <= 1.0:
        raise ConfigError(f"parameter {key} must be a number from 0 to 1, got {value!r}")
    return repr(number)


def _multiple(key: str, value: str) -> str:
    """A multiple of R (``mult`` of rprec_mult and rprec_mult_avgjg): a finite decimal number, written as Python writes the float."""
    number = float(value) if _DECIMAL.match(value) else math.nan
    if not math.isfinite(number):
        raise ConfigError(f"parameter {key} must be a number (a multiple of R, such as 0.2 or 1.5), got {value!r}")
    return repr(number)


def _decimal(key: str, value: str) -> float:
    """A finite decimal number (see :data:`_DECIMAL`), else a ConfigError naming the parameter."""
    number = float(value) if _DECIMAL.match(value) else math.nan
    if not math.isfinite(number):
        raise ConfigError(f"parameter {key} must be a finite decimal number, got {value!r}")
    return number


def _number(key: str, value: str) -> str:
    """A finite decimal number in Python's float text (utility's a, b, c, d; set_f's beta; rbp's p)."""
    return repr(_decimal(key, value))


def _levels(key: str, value: str) -> str:
    """Decimal numbers separated by ``;``, in their order, repeats kept (iprec_11pt's recall levels: ``0.2;0.5;0.8``)."""
    return ";".join(repr(_decimal(key, item)) for item in value.split(";"))


def _gains(key: str, value: str) -> str:
    """A gain map ``label:gain;label:gain`` in its order, repeats kept (trec_eval's ``-m ndcg.1=3,2=9``: ``1:3.0;2:9.0``).

    Labels are integers of int64 (-1 is the relevance trec_eval gives a document the qrels do not
    list, -2 one they list with a negative label), gains decimal numbers.
    """
    pairs = []
    for item in value.split(";"):
        label, colon, gain = item.partition(":")
        if not colon or not re.fullmatch(r"[+-]?\d+", label):
            raise ConfigError(f"parameter {key} must be label:gain pairs separated by ';' (such as 1:3;2:9), got {item!r}")
        pairs.append(f"{int64_value(f'parameter {key}', label)}:{repr(_decimal(key, gain))}")
    return ";".join(pairs)


def _output(key: str, value: str) -> str:
    """One of the C/W/L outputs (``out`` of the cwl family): eu, etu, ec, etc, ed or res_ and one of them."""
    outputs = ("eu", "etu", "ec", "etc", "ed")
    if value not in outputs and not (value.startswith("res_") and value[4:] in outputs):
        raise ConfigError(f"parameter {key} must be one of {', '.join(outputs)} or res_ and one of them, got {value!r}")
    return value


def _flag(key: str, value: str) -> str:
    """``true`` or ``false`` (any case; Python's True/False too): Compat's normalize, err's skip."""
    if value.strip().lower() not in ("true", "false"):
        raise ConfigError(f"parameter {key} must be true or false, got {value!r}")
    return value.strip().lower()


#: A decimal number as C's ``atof`` reads it whole: no ``_``, hex, ``inf`` or ``nan``.
_DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_PARAMETER_VALUES = {
    "rel": _relevance_level, "recall": _fraction, "alpha": _fraction, "mult": _multiple, "levels": _levels, "gains": _gains,
    "beta": _number, "p": _number, "a": _number, "b": _number, "c": _number, "d": _number,
    "normalize": _flag, "skip": _flag,
}
# The cwl family's parameters: its measures' (theta, t, ...), its gain maps and its outputs.
_PARAMETER_VALUES |= dict.fromkeys(
    ("theta", "t", "hb", "hc", "gain_med", "phi", "rate", "halflife", "l", "b1", "r1", "b2", "r2", "bin_rel",
     "min_rel", "max_rel"), _number,
) | {"out": _output}


def _build() -> Registry:
    return Registry(definition for family in FAMILIES.values() for definition in family.definitions)


REGISTRY = _build()
