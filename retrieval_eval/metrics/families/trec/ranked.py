"""TREC measures that walk every rank or take per-measure parameters: gain maps, rbp, Rprec_mult, 11pt_avg.

trec_eval's G, dcg, ideal_dcg, ndcg with a gain map, ndcg_rel, Rndcg, rbp and rbp_resid
(:mod:`retrieval_eval.kernels.trec.trec_gains`), and Rprec_mult and 11pt_avg
(:mod:`retrieval_eval.kernels.trec.trec_levels`); the formulas and trec_eval's quirks are in those
modules. A gain map is the parameter ``gains=L:G;L:G`` (trec_eval's ``-m ndcg.1=3,2=9`` is
``ndcg(gains=1:3.0;2:9.0)``): label L has gain G, in the order given; labels it leaves out have
their own value as gain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ....kernels.trec import trec_gains, trec_levels
from ...definition import MetricDefinition, non_negative
from ...names import Metric
from .common import RANKED, TrecInputs, measure, parameter, relevance_level

#: trec_eval's 11-point average: interpolated precision at these recall levels.
ELEVEN_POINTS = tuple(level / 10 for level in range(11))
DEFAULT_LEVELS = ";".join(repr(level) for level in ELEVEN_POINTS)
#: rbp's persistence when none is given (m_rbp.c).
DEFAULT_PERSISTENCE = "0.9"
#: A measure's parameters ``gains`` (default: each label its own gain) and ``p``.
GAINS = ("gains", "")
PERSISTENCE = ("p", DEFAULT_PERSISTENCE)
#: What the measures of the gain pass and of the level pass require (see trec_common).
GAIN_PASS = (RANKED, "gains")
LEVEL_PASS = (RANKED, "levels")


@dataclass(frozen=True, eq=False)
class GainPass:
    """The output of one gain-map pass: the gain measures, rbp and rbp_resid at each persistence asked for."""

    measures: np.ndarray
    rbp: np.ndarray
    resid: np.ndarray
    rbp_columns: dict[str, int]
    resid_columns: dict[str, int]
    stand_ins: np.ndarray


@dataclass(frozen=True, eq=False)
class LevelPass:
    """The output of one level pass: Rprec_mult per multiple, 11pt_avg per level list."""

    rprec_mult: np.ndarray
    eleven_point: np.ndarray
    multiple_columns: dict[str, int]
    level_columns: dict[str, int]


def gain_measure(column: int) -> Callable[[GainPass, Metric], np.ndarray]:
    """The extraction of one of :mod:`retrieval_eval.kernels.trec.trec_gains`' measure columns."""
    return lambda output, metric: output.measures[:, column]


def _rbp(output: GainPass, metric: Metric) -> np.ndarray:
    return output.rbp[:, output.rbp_columns[parameter(metric, "p", DEFAULT_PERSISTENCE)]]


def _rbp_resid(output: GainPass, metric: Metric) -> np.ndarray:
    values = output.resid[:, output.resid_columns[parameter(metric, "p", DEFAULT_PERSISTENCE)]]
    if "p" not in dict(metric.params):
        # trec_eval resets "rbp_resid" for a query the run lacks, but not "rbp_resid_p=0.8": the reset goes by name.
        values = np.where(output.stand_ins, 0.0, values)
    return values


def _rprec_mult(output: LevelPass, metric: Metric) -> np.ndarray:
    return output.rprec_mult[:, output.multiple_columns[parameter(metric, "mult", "")]]


def _eleven_point(output: LevelPass, metric: Metric) -> np.ndarray:
    return output.eleven_point[:, output.level_columns[parameter(metric, "levels", DEFAULT_LEVELS)]]


def _gain_definition(name: str, definition: str, column: int, trec_name: str, **extra: object) -> MetricDefinition:
    # trec_eval's gain map has one entry per whole grade 0..L-1 (gain_init.c): integer labels only.
    return measure(
        name, definition, rel=False, params=(GAINS,), trec_name=trec_name, requires=lambda metric: GAIN_PASS,
        extract=gain_measure(column), float_labels=False, **extra,
    )


