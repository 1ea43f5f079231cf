"""A fusion grid: the configurations a fusion sweep scores (method x normalization x parameters x weights).

A grid is a list of *entries*; an entry expands into the product of its values:

``{"method": "rrf", "k": [10, 20, 60, 100]}``
    four configurations, ``rrf,k=10`` ... ``rrf,k=100``;
``{"method": "wsum", "norm": ["min-max", "max", "sum"], "weights": {"step": 0.1}}``
    33 configurations (3 normalizations x the 11 weight pairs of ranx's grid at step 0.1 for
    two runs), ``wsum,norm=min-max,w=0.0/1.0`` ...;
``{"method": "wsum", "norm": "min-max", "weights": [0.3, 0.7]}``
    one configuration: an explicit list of configurations is a list of such entries.

The keys of an entry:

- ``method`` (required): a fusion method's name or alias (``rrf``, ``wsum``, ``CombMNZ``, ...);
- ``norm``: a normalization (``min-max``, ``max``, ``sum``, ``zmuv``, ``rank``, ``borda``,
  ``min-max-inverted``, or ``none``), or a list of them; without it, :data:`DEFAULT_NORM`
  (``min-max``, the default of :func:`~retrieval_eval.fusion.fuse` and of ``ranx.fuse``);
- ``weights`` (methods with weights): one vector (a list of one number per run), a list of
  vectors, or ``{"step": s}``, ranx's grid (:func:`ranx_weight_grid`);
- any parameter of the method (``k``, ``gamma``, ``sigma``, ...): a number, a list of numbers,
  or ``{"min": a, "max": b, "step": s}``, the values ranx's ``optimize_fusion`` tries for such a
  parameter (:func:`ranx_range`). A parameter not given takes the method's default.

Each configuration's *name* is the method followed by what its entry states, in the order
``norm``, the method's parameters (in the method's order), ``w`` (the weights, one per run,
joined by ``/``): ``rrf,k=60``, ``wsum,norm=min-max,w=0.3/0.7``. What the entry leaves to a
default is not in the name but is in the configuration's *parameter columns*: ``method``,
``norm`` (``"none"`` for none), one column per method parameter of the grid, and one weight
column per run (``w_<run name>``), NaN where a configuration has no such parameter, so that a
report draws each on a numeric axis.

Every entry is checked when the grid is built, before any run is read or fused: an unknown
key, method, normalization or parameter, a bad value, a weight vector of the wrong length, a
configuration given twice (under any spelling) or a grid past :data:`MAX_CONFIGURATIONS` is a
one-line :class:`~retrieval_eval.errors.ConfigError` naming the entry.
"""

from __future__ import annotations

import itertools
import math
import numbers
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from ..constraints import Interval, closest, did_you_mean
from ..errors import ConfigError, InputError
from ..fusion.method import FusionMethod
from ..fusion.methods import fusion_method
from ..fusion.normalization import normalization_name
from ..io import read_json_file

if TYPE_CHECKING:
    import pandas as pd

#: The normalization of an entry that names none: that of ``fuse()`` and ``ranx.fuse``.
DEFAULT_NORM = "min-max"
#: The most configurations a grid may expand to (each is fused and scored; ranx's weight grid at a
#: fine step over many runs grows past any useful sweep long before memory runs out).
MAX_CONFIGURATIONS = 100_000
_EXAMPLE = '{"method": "rrf", "k": [10, 60]}'
#: What a configuration's name shows for a normalization its entry does not state.
_UNSTATED = object()
#: The parameter whose values are weight vectors (one per run), shown as ``w=`` and in ``w_<run>`` columns.
_WEIGHTS = "weights"


@dataclass(frozen=True)
class FusionConfig:
    """One configuration of a fusion sweep.

    Attributes
    ----------
    name
        Its name (module docstring): unique within its grid.
    method
        The method's canonical name (``ranx.fuse``'s method string).
    norm
        The normalization's canonical name, None for none.
    params
        Every parameter of the method by name, defaults filled in, as given (``k=60`` stays the
        integer 60; weights as a tuple of floats): what :func:`~retrieval_eval.fusion.fused_scores`
        takes as ``params``.
    """

    name: str
    method: str
    norm: str | None
    params: Mapping[str, Any]

    @property
    def weights(self) -> tuple[float, ...] | None:
        """The weight vector, None for a method without weights."""
        return self.params.get(_WEIGHTS)

    def columns(self, run_names: Sequence[str]) -> dict[str, Any]:
        """Its parameter columns (module docstring): ``method``, ``norm``, each parameter, ``w_<run>``."""
        row: dict[str, Any] = {"method": self.method, "norm": "none" if self.norm is None else self.norm}
        for key, value in self.params.items():
            if value is None:  # a trained method's estimates, made from the qrels: no value to show
                continue
            if key == _WEIGHTS:
                row.update({weight_column(run): weight for run, weight in zip(run_names, value)})
            else:
                row[key] = value
        return row


