"""cwl_eval 1.0.12's command line: the lines it prints, byte for byte, with its element costs.

cwl_eval prints, per topic of the run (in the order the run first lists them) and per measure
(in the metrics file's order, or its 16 defaults), ``topic\\tname\\tEU\\tETU\\tEC\\tETC\\tED`` with
each value as ``{:.4f}``, then under ``residuals`` the five residuals the same way; ``colnames``
puts a header line first. The measures are the C/W/L family's (:mod:`.families.cwl`), here with
cwl_eval's own conventions, which are not the registry metrics':

- the ranking is the run's line order (rank and score are not read); a document listed twice
  counts at each of its ranks; the lines of a topic must be consecutive (cwl_eval would score
  each stretch as a topic of its own and print it twice: an error here);
- the gain of a document is its qrels label itself (a float when written so), the last label
  when a pair is judged twice; every label must lie in [min_gain, max_gain];
- the run's topics the qrels lack are scored too, every document unjudged;
- unjudged documents and the ranks past a list up to ``max_depth`` have gain 0 and cost
  ``max_cost`` in the worst case (the values), gain ``max_gain`` and cost ``min_cost`` in the
  best case (the residuals are best minus worst); cwl_eval never uses ``min_gain`` there;
- a value that rounds to zero prints as ``0.0000`` where cwl_eval may print ``-0.0000``;
- the cost of a document is its element type's (the run's second field) in the cost file, or
  the unknown cost above for a type the file lacks (every document without a cost file).

A metrics file lists one measure a line as cwl_eval's class with its constructor arguments,
``RBPCWLMetric(0.8)``; an argument with a ``.`` is a float, else an integer, and the printed
name formats it so (``INST-T=1`` for ``INSTCWLMetric(1)``, ``INST-T=1.0`` for ``(1.0)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ConfigError, InputError
from ..metrics.families.cwl import UserModel, ranked_blocks, score_models
from ..metrics.families.cwl.gains import GainRule
from ..metrics.families.cwl.measures import BY_NAME, DEPTH

#: The header lines of ``-n``.
HEADER = "Topic\tMetric\tEU\tETU\tEC\tETC\tED"
RESIDUAL_HEADER = "\tResEU\tResETU\tResEC\tResETC\tResED"
#: cwl_eval's gain: the label itself.
LABEL_GAINS = GainRule("label")


@dataclass(frozen=True)
class CwlClass:
    """One of cwl_eval's measure classes as its metrics file names it.

    ``measure``: the family's measure; ``params``: its constructor's arguments in order, each
    the family's parameter key (``k`` the cutoff) and cwl_eval's default (None: required);
    ``label``: the name cwl_eval prints, a format of those keys.
    """

    measure: str
    params: tuple[tuple[str, int | float | None], ...]
    label: str


CLASSES = {
    "PrecisionCWLMetric": CwlClass("cwl_p", (("k", 10),), "P@{k}"),
    "RRCWLMetric": CwlClass("cwl_rr", (), "RR"),
    "APCWLMetric": CwlClass("cwl_ap", (), "AP"),
    "RBPCWLMetric": CwlClass("cwl_rbp", (("theta", 0.9),), "RBP@{theta}"),
    "INSTCWLMetric": CwlClass("cwl_inst", (("t", 1.0),), "INST-T={t}"),
    "INSQCWLMetric": CwlClass("cwl_insq", (("t", 1.0),), "INSQ-T={t}"),
    "NDCGCWLMetric": CwlClass("cwl_ndcg", (("k", None),), "NDCG-k@{k}"),
    "BPMCWLMetric": CwlClass("cwl_bpm", (("t", 1.0), ("k", 10)), "BPM-Static-T={t}-K={k}"),
    "BPMDCWLMetric": CwlClass(
        "cwl_bpm_dynamic", (("t", 1), ("k", 10), ("hb", 1.0), ("hc", 1.0), ("gain_med", 0.5)),
        "BPM-Dynamic-T={t}-K={k}-hb={hb}-hc={hc}",
    ),
    "NERReq8CWLMetric": CwlClass("cwl_nerr8", (("k", None),), "NERR-EQ8@k={k}"),
    "NERReq9CWLMetric": CwlClass("cwl_nerr9", (("k", None),), "NERR-EQ9@k={k}"),
    "NERReq10CWLMetric": CwlClass("cwl_nerr10", (("phi", 0.9),), "NERR-EQ10@phi={phi}"),
    "NERReq11CWLMetric": CwlClass("cwl_nerr11", (("t", 1.0),), "NERR-EQ11@T={t}"),
    "NPVCWLMetric": CwlClass("cwl_npv", (("rate", 0.1),), "NPV-r@{rate}"),
    "SETCWLMetric": CwlClass("cwl_set", (("beta", 0.5), ("k", 10)), "SET-k@{k}-b@{beta}"),
    "TBGCWLMetric": CwlClass("cwl_tbg", (("halflife", 224),), "TBG-H@{halflife} "),
    "UMeasureCWLMetric": CwlClass("cwl_umeasure", (("l", 1000),), "U-L@{l} "),
    "IFTGoalCWLMetric": CwlClass("cwl_ift_goal", (("t", None), ("b1", None), ("r1", None)), "IFT-C1-T={t}-b1={b1}-R1={r1}"),
    "IFTRateCWLMetric": CwlClass("cwl_ift_rate", (("a", None), ("b2", None), ("r2", None)), "IFT-C2-A={a}-b2={b2}-R2={r2}"),
    "IFTGoalRateCWLMetric": CwlClass(
        "cwl_ift", (("t", None), ("b1", None), ("r1", None), ("a", None), ("b2", None), ("r2", None)),
        "IFT-C1-C2-T={t}-b1={b1}-R1={r1}-A={a}-b2={b2}-R2={r2}",
    ),
}

#: cwl_eval's measures without a metrics file (CWLRuler's defaults).
DEFAULT_METRICS = (
    "PrecisionCWLMetric(1)", "PrecisionCWLMetric(2)", "PrecisionCWLMetric(3)", "PrecisionCWLMetric(4)",
    "PrecisionCWLMetric(5)", "PrecisionCWLMetric(10)", "RBPCWLMetric(0.2)", "RBPCWLMetric(0.4)",
    "RBPCWLMetric(0.8)", "NDCGCWLMetric(5)", "NDCGCWLMetric(10)", "RRCWLMetric()", "APCWLMetric()",
    "INSTCWLMetric(1.0)", "INSTCWLMetric(2.0)", "INSTCWLMetric(3.0)",
)

_LINE = re.compile(r"(\w+)\(([^()]*)\)")


def cwl_eval(
    qrels: Any,
    run: Any,
    *,
    metrics_file: str | None = None,
    costs_file: str | None = None,
    residuals: bool = False,
    colnames: bool = False,
    max_gain: float = 1.0,
    min_gain: float = 0.0,
    max_cost: str | float = 1.0,
    min_cost: str | float = 1.0,
    max_depth: int = DEPTH,
) -> list[str]:
    """The lines ``cwl_eval [-m METRICS] [-c COSTS] [-r] [-n] [--max_gain ...] QRELS RUN`` prints.

    ``max_cost`` / ``min_cost``: numbers or their text (cwl_eval takes them as given);
    ``max_depth``: the ranks scored per topic (lists cut there, padded to it).
    """
    if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1:
        raise ConfigError(f"max_depth must be an integer >= 1, got {max_depth!r}")
    worst_cost, best_cost = _number("max_cost", max_cost), _number("min_cost", min_cost)
    measures = _measures(metrics_file, max_depth)
    lines_read, run_label = _run(run)
    labels, judged = _gains(qrels, lines_read, float(max_gain), float(min_gain))
    costs = None if costs_file is None else _costs(costs_file, lines_read["element_type"])
    topics, offsets, lengths = _topics(lines_read["query_id"], run_label)
    models = list(dict.fromkeys(model for _, model in measures))
    block = ranked_blocks(offsets, lengths, labels, judged, costs, depth=max_depth)
    scored = score_models(
        block, len(topics), models, frozenset(models) if residuals else frozenset(), depth=max_depth,
        max_gain=float(max_gain), max_cost=worst_cost, min_cost=best_cost, source=str(qrels),
    )
    lines = [HEADER + RESIDUAL_HEADER] if colnames and residuals else [HEADER] if colnames else []
    for row, topic in enumerate(topics):
        for name, model in measures:
            values = list(scored.outputs[model][row]) + (list(scored.residuals[model][row]) if residuals else [])
            lines.append("\t".join([topic, name] + [_fixed(value) for value in values]))
    return lines


def _fixed(value: float) -> str:
    """``{:.4f}``, a value that rounds to zero unsigned: its sign is the rounding error of a difference
    (a residual of two equal sums), which cwl_eval's summation order and this one's settle differently."""
    text = f"{value:.4f}"
    return "0.0000" if text == "-0.0000" else text


def _run(run: Any) -> tuple[pa.Table, str]:
    """The run's lines (topic, element type, document) in file order, and its label for errors."""
    from ..io.sources import resolve_source
    from ..io.trec import CWL_RUN_LAYOUT, read_trec

    source = resolve_source(run)
    return read_trec(source, CWL_RUN_LAYOUT), source.label