DEFINITIONS = (
    _gain_definition(
        "g", "trec_eval's G (Normalized Gain): sum over ranks of gain / log2(2 + ideal gains so far (each at least 1) "
        "- gains so far), / the sum of the ideal gains; gains = labels, or the gain map.",
        trec_gains.G, "G",
    ),
    _gain_definition(
        "dcg", "trec_eval's dcg: sum over ranks i of gain / log2(i + 1), gains = labels or the gain map (no cutoff).",
        trec_gains.DCG, "dcg", bounds=non_negative,
    ),
    _gain_definition(
        "ideal_dcg", "trec_eval's ideal_dcg: dcg of the judged documents ordered by the gain map (sorted as trec_eval "
        "sorts it), while the gain is > 0.",
        trec_gains.IDEAL_DCG, "ideal_dcg", bounds=non_negative,
    ),
    _gain_definition(
        "ndcg_rel", "trec_eval's ndcg_rel: ndcg averaged over the ideal positions with a gain > 0 (at each retrieved "
        "document with a gain > 0, at the end of the ranking for the others).",
        trec_gains.NDCG_REL, "ndcg_rel",
    ),
    measure(
        "rndcg", "trec_eval's Rndcg: ndcg averaged over the ranks where the ideal gain changes (the R levels) and the "
        "end of the ranking; 0 when nothing is relevant at rel; gains = labels or the gain map.",
        params=(GAINS,), trec_name="Rndcg", requires=lambda metric: GAIN_PASS, extract=gain_measure(trec_gains.RNDCG),
        float_labels=False,
    ),
    measure(
        "rbp", "Rank-biased precision (Moffat and Zobel): (1 - p) sum over ranks i of gain p^(i-1), gains scaled to "
        "[0, 1] by (g - min)/(max - min) when one lies outside (trec_eval rbp; p = 0.9 by default).",
        rel=False, params=(PERSISTENCE, GAINS), trec_name="rbp", requires=lambda metric: GAIN_PASS, extract=_rbp,
        float_labels=False,
    ),
    measure(
        "rbp_resid", "rbp's residual: p^n + (1 - p) sum over unjudged ranks i of p^(i-1), what rbp could still gain "
        "if every unjudged document were relevant; 0 when none is unjudged (trec_eval rbp_resid).",
        rel=False, params=(PERSISTENCE,), higher_is_better=False, trec_name="rbp_resid",
        requires=lambda metric: GAIN_PASS, extract=_rbp_resid, float_labels=False,
    ),
    measure(
        "rprec_mult", "Precision at mult * num_rel documents: relevant in the top c / c, c = (long)(mult R + 0.9) "
        "(trec_eval Rprec_mult; its default multiples are 0.2, 0.4, ..., 2.0).",
        params=(("mult", None),), aliases=("rprec_mult_{mult}",), trec_name="Rprec_mult_{mult}",
        requires=lambda metric: LEVEL_PASS, extract=_rprec_mult,
    ),
    measure(
        "iprec_11pt", "Mean of interpolated precision at recall levels (default 0.0, 0.1, ..., 1.0; trec_eval 11pt_avg), "
        "added in the order trec_eval meets them: ascending levels give the average of iprec_at_recall.",
        params=(("levels", DEFAULT_LEVELS),), aliases=("11pt_avg",), trec_name="11pt_avg",
        requires=lambda metric: LEVEL_PASS, extract=_eleven_point,
    ),
)


def passes(inputs: TrecInputs, metrics: Sequence[tuple[Metric, tuple]]) -> Iterator[tuple[object, list[Metric]]]:
    """One gain pass per (gain map, rel) and one level pass per rel, for ``metrics`` with what each requires."""
    gain_groups: dict[tuple[str, int], list[Metric]] = {}
    level_groups: dict[int, list[Metric]] = {}
    for metric, needs in metrics:
        if needs == LEVEL_PASS:
            level_groups.setdefault(relevance_level(metric), []).append(metric)
        else:
            gain_groups.setdefault((parameter(metric, "gains", ""), relevance_level(metric)), []).append(metric)
    if gain_groups:
        level_query = _label_source(inputs)
    for (gains, rel), group in gain_groups.items():
        yield _gain_pass(inputs, gains, rel, group, level_query), group
    for rel, group in level_groups.items():
        yield _level_pass(inputs, rel, group), group