@dataclass(frozen=True)
class FusionGrid:
    """The configurations of a fusion sweep over the runs ``run_names``, in the order their entries expand."""

    configurations: tuple[FusionConfig, ...]
    run_names: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.configurations)

    def __iter__(self) -> Iterator[FusionConfig]:
        return iter(self.configurations)

    @property
    def names(self) -> list[str]:
        return [config.name for config in self.configurations]

    @property
    def norms(self) -> list[str | None]:
        """The distinct normalizations, in order of first use (each is computed once by a sweep)."""
        return list(dict.fromkeys(config.norm for config in self.configurations))

    def parameters(self) -> pd.DataFrame:
        """The parameter columns of every configuration, indexed by configuration name (as :func:`~.analysis.sweep` takes them).

        ``method``, ``norm``, the method parameters in order of first appearance, then the weights.
        """
        import pandas as pd

        rows = {config.name: config.columns(self.run_names) for config in self.configurations}
        frame = pd.DataFrame.from_dict(rows, orient="index").rename_axis("configuration")
        weights = [weight_column(run) for run in self.run_names if weight_column(run) in frame.columns]
        # The weights last, whichever entry first had a parameter.
        return frame[[column for column in frame.columns if column not in weights] + weights]

    def __repr__(self) -> str:
        shown = ", ".join(self.names[:3]) + (", ..." if len(self) > 3 else "")
        return f"FusionGrid({len(self)} configurations over {list(self.run_names)}: {shown})"


def weight_column(run_name: str) -> str:
    """The parameter column of a run's weight."""
    return f"w_{run_name}"


def fusion_grid(grid: Any, run_names: Sequence[str], *, labels: Sequence[str] | None = None) -> FusionGrid:
    """The configurations of ``grid`` for fusing the runs ``run_names``, every entry checked.

    Parameters
    ----------
    grid
        A list of entries (dicts, module docstring), one entry, a path to a JSON file holding
        either (:func:`read_fusion_grid`), or a :class:`FusionGrid` (for the same runs).
    run_names
        The names of the runs fused, in run order: the length of a weight vector and the names
        of the weight columns.
    labels
        How errors name each entry (default ``fusion grid entry N``, or ``FILE: entry N``).

    Examples
    --------
    >>> grid = fusion_grid([{"method": "rrf", "k": [10, 60]}, {"method": "wsum", "weights": {"step": 0.5}}], ["bm25", "dense"])
    >>> grid.names
    ['rrf,k=10', 'rrf,k=60', 'wsum,w=0.0/1.0', 'wsum,w=0.5/0.5', 'wsum,w=1.0/0.0']
    >>> fusion_grid([{"method": "wsum", "weights": [0.3, 0.3, 0.4]}], ["bm25", "dense"])
    Traceback (most recent call last):
    ...
    retrieval_eval.errors.ConfigError: fusion grid entry 1 (wsum): weights must be 2 numbers (one per run), got 3: [0.3, 0.3, 0.4]
    """
    names = _run_names(run_names)
    if isinstance(grid, FusionGrid):
        if grid.run_names != names:
            raise ConfigError(f"the fusion grid was built for the runs {list(grid.run_names)}, not {list(names)}")
        return grid
    if isinstance(grid, (str, os.PathLike)):
        entries = read_fusion_grid(grid)
        default_labels = [f"{os.fspath(grid)}: entry {number}" for number in range(1, len(entries) + 1)]
    else:
        entries = [grid] if isinstance(grid, Mapping) else grid
        if isinstance(entries, (str, bytes)) or not isinstance(entries, Sequence) or not entries:
            raise ConfigError(f"a fusion grid is a non-empty list of entries such as {_EXAMPLE}, got {_shown(grid)}")
        default_labels = [f"fusion grid entry {number}" for number in range(1, len(entries) + 1)]
    if labels is not None and (isinstance(labels, str) or len(labels) != len(entries)):
        raise ConfigError(f"labels must name each of the {len(entries)} entries, got {_shown(labels)}")
    configurations: list[FusionConfig] = []
    seen: dict[tuple, tuple[str, str]] = {}
    for label, entry in zip(labels if labels is not None else default_labels, entries):
        for config, identity in _expand(entry, names, label, MAX_CONFIGURATIONS - len(configurations)):
            where = f"{label} ({config.method})"
            if identity in seen:
                first, first_name = seen[identity]
                again = first if first != where else "the same entry"
                raise ConfigError(f"{where}: configuration {config.name!r} is {first_name!r} of {again} again")
            seen[identity] = (where, config.name)
            configurations.append(config)
    return FusionGrid(tuple(configurations), names)


