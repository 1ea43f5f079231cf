"""What a fusion method is: a frozen definition that owns its name, formula, parameters and kernel.

A method's kernel is called as::

    kernel(offsets, scores, ranks, depths, *arguments) -> float64[n_rows]

over the normalized runs (:class:`~retrieval_eval.fusion.normalization.Normalized`, built from
:class:`~retrieval_eval.fusion.aligned.AlignedRuns`): ``offsets`` int64[n_queries + 1] (query q
owns rows ``offsets[q]:offsets[q + 1]``), ``scores`` float64[n_rows, n_runs] (run r's
normalized score of the row's document, NaN where the normalized run lacks it), ``ranks``
int64[n_rows, n_runs] (the document's 1-based position in the normalized run, 0 where it lacks
it), ``depths`` int64[n_queries, n_runs] (the normalized run's documents per query), all
read-only. ``arguments`` are the method's checked parameter values in declared order, or what
its ``arguments`` hook makes of them (arrays a trained method estimates from qrels, say). The
kernel returns the fused score of every aligned row: each row's document is in at least one run.

"The normalized run" is what ranx's fusion functions iterate: for every normalization but
``borda`` it holds the run's own documents in its ranked order (``ranks``/``depths`` are the
aligned ones); ranx's ``borda`` gives every run every candidate of the query, so then every
cell has a score, ``ranks`` is the row's position among the query's candidates and ``depths``
their number (see :mod:`retrieval_eval.fusion.normalization`).

The fused run is ordered as ranx orders it: its documents as ranx inserted them into the fused
dict, then numba's quicksort of ``-score`` (:func:`retrieval_eval.fusion.fusing.fused_run`). Most
methods insert in the order the normalized runs meet the documents (run 0's, then those only
run 1 has, ...: ``normalized.insertion``, None for the aligned rows' order); one that does not
says so with ``insertion``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..constraints import Interval, closest, did_you_mean, must_be
from ..errors import ConfigError


class _Required:
    """The default of a parameter the caller must give."""

    def __repr__(self) -> str:
        return "REQUIRED"


#: The ``default`` of a parameter without one (``weights`` of ``wsum``: ranx has no default either).
REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Parameter:
    """One parameter of a fusion method.

    ``check(value, n_runs)`` returns the value the kernel takes (e.g. weights as float64[n_runs])
    or raises :class:`~retrieval_eval.errors.ConfigError` naming the parameter and what it
    accepts. ``default`` is :data:`REQUIRED` when the caller must give it.
    """

    name: str
    description: str
    check: Callable[[Any, int], Any]
    default: Any = REQUIRED

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class FusionMethod:
    """A fusion method of the registry (:mod:`retrieval_eval.fusion.methods`).

    Attributes
    ----------
    name
        The canonical name: ranx's method string (``ranx.fuse(method=...)``), e.g. ``"rrf"``,
        ``"wsum"``, ``"mnz"``.
    aliases
        Other names it is found by (case does not matter), e.g. ``"comb_mnz"``, ``"CombMNZ"``.
    definition
        One line with the formula of a document's fused score.
    kernel
        The kernel (module docstring for its arguments).
    parameters
        Its parameters, in the order the kernel takes them.
    trained
        Whether it estimates something from judgments (``fuse(..., qrels=...)``).
    arguments
        ``arguments(aligned, normalized, values, qrels) -> tuple``: the kernel's arguments after
        the four arrays, from the checked ``values`` (a dict by parameter name); None passes the
        values in parameter order.
    insertion
        ``insertion(aligned, normalized, fused) -> int64[n_rows]``: each row's position in the
        order ranx inserts the query's documents into the fused dict (which orders ties); None
        when that is the order the normalized runs list them in (``normalized.insertion``).
    order_determined
        False where ranx's own order of the fused documents is not determined (it iterates a
        Python ``set`` of ids, whose order changes with ``PYTHONHASHSEED``): the order chosen
        here is then documented by the method and the fused run does not claim ranx's order.
    """

    name: str
    aliases: tuple[str, ...]
    definition: str
    kernel: Callable[..., np.ndarray]
    parameters: tuple[Parameter, ...] = ()
    trained: bool = False
    arguments: Callable[..., tuple] | None = None
    insertion: Callable[..., np.ndarray] | None = None
    order_determined: bool = True
    _by_name: Mapping[str, Parameter] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {p.name: p for p in self.parameters})

    @property
    def names(self) -> tuple[str, ...]:
        """The canonical name and the aliases."""
        return (self.name, *self.aliases)

    def resolve(self, params: Mapping[str, Any] | None, n_runs: int) -> dict[str, Any]:
        """The checked value of every parameter (defaults filled in), by name.

        An unknown parameter (with the closest known ones), a missing required one or a bad
        value is a one-line :class:`~retrieval_eval.errors.ConfigError` naming the method.
        """
        params = dict(params or {})
        unknown = [name for name in params if name not in self._by_name]
        if unknown:
            known = list(self._by_name)
            hint = did_you_mean(closest(unknown[0], known, n=3))
            takes = f"it takes {', '.join(known)}" if known else "it takes no parameters"
            raise ConfigError(f"fusion method {self.name!r} has no parameter {unknown[0]!r} ({takes}){hint}")
        values = {}
        for parameter in self.parameters:
            if parameter.name in params:
                values[parameter.name] = parameter.check(params[parameter.name], n_runs)
            elif parameter.required:
                raise ConfigError(f"fusion method {self.name!r} needs {parameter.name}= ({parameter.description})")
            else:
                values[parameter.name] = parameter.check(parameter.default, n_runs)
        return values

    def kernel_arguments(self, aligned: Any, normalized: Any, values: dict[str, Any], qrels: Any = None) -> tuple:
        """The kernel's arguments after the four arrays (see ``arguments``)."""
        if self.arguments is not None:
            return self.arguments(aligned, normalized, values, qrels)
        if self.trained:
            raise ConfigError(f"fusion method {self.name!r} is trained: give qrels=")
        return tuple(values.values())

    def __repr__(self) -> str:
        return f"FusionMethod({self.name!r})"


# Checks for the parameters methods share ------------------------------------------------------


def weights(value: Any, n_runs: int) -> np.ndarray:
    """One finite weight per run, as read-only float64[n_runs]."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (Sequence, np.ndarray)):
        raise must_be("weights", f"a list of {n_runs} numbers (one per run)", value)
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise must_be("weights", f"{n_runs} numbers (one per run)", value) from None
    if array.ndim != 1 or array.shape[0] != n_runs:
        raise must_be("weights", f"{n_runs} numbers (one per run)", got=f"{len(value)}: {list(value)!r}")
    if not np.isfinite(array).all():
        raise must_be("weights", "finite numbers", list(value))
    array.setflags(write=False)
    return array


def number(
    name: str, *, low: float | None = None, high: float | None = None, low_open: bool = False
) -> Callable[[Any, int], float]:
    """A check of one finite number in ``[low, high]`` (``(low, high]`` when ``low_open``), as a float."""
    interval = Interval(low, high, low_open=low_open, notation="comparisons")
    return lambda value, n_runs: interval.check(name, value)


def unknown_name(kind: str, name: Any, known: Sequence[str], spellings: Sequence[str] = ()) -> ConfigError:
    """The error for a method or normalization name that is neither known nor an accepted spelling, with the closest."""
    # A known name wins over a spelling of it: of the names that lowercase alike, closest answers with the last.
    hint = did_you_mean(closest(str(name), [*spellings, *known], n=3, cutoff=0.5, casefold=True))
    return ConfigError(f"unknown fusion {kind} {name!r}{hint} (known: {', '.join(known)})")