def _gain_pass(inputs: TrecInputs, gains: str, rel: int, group: list[Metric], level_query: np.ndarray) -> GainPass:
    pair_levels, pair_gains = gain_pairs(gains)
    rbp_p = sorted({parameter(m, "p", DEFAULT_PERSISTENCE) for m in group if m.name == "rbp"})
    resid_p = sorted({parameter(m, "p", DEFAULT_PERSISTENCE) for m in group if m.name == "rbp_resid"})
    measures, rbp, resid = trec_gains.gain_measures(
        *inputs.arguments(), level_query, *inputs.judgments(), rel, inputs.depth, inputs.stand_in,
        pair_levels, pair_gains, np.array([float(p) for p in rbp_p], dtype=np.float64),
        np.array([float(p) for p in resid_p], dtype=np.float64), inputs.discounts,
    )
    return GainPass(
        measures, rbp, resid, {p: j for j, p in enumerate(rbp_p)}, {p: j for j, p in enumerate(resid_p)},
        inputs.stand_ins,
    )


def _level_pass(inputs: TrecInputs, rel: int, group: list[Metric]) -> LevelPass:
    multiples = sorted({parameter(m, "mult", "") for m in group if m.name == "rprec_mult"})
    level_lists = sorted({parameter(m, "levels", DEFAULT_LEVELS) for m in group if m.name == "iprec_11pt"})
    levels = [np.array([float(level) for level in text.split(";")], dtype=np.float64) for text in level_lists]
    offsets = np.zeros(len(levels) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(values) for values in levels])
    rprec_mult, eleven_point = trec_levels.level_measures(
        *inputs.arguments(), *inputs.judgments(), rel, inputs.depth, inputs.stand_in,
        np.array([float(m) for m in multiples], dtype=np.float64),
        np.concatenate(levels) if levels else np.zeros(0, dtype=np.float64), offsets,
    )
    return LevelPass(
        rprec_mult, eleven_point, {m: j for j, m in enumerate(multiples)}, {t: j for j, t in enumerate(level_lists)}
    )


def gain_pairs(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The labels and gains of a canonical gain map ``L:G;L:G`` ("" for none), in their order."""
    pairs = [item.split(":") for item in text.split(";")] if text else []
    return (
        np.array([int(label) for label, _ in pairs], dtype=np.int64),
        np.array([float(gain) for _, gain in pairs], dtype=np.float64),
    )


def _label_source(inputs: TrecInputs) -> np.ndarray:
    """Per evaluated query, the qrels query whose judged labels trec_eval counts for its gain map.

    Its own, unless all its labels are negative: trec_eval then keeps the counts of the query it
    evaluated before (its queries in byte order of their ids), or of the one before that, ...;
    -1 when there is none (the first query: trec_eval fails with "Can't calculate measure").
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from ....io.arrays import numpy_view

    qrels = inputs.qrels
    ids = qrels.query_ids
    texts = ids if pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type) else pc.cast(ids, pa.string())
    order = numpy_view(pc.sort_indices(pc.cast(texts, pa.binary())))
    labels = qrels.ideal_labels
    judged = np.zeros(qrels.n_queries, dtype=bool)
    if len(labels):
        # A query's labels are sorted best first: it has one >= 0 when its first one is.
        best = labels[np.minimum(qrels.queries.offsets[:-1], len(labels) - 1)]
        judged = (qrels.n_judged > 0) & (best >= 0)
    # In trec_eval's order, the position of the last query with a label >= 0 at or before each one.
    latest = np.maximum.accumulate(np.where(judged[order], np.arange(len(order)), -1)) if len(order) else order
    source = np.full(len(order), -1, dtype=np.int64)
    source[order] = np.where(latest >= 0, order[np.maximum(latest, 0)], -1)
    qrels_query = inputs.alignment.qrels_query
    return np.where(qrels_query >= 0, source[np.maximum(qrels_query, 0)], -1).astype(np.int64)