def read_fusion_grid(path: str | os.PathLike[str]) -> list[Any]:
    """The entries of a fusion grid file: one JSON array of entries, or one entry (an object).

    Its entries are checked by :func:`fusion_grid`; a file that is not JSON, or holds neither,
    is an :class:`~retrieval_eval.errors.InputError` naming it.
    """
    value = read_json_file(path)
    entries = [value] if isinstance(value, dict) else value
    if not isinstance(entries, list) or not entries:
        raise InputError(f"a fusion grid file holds a non-empty JSON array of entries such as {_EXAMPLE}", source=os.fspath(path))
    return entries


def ranx_weight_grid(step: float, n_runs: int) -> list[tuple[float, ...]]:
    """The weight vectors ranx's ``optimize_fusion`` tries at ``step`` for ``n_runs`` runs, in its order.

    ranx 0.3.21 (``fusion_optimization/optimize_weights.py``) takes the weights
    ``round(x, d)`` for ``x`` in ``numpy.arange(0, 1 + step, step)``, where ``d`` is the number
    of digits after the point in ``str(step)``, and keeps the vectors of the Cartesian product
    (the first run's weight varying slowest) whose Python ``sum`` (left to right) is exactly
    ``1.0``. That float test drops some vectors whose decimal weights add up to 1
    (``0.2 + 0.7 + 0.1`` is ``0.9999999999999999``: 62 of the 66 three-run vectors at step 0.1 are
    kept): the same vectors are kept here, the
    product walked with its branches pruned once a partial sum passes 1 (adding weights of 0 or
    more never brings a float sum back down), so many runs at a fine step are not 11^n products.

    Examples
    --------
    >>> ranx_weight_grid(0.5, 2)
    [(0.0, 1.0), (0.5, 0.5), (1.0, 0.0)]
    >>> (0.2, 0.7, 0.1) in ranx_weight_grid(0.1, 3), (0.1, 0.2, 0.7) in ranx_weight_grid(0.1, 3)
    (False, True)
    >>> ranx_weight_grid(0.3, 2)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    retrieval_eval.errors.ConfigError: the weight grid at step 0.3 has no 2 weights summing to exactly 1
    (its weights are 0, 0.3, 0.6, 0.9, 1.2); use a step that divides 1, such as 0.1, 0.2, 0.25 or 0.5
    """
    Interval(0, 1, low_open=True).check("the weight grid's step", step)
    if 1 / step + 1 > MAX_CONFIGURATIONS:  # before numpy makes the weights
        raise ConfigError(f"the weight grid at step {step} has more than {MAX_CONFIGURATIONS} weights; use a coarser step")
    digits = str(step)[::-1].find(".")  # ranx's count of decimals: str(step) reversed, up to the point
    weights = [float(round(x, digits)) for x in np.arange(0, 1 + step, step)]
    vectors: list[tuple[float, ...]] = []

    def walk(prefix: tuple[float, ...], total: float | int) -> None:
        if len(prefix) == n_runs:
            if total == 1.0:
                vectors.append(prefix)
                if len(vectors) > MAX_CONFIGURATIONS:
                    raise ConfigError(
                        f"the weight grid at step {step} for {n_runs} runs has more than {MAX_CONFIGURATIONS} vectors; "
                        "use a coarser step"
                    )
            return
        for weight in weights:
            partial = total + weight
            if partial <= 1.0:
                walk((*prefix, weight), partial)

    walk((), 0)  # 0, not 0.0: Python's sum starts from the integer 0, as ranx's test does
    if not vectors:  # a step that does not divide 1: ranx would try nothing, and a sweep would rank nothing
        shown = ", ".join(f"{weight:g}" for weight in weights)
        raise ConfigError(
            f"the weight grid at step {step} has no {n_runs} weights summing to exactly 1 (its weights are {shown}); "
            "use a step that divides 1, such as 0.1, 0.2, 0.25 or 0.5"
        )
    return vectors