def _number(flag: str, value: str | float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"--{flag} must be a number, got {value!r}") from None


def _measures(metrics_file: str | None, depth: int) -> list[tuple[str, UserModel]]:
    """The measures of a metrics file (cwl_eval's defaults without one): printed name and user model each."""
    if metrics_file is None:
        return [_measure(line, "<defaults>", 0, depth) for line in DEFAULT_METRICS]
    try:
        with open(metrics_file, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise InputError(f"cannot read the metrics file: {error.strerror}", source=metrics_file) from None
    if not lines:
        raise InputError("empty metrics file (cwl_eval would print nothing)", source=metrics_file)
    return [_measure(line, metrics_file, row, depth) for row, line in enumerate(lines, 1)]


def _measure(line: str, source: str, row: int, depth: int) -> tuple[str, UserModel]:
    """``Class(arg, ...)``: cwl_eval's name for it and its user model."""
    match = _LINE.fullmatch(line.strip())
    if match is None:
        raise InputError(f"expected a measure such as RBPCWLMetric(0.8), found {line!r}", source=source, row=row)
    name, text = match.groups()
    known = CLASSES.get(name)
    if known is None:
        raise InputError(f"unknown measure class {name!r} (known: {', '.join(CLASSES)})", source=source, row=row)
    # cwl_eval drops empty arguments and reads one with a '.' as a float, else as an integer.
    given = [part for part in text.split(",") if part != ""]
    if len(given) > len(known.params):
        raise InputError(f"{name} takes at most {len(known.params)} arguments, got {len(given)}", source=source, row=row)
    values: dict[str, int | float] = {}
    for (key, default), part in zip(known.params, given + [None] * (len(known.params) - len(given))):
        if part is None:
            if default is None:
                raise InputError(f"{name} needs its argument {key}", source=source, row=row)
            values[key] = default
            continue
        try:
            values[key] = float(part) if "." in part else int(part)
        except ValueError:
            raise InputError(f"{name}: argument {part!r} is not a number (a float with '.', else an integer)",
                             source=source, row=row) from None
    k = values.get("k")
    if k is not None and (not isinstance(k, int) or not 1 <= k <= depth + 1):
        # cwl_eval fails on P@k past its depth + 1 (vectors of two lengths): the family's bound, for every cutoff.
        raise InputError(f"{name}: the cutoff K must be an integer from 1 to max_depth + 1 ({depth + 1}), got {k!r}",
                         source=source, row=row)
    measure = BY_NAME[known.measure]
    args = tuple(float(values[key]) for key, _ in measure.params)
    return known.label.format(**values), UserModel(known.measure, k, args, LABEL_GAINS)


def _gains(qrels: Any, run: pa.Table, max_gain: float, min_gain: float) -> tuple[np.ndarray, np.ndarray]:
    """Each run line's label (the qrels' last for the pair) and whether it is judged; labels outside the range are errors."""
    from ..data import Qrels

    judgments = Qrels.read(qrels, duplicates="last")
    labels = judgments.labels.astype(np.float64)
    outside = (labels > max_gain) | (labels < min_gain)
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        table = judgments.table
        raise InputError(
            f"gain {labels[row]:g} (topic {table['query_id'][row].as_py()}, document {table['doc_id'][row].as_py()}) "
            f"is outside [{min_gain:g}, {max_gain:g}] (--min_gain, --max_gain)", source=judgments.source,
        )
    # index_in finds a key's first occurrence: over the reversed qrels that is the last label.
    keys = _pairs(judgments.table)[::-1]
    found = pc.index_in(_pairs(run), value_set=keys).fill_null(-1).to_numpy(zero_copy_only=False)
    judged = found >= 0
    return np.where(judged, labels[::-1][np.maximum(found, 0)], 0.0), judged


def _pairs(table: pa.Table) -> pa.Array:
    # Fields are whitespace-split: a tab cannot occur in either.
    joined = pc.binary_join_element_wise(table["query_id"].cast(pa.string()), table["doc_id"].cast(pa.string()), "\t")
    return joined.combine_chunks() if isinstance(joined, pa.ChunkedArray) else joined


def _costs(costs_file: str, types: pa.ChunkedArray) -> np.ndarray:
    """Each run line's cost: its element type's in the cost file (``type cost`` a line), NaN (unknown) for a type it lacks."""
    try:
        with open(costs_file, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise InputError(f"cannot read the cost file: {error.strerror}", source=costs_file) from None
    prices: dict[str, float] = {}
    for row, line in enumerate(lines, 1):
        fields = line.split()
        if len(fields) != 2:
            raise InputError(f"expected 2 whitespace-separated fields (element_type cost), found {len(fields)}",
                             source=costs_file, row=row)
        try:
            cost = float(fields[1])
        except ValueError:
            raise InputError(f"cost {fields[1]!r} is not a number", source=costs_file, row=row, field="cost") from None
        if fields[0] in prices:
            raise InputError(f"element type {fields[0]!r} is priced twice", source=costs_file, row=row)
        prices[fields[0]] = cost
    where = pc.index_in(types, value_set=pa.array(list(prices), pa.string())).fill_null(-1).to_numpy(zero_copy_only=False)
    values = np.append(np.array(list(prices.values()), np.float64), np.nan)
    return values[where]


def _topics(ids: pa.ChunkedArray, source: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The run's topics in file order, with where each one's lines start and how many there are."""
    ids = ids.combine_chunks()
    starts = np.flatnonzero(np.append(True, ~pc.equal(ids[1:], ids[:-1]).to_numpy(zero_copy_only=False)))
    topics = ids.take(pa.array(starts))
    # unique keeps first appearances in order, so a topic seen before has a code at most the highest so far.
    codes = pc.index_in(topics, value_set=pc.unique(topics)).to_numpy(zero_copy_only=False)
    again = codes <= np.append(-1, np.maximum.accumulate(codes)[:-1])
    if again.any():
        index = int(np.flatnonzero(again)[0])
        raise InputError(
            f"topic {topics[index].as_py()!r} comes back after other topics: cwl_eval scores each stretch of a "
            "topic's consecutive lines as a topic of its own (list each topic's lines together)",
            source=source, row=int(starts[index]) + 1,
        )
    lengths = np.diff(np.append(starts, len(ids)))
    return topics.to_pylist(), starts.astype(np.int64), lengths.astype(np.int64)
