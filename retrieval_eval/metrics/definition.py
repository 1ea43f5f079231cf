"""``MetricDefinition``: what the registry knows of a metric."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# An alias that is a bare name renames the metric and keeps the grammar (``mrr@10``, ``p(rel=2)@5``);
# any other alias is a whole-name pattern where ``{k}`` captures the cutoff (``p_{k}``, ``ndcg_cut.{k}``).
_BARE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _unbounded(label_min: int, label_max: int) -> tuple[float, float]:
    return (-math.inf, math.inf)


def unit_interval(label_min: int, label_max: int) -> tuple[float, float]:
    """Bounds of a share or a normalized score: [0, 1]."""
    return (0.0, 1.0)


def non_negative(label_min: int, label_max: int) -> tuple[float, float]:
    """Bounds of a count: [0, inf)."""
    return (0.0, math.inf)


def _nothing(metric: Any) -> tuple:
    return ()


def _undeclared(output: Any, metric: Any) -> Any:
    raise NotImplementedError(f"{metric} declares no extraction from its family's kernel output")


#: How a reference system summarizes a metric over queries.
AGGREGATES = ("mean", "sum", "geometric")


@dataclass(frozen=True)
class MetricDefinition:
    """What a metric is.

    ``cutoff``: the metric takes ``@k`` (evaluation fills in its default k when omitted).
    ``integer``: values are whole numbers (counts, labels). ``bounds(label_min, label_max)`` gives
    the (low, high) range of values for a non-negative label scale.
    ``azure_threshold``: the default threshold of azure-ai-evaluation's evaluator, when it has one.
    ``params``: the parameters the metric takes, as ``(name, default)`` pairs; a default of None
    makes the parameter required (``("rel", "1")``: a document is relevant when its label is
    >= rel; ``("recall", None)``: the recall level of interpolated precision).
    ``trec_name``: the name trec_eval prints (``{k}`` is the cutoff), when trec_eval has the measure.
    ``extract(output, metric)``: the metric's per-query values (float64, one per evaluated query)
    out of what its family's kernel pass returned; ``requires(metric)``: what that pass must
    compute for it (the TREC family: recall levels of interpolated precision).
    ``aggregate``: how the reference summarizes it over queries: ``"mean"``; ``"sum"``
    (trec_eval's ``all`` line of the counts; the summary table still gives their mean); or
    ``"geometric"``, exp(mean(log(max(v, 1e-5)))) as trec_eval's gm_map (the floor keeps a single
    zero from zeroing the summary); the summary table's ``mean`` is then the geometric mean.
    ``grows_with_k``: a cutoff metric that never decreases as k grows (recall@k, success@k).
    ``ranking``: retrieving every judged document, best label first, scores best; False for the
    set measures, which reward retrieving the relevant documents and nothing else.
    ``float_labels``: its definition holds for labels that are not whole numbers (a gain that
    is the label, a threshold ``label >= rel``), so it takes qrels whose ``labels`` are float64;
    False (the default): it needs integers (grades it counts or maps one by one), and the
    evaluation refuses such qrels before any kernel runs. A callable ``float_labels(metric)``
    decides per parameters (ndcg with a gain map keyed by integer labels refuses them).
    """

    name: str
    family: str
    definition: str
    higher_is_better: bool
    cutoff: bool = False
    integer: bool = False
    bounds: Callable[[int, int], tuple[float, float]] = _unbounded
    azure_threshold: float | None = None
    aliases: tuple[str, ...] = field(default=())
    params: tuple[tuple[str, str | None], ...] = ()
    trec_name: str | None = None
    extract: Callable[[Any, Any], Any] = _undeclared
    requires: Callable[[Any], tuple] = _nothing
    aggregate: str = "mean"
    grows_with_k: bool = False
    ranking: bool = True
    float_labels: bool | Callable[[Any], bool] = False

    def __post_init__(self) -> None:
        if self.aggregate not in AGGREGATES:
            raise ValueError(f"{self.name}: aggregate must be one of {AGGREGATES}, got {self.aggregate!r}")

    def takes_float_labels(self, metric: Any) -> bool:
        """Whether ``metric`` (one of this definition's) is defined for labels that are not whole numbers."""
        return self.float_labels(metric) if callable(self.float_labels) else self.float_labels

    @property
    def geometric(self) -> bool:
        """Summarized by the geometric mean (gm_map, gm_bpref)."""
        return self.aggregate == "geometric"

    @property
    def display_name(self) -> str:
        """The name as listed: ``ndcg_exp@k`` for a cutoff metric, ``iprec_at_recall(recall=l)`` with a required parameter."""
        required = ",".join(f"{key}={key[0]}" for key, default in self.params if default is None)
        name = f"{self.name}({required})" if required else self.name
        return f"{name}@k" if self.cutoff else name

    @property
    def name_aliases(self) -> tuple[str, ...]:
        """Aliases that rename the metric and keep parameters and cutoff."""
        return tuple(alias for alias in self.aliases if _BARE_NAME.match(alias))

    def alias_patterns(self) -> list[re.Pattern[str]]:
        """Whole-name aliases as regular expressions: ``{k}`` captures the cutoff, ``{name}`` a number for that parameter."""
        return [
            re.compile("^" + _PLACEHOLDER.sub(_capture, re.escape(alias)) + "$")
            for alias in self.aliases
            if not _BARE_NAME.match(alias)
        ]


# A placeholder as re.escape writes it: ``\{recall\}``.
_PLACEHOLDER = re.compile(r"\\\{([a-z_]+)\\\}")


def _capture(placeholder: re.Match[str]) -> str:
    """The cutoff's digits, or a parameter's number (a sign allowed: rprec_mult_-0.50)."""
    name = placeholder[1]
    return r"(?P<k>\d+)" if name == "k" else rf"(?P<{name}>-?\d*\.?\d+)"