def ranx_range(low: Any, high: Any, step: Any) -> list[int | float]:
    """The values ranx's ``optimize_fusion`` tries for a parameter from ``low`` to ``high`` by ``step``.

    Integers (``rrf``'s k: ranx's ``range(min_k, max_k + 1, step)``) give ``range(low, high + 1,
    step)``; otherwise (``gamma``, ``sigma``, ``phi``) ``round(x, d)`` for ``x`` in
    ``numpy.arange(low, high + step, step)`` with ``d`` the decimals of ``str(step)``, as ranx
    does (a float ``arange`` may run one step past ``high``, and then so does this).

    >>> ranx_range(10, 100, 30), ranx_range(0.1, 0.3, 0.1)
    ([10, 40, 70, 100], [0.1, 0.2, 0.3, 0.4])
    """
    for name, value in (("min", low), ("max", high), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise ConfigError(f"a range's {name} must be a finite number, got {_shown(value)}")
    if step <= 0 or high < low:
        raise ConfigError(f"a range goes up from min to max by a step > 0, got min={low}, max={high}, step={step}")
    if (high - low) / step + 1 > MAX_CONFIGURATIONS:  # before numpy or range makes the values
        raise ConfigError(f"the range from {low} to {high} by {step} has more than {MAX_CONFIGURATIONS} values")
    if all(isinstance(value, numbers.Integral) for value in (low, high, step)):
        values: list[int | float] = list(range(int(low), int(high) + 1, int(step)))
    else:
        digits = str(step)[::-1].find(".")
        values = [float(round(x, digits)) for x in np.arange(low, high + step, step)]
    return values


# Expansion -----------------------------------------------------------------------------------


def _expand(entry: Any, run_names: tuple[str, ...], label: str, room: int) -> Iterator[tuple[FusionConfig, tuple]]:
    """Each configuration of one entry with its identity (method, norm and checked parameter values)."""
    if not isinstance(entry, Mapping):
        _refuse(label, f"an entry is an object such as {_EXAMPLE}, got {_shown(entry)}")
    if "method" not in entry:
        _refuse(label, "an entry names its fusion method (\"method\": \"rrf\")")
    if not isinstance(entry["method"], str):
        _refuse(label, f"method must be a fusion method's name, got {_shown(entry['method'])}")
    try:
        method = fusion_method(entry["method"])
    except ConfigError as error:
        _refuse(label, str(error))
    label = f"{label} ({method.name})"
    parameters = [parameter.name for parameter in method.parameters]
    for key in entry:
        if key not in ("method", "norm", *parameters):
            _refuse(label, _unknown_key(key, method))
    norms = _norms(entry, label)
    n_runs = len(run_names)
    stated = [name for name in parameters if name in entry]
    axes = [_values(entry[name], name, n_runs, label) for name in stated]
    total = len(norms) * math.prod(len(axis) for axis in axes)
    if total > room:
        _refuse(label, f"the grid would have more than {MAX_CONFIGURATIONS} configurations (this entry has {total})")
    for norm, *values in itertools.product(norms, *axes):
        given = dict(zip(stated, values))
        try:
            checked = method.resolve(given, n_runs)
        except ConfigError as error:
            _refuse(label, str(error))
        params = {p.name: given[p.name] if p.name in given else p.default for p in method.parameters}
        name = _name(method.name, norm if "norm" in entry else _UNSTATED, given, parameters)
        identity = (method.name, norm, tuple(_identity(checked[name]) for name in parameters))
        yield FusionConfig(name, method.name, norm, params), identity



def _norms(entry: Mapping[str, Any], label: str) -> list[str | None]:
    value = entry.get("norm", DEFAULT_NORM)
    listed = list(value) if isinstance(value, (list, tuple)) else [value]
    if not listed:
        _refuse(label, "norm is a normalization or a non-empty list of them, got []")
    norms = []
    for item in listed:
        if item is not None and not isinstance(item, str):
            _refuse(label, f"norm must be a normalization's name (or none), got {_shown(item)}")
        try:
            norms.append(normalization_name(item))
        except ConfigError as error:
            _refuse(label, str(error))
    return _distinct(norms, "norm", label)


def _values(value: Any, name: str, n_runs: int, label: str) -> list[Any]:
    """The values an entry gives one parameter (weights: vectors), in order."""
    if name == _WEIGHTS:
        return _weight_vectors(value, n_runs, label)
    if isinstance(value, Mapping):
        keys = set(value)
        if keys != {"min", "max", "step"}:
            _refuse(label, f"{name} as a range is {{\"min\": ..., \"max\": ..., \"step\": ...}}, got keys {sorted(map(str, keys))}")
        try:
            return ranx_range(value["min"], value["max"], value["step"])
        except ConfigError as error:
            _refuse(label, f"{name}: {error}")
    listed = list(value) if isinstance(value, (list, tuple)) else [value]
    if not listed:
        _refuse(label, f"{name} is a value or a non-empty list of values, got []")
    if any(isinstance(item, (list, tuple, Mapping, np.ndarray)) for item in listed):
        # A trained method's arrays (probs, map_scores, ...) are estimated from the sweep's qrels.
        _refuse(label, f"{name} takes one plain value per configuration (list several to sweep them), got {_shown(value)}")
    return _distinct([_plain(item) for item in listed], name, label)


def _weight_vectors(value: Any, n_runs: int, label: str) -> list[tuple[float, ...]]:
    if isinstance(value, Mapping):
        if set(value) != {"step"}:
            _refuse(label, f"weights as a grid is {{\"step\": s}} (ranx's grid), got keys {sorted(map(str, value))}")
        try:
            return ranx_weight_grid(value["step"], n_runs)
        except ConfigError as error:
            _refuse(label, str(error))
    if isinstance(value, (list, tuple)) and value and all(isinstance(item, (list, tuple)) for item in value):
        vectors = [tuple(item) for item in value]
    elif isinstance(value, (list, tuple)) and value and not any(isinstance(item, (list, tuple)) for item in value):
        vectors = [tuple(value)]
    else:
        _refuse(label, f"weights is one vector [w1, w2, ...], a list of vectors, or {{\"step\": s}}, got {_shown(value)}")
    return _distinct([tuple(_plain(w) for w in vector) for vector in vectors], _WEIGHTS, label)


def _distinct(values: list[Any], name: str, label: str) -> list[Any]:
    for index, value in enumerate(values):
        if value in values[:index]:
            _refuse(label, f"{name} lists {_shown(value)} twice")
    return values


def _plain(value: Any) -> Any:
    """A parameter's value as a plain Python value (numpy numbers and arrays as Python numbers and tuples)."""
    if isinstance(value, np.ndarray):
        return tuple(_plain(item) for item in value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def _identity(value: Any) -> Any:
    """What tells two checked values apart (arrays by their numbers)."""
    return tuple(value.tolist()) if isinstance(value, np.ndarray) else value


def _name(method: str, norm: Any, given: Mapping[str, Any], parameters: Sequence[str]) -> str:
    parts = [method]
    if norm is not _UNSTATED:
        parts.append(f"norm={'none' if norm is None else norm}")
    for name in parameters:
        if name in given:
            value = given[name]
            if name == _WEIGHTS:
                parts.append("w=" + "/".join(_text(weight) for weight in value))
            else:
                parts.append(f"{name}={_text(value)}")
    return ",".join(parts)


def _text(value: Any) -> str:
    """A number as its shortest round-trip text (``0.3``, ``60``)."""
    return repr(float(value)) if isinstance(value, float) else str(value)


def _run_names(run_names: Sequence[str]) -> tuple[str, ...]:
    if isinstance(run_names, str) or not isinstance(run_names, Sequence) or not all(isinstance(n, str) for n in run_names):
        raise ConfigError(f"run_names must be the names of the runs fused (a list of strings), got {_shown(run_names)}")
    if len(run_names) < 2:
        raise ConfigError(f"fusion needs at least two runs, got {len(run_names)}")
    repeated = [name for index, name in enumerate(run_names) if name in run_names[:index]]
    if repeated:
        raise ConfigError(f"two runs are named {repeated[0]!r}: each run's weight column is named after it")
    return tuple(run_names)


def _unknown_key(key: Any, method: FusionMethod) -> str:
    parameters = [parameter.name for parameter in method.parameters]
    known = ["method", "norm", *parameters]
    hint = did_you_mean(closest(str(key), known), before="", after=" ")
    takes = f"its parameters are {', '.join(parameters)}" if parameters else "it takes no parameters"
    return f"no key {key!r} for fusion method {method.name!r}; {hint}an entry has method, norm and the method's parameters ({takes})"


def _refuse(label: str, message: str) -> NoReturn:
    raise ConfigError(f"{label}: {message}")


def _shown(value: Any) -> str:
    text = repr(_plain(value))
    return text if len(text) <= 60 else text[:57] + "..."
