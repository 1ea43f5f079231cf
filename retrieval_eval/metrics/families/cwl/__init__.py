"""The C/W/L family: cwl_eval 1.0.12's measures with their five outputs and residuals.

Ranking: score descending, ties in input order (ir_measures' cwl_eval provider; cwl_eval itself
takes the run file's order, the same for a run sorted by score). A repeated document is an
error: cwl_eval would count it at each of its ranks. Queries: those both judged and retrieved
(cwl_eval also scores the run's unjudged queries, at gain 0).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ....constraints import check_choice
from ....errors import ConfigError, InputError
from ....kernels.cwl.framework import expectations
from ...family import Family
from ...joins import RANKED_RUN
from ...names import Metric
from ...options import Conventions, EvaluationOptions
from .gains import GainRule, gain_matrices
from .measures import BY_NAME, DEPTH, FAMILY, OUTS, definitions

if TYPE_CHECKING:
    from ....data import Qrels, RankedRun
    from ....data.join import QueryAlignment

#: Queries scored per block: 2048 x 1000 ranks keep each array at 16 MB.
BLOCK = 2048


@dataclass(frozen=True)
class UserModel:
    """A measure with its parameters, apart from the output asked for: computed once for all its outputs."""

    name: str
    k: int | None
    args: tuple[float, ...]
    gains: GainRule


def user_model(metric: Metric) -> tuple[UserModel, str]:
    """The user model of a parsed metric and the output it asks for."""
    measure = BY_NAME[metric.name]
    given = dict(metric.params)
    args = tuple(float(given.get(key, default)) for key, default in measure.params)
    if measure.cutoff and metric.k is not None and metric.k > DEPTH + 1:
        raise ConfigError(f"{metric}: the cutoff can be at most {DEPTH + 1} (cwl_eval's depth + 1)")
    out = given.get("out", "eu")
    check_choice(f"{metric}: out", out, OUTS)
    return UserModel(metric.name, metric.k, args, GainRule.of(metric, given)), out


@dataclass(frozen=True, eq=False)
class CwlPass:
    """Per user model: ``(queries, 5)`` worst-case outputs and, when asked, their residuals."""

    outputs: dict[UserModel, np.ndarray]
    residuals: dict[UserModel, np.ndarray]


def _extract(output: CwlPass, metric: Metric) -> np.ndarray:
    model, out = user_model(metric)
    table = output.residuals if out.startswith("res_") else output.outputs
    return table[model][:, OUTS.index(out) % 5].copy()


def score_models(
    block: Callable[[slice], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]],
    n_queries: int,
    models: Sequence[UserModel],
    residual: frozenset[UserModel],
    *,
    depth: int = DEPTH,
    max_gain: float = 1.0,
    max_cost: float = 1.0,
    min_cost: float = 1.0,
    source: str = "<qrels>",
) -> CwlPass:
    """Each model's outputs over ``n_queries`` ranked lists, scored a block of queries at a time.

    ``block(rows)``: the ``(queries, depth)`` labels, judged flags (False past each list) and
    costs (NaN where unknown, or None for none known) of those queries, and the ranks each holds.
    ``residual``: the models whose residuals are wanted. Unknown costs are max_cost in the worst
    case and min_cost in the best, as cwl_eval's.
    """
    outputs = {m: np.empty((n_queries, 5)) for m in models}
    residuals = {m: np.empty((n_queries, 5)) for m in residual}
    for start in range(0, n_queries, BLOCK):
        rows = slice(start, min(n_queries, start + BLOCK))
        labels, judged, costs, lengths = block(rows)
        held = np.arange(depth)[None, :] < lengths[:, None]
        known = held if costs is None else held & ~np.isnan(costs)
        worst_costs = np.where(known, costs, max_cost) if costs is not None else np.full(labels.shape, max_cost)
        best_costs = np.where(known, costs, min_cost) if costs is not None else np.full(labels.shape, min_cost)
        for rule in dict.fromkeys(m.gains for m in models):
            worst, best = gain_matrices(rule, labels, judged, max_gain)
            for model in (m for m in models if m.gains == rule):
                outputs[model][rows] = _score(model, worst, worst_costs, source)
                if model in residual:
                    residuals[model][rows] = _score(model, best, best_costs, source) - outputs[model][rows]
    return CwlPass(outputs, residuals)


def _score(model: UserModel, gains: np.ndarray, costs: np.ndarray, source: str) -> np.ndarray:
    measure = BY_NAME[model.name]
    if measure.unit_gains and gains.size and (gains.min() < 0.0 or gains.max() > 1.0):
        bad = gains.max() if gains.max() > 1.0 else gains.min()
        raise InputError(f"{model.name} (cwl_eval's {measure.cwl_class}) takes gains in [0, 1], found {bad:g}", source=source)
    args = ((model.k,) if measure.cutoff else ()) + model.args
    continuation, weights = measure.model(gains, costs, *args)
    with np.errstate(divide="ignore", invalid="ignore"):
        return expectations(continuation, weights, gains, costs)


def ranked_blocks(
    offsets: np.ndarray, lengths: np.ndarray, labels: np.ndarray, judged: np.ndarray,
    costs: np.ndarray | None = None, depth: int = DEPTH,
) -> Callable[[slice], tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]]:
    """:func:`score_models`'s ``block`` over ranked lists in CSR form: list q holds ``lengths[q]`` ranks
    (cut to ``depth``) from ``offsets[q]`` in the flat ``labels``, ``judged`` (and ``costs``)."""
    lengths = np.minimum(lengths, depth)

    def block(rows: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
        held = np.arange(depth)[None, :] < lengths[rows, None]
        positions = np.where(held, offsets[rows, None] + np.arange(depth)[None, :], 0)
        if len(labels) == 0:
            return np.zeros(held.shape, np.int64), held, None if costs is None else np.full(held.shape, np.nan), lengths[rows]
        cost = None if costs is None else np.where(held, costs[positions], np.nan)
        return labels[positions], judged[positions] & held, cost, lengths[rows]

    return block


def _passes(
    qrels: Qrels, ranked: RankedRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> Iterator[tuple[CwlPass, Sequence[Metric]]]:
    asked = [user_model(metric) for metric in metrics]
    models = list(dict.fromkeys(model for model, _ in asked))
    residual = frozenset(model for model, out in asked if out.startswith("res_"))
    run_query = alignment.run_query
    present = run_query >= 0
    # A run with no query at all has nothing to index: every query then holds no rank.
    n_ranked = np.append(ranked.n_ranked, 0)
    offsets = np.append(ranked.offsets[: len(ranked.n_ranked)], 0)
    safe = np.where(present, run_query, len(ranked.n_ranked))
    lengths = n_ranked[safe]
    offsets = offsets[safe]
    block = ranked_blocks(offsets, lengths, ranked.labels, ranked.judged)
    yield score_models(block, len(run_query), models, residual, source=qrels.source), metrics


CWL = Family(
    FAMILY, definitions(_extract), ties="input", conventions=Conventions(query_set="both", duplicates="raise"),
    join=RANKED_RUN, passes=_passes, title="cwl_eval 1.0.12's C/W/L measures (EU, ETU, EC, ETC, ED and residuals)",
)
