"""ndeval 4.5's output (the TREC Web track's diversity measures), byte for byte, from the diversity family.

ndeval prints ``runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,...,strec@20`` (:data:`COLUMNS`),
then one line ``runid,TOPIC,%.6f,...`` per topic of the run in ascending topic number (``%d``), a
topic without judgments all 0, then ``runid,amean,%.6f,...``: each column's sum over the printed
lines (added in that order) divided by the number of topics both judged and retrieved, or by the
number of judged topics under ``-c`` (``all_topics``). A NaN (nNRBP of a judged topic without a
relevant document, 0 / 0; or every mean when no topic was scored) prints as C's ``-nan``.
``runid`` is the tag of the run's first line.

Input as ndeval reads it: qrels lines ``topic subtopic docno judgment``, topic, subtopic and
judgment natural numbers (a judgment above 1 counts as 1); run topics a natural number, possibly after a prefix up to
the first ``-`` (``wt09-51`` is topic 51). Topics and subtopics are numbers: ``051`` and ``51`` are one.
ndeval's natural numbers stop at 1,000,009 (it refuses a number once the digits read exceed
100,000 before the last); so does this. Lines ndeval refuses as syntax errors are refused too,
except blank and ``#`` comment lines, which the project's readers skip. Refused here where ndeval
reads on: a document judged twice for one subtopic (ndeval counts it twice among the subtopic's
relevant documents, so its MAP-IA drops).

Order: ndeval's default, by the rank column of a TREC run file (ascending; a rank twice in a
topic an error; the rank must be a natural number in either order), or under ``-traditional``
(``traditional``) by score descending, equal scores by descending docno (the diversity family's
order). A run that is not a TREC text file has no rank column: it takes ``traditional`` only.
Risk (``baseline``, ndeval's ``-baseline`` and ``-riskAlpha``): each value r of the run becomes
URisk's r - b, or (1 + alpha)(r - b) when r < b, b the baseline's value for the topic (read and
ranked as the run is; 0 where it lacks the topic). The lines are the run's topics, and under
``-c`` the baseline's too; the runid is ``runid (rel to. baseline-runid; rs=1+a; a=ALPHA)``; the
means divide by the lines printed when there are more of them than the topics counted otherwise.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ConfigError, InputError
from ..io.trec import RUN_LAYOUT, read_trec
from ..metrics.names import Metric
from ..metrics.options import EvaluationOptions

#: ndeval's cutoffs for the measures it prints at a depth.
CUTOFFS = (5, 10, 20)
#: (ndeval's column, the registry measure, its parameters, whether it takes the cutoffs), in ndeval's order.
_MEASURES = (
    ("ERR-IA", "err_ia", ("alpha",), True), ("nERR-IA", "nerr_ia", ("alpha",), True),
    ("alpha-DCG", "alpha_dcg", ("alpha",), True), ("alpha-nDCG", "alpha_ndcg", ("alpha",), True),
    ("NRBP", "nrbp", ("alpha", "beta"), False), ("nNRBP", "nnrbp", ("alpha", "beta"), False),
    ("MAP-IA", "map_ia", (), False), ("P-IA", "p_ia", (), True), ("strec", "strec", (), True),
)
COLUMNS = tuple(
    column for name, _, _, cut in _MEASURES for column in ([f"{name}@{k}" for k in CUTOFFS] if cut else [name])
)
#: ndeval's naturalNumber: it refuses a number once the digits before the last exceed this.
_LARGE_ENOUGH = 100_000
#: A run topic's prefix as ndeval's parseTopic drops it: up to the first ``-`` when it starts with no digit.
_PREFIX = r"^([^0-9-][^-]*)?-"
#: A TREC run's lines with the fields ndeval reads beyond the project's: the rank and the tag.
_RUN_WITH_RANK = dataclasses.replace(RUN_LAYOUT, keep=(*RUN_LAYOUT.keep, (3, "rank", pa.string(), None),
                                                        (5, "tag", pa.string(), None)))


def ndeval(
    qrels: Any, run: Any, *, alpha: str = "0.5", beta: str = "0.5", max_docs: int = 0, all_topics: bool = False,
    traditional: bool = False, baseline: Any | None = None, risk_alpha: str = "0",
) -> list[str]:
    """The lines ``ndeval [-traditional] [-c] [-alpha A] [-beta B] [-M N] [-baseline B -riskAlpha R] QRELS RUN`` prints.

    ``alpha``, ``beta``: as written (numbers from 0 to 1); ``max_docs``: ndeval's ``-M``, the depth
    the run is cut at (0 or less: no cut, as ndeval); ``risk_alpha``: the text of URisk's alpha
    (printed as given), a number >= 0.
    """
    from ..data import Qrels
    from .gdeval import risk_alpha_value

    params = {"alpha": _unit("alpha", alpha), "beta": _unit("beta", beta)}
    risk = risk_alpha_value(risk_alpha)
    if isinstance(max_docs, bool) or not isinstance(max_docs, int):
        raise ConfigError(f"max_docs must be an integer (ndeval's -M), got {max_docs!r}")
    judged = Qrels.read(qrels, judgments="qrels_jg", duplicates="raise")
    _nonempty(judged, "qrel")
    judged = _renumbered(judged, query_id=_numbers(judged.table, judged.source, "query_id", "topic"),
                         group=_numbers(judged.table, judged.source, "group", "subtopic"))
    _check_judgments(judged)
    metrics = [str(Metric(name, k, tuple((key, params[key]) for key in keys)))
               for _, name, keys, cut in _MEASURES for k in (CUTOFFS if cut else (None,))]
    options = EvaluationOptions(query_set="both", max_docs=max_docs if max_docs > 0 else None)
    runid, topics, values, count = _scores(judged, run, metrics, options, traditional)
    if all_topics:
        count = pc.count_distinct(judged.table["query_id"]).as_py()
    if baseline is not None:
        base = _scores(judged, baseline, metrics, options, traditional)
        runid = f"{runid} (rel to. {base[0]}; rs=1+a; a={risk_alpha})"
        topics, values = _urisk(topics, values, base[1], base[2], risk, all_topics)
        # ndeval divides by the topics printed when there are more of them (its baseline's).
        count = max(count, len(topics))
    # ndeval adds topic after topic in the order printed, then divides (0 / 0 when no topic was scored).
    totals = np.cumsum(np.vstack([np.zeros((1, len(metrics))), values]), axis=0)[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        means = totals / np.float64(count)
    lines = ["runid,topic," + ",".join(COLUMNS)]
    lines += [f"{runid},{topic},{_row(row)}" for topic, row in zip(topics.tolist(), values)]
    lines.append(f"{runid},amean,{_row(means)}")
    return lines


def _scores(
    judged: Any, run: Any, metrics: list[str], options: EvaluationOptions, traditional: bool
) -> tuple[str, np.ndarray, np.ndarray, int]:
    """A run's runid, topics (ascending), their values (topics x metrics, 0 where not judged), and how many were judged."""
    from ..metrics.evaluator import Evaluator, NoSharedQueriesWarning

    read, runid = _read_run(run, traditional)
    with warnings.catch_warnings():
        # ndeval prints its lines (all 0, then -nan means) for a run that shares no topic with the qrels.
        warnings.simplefilter("ignore", NoSharedQueriesWarning)
        result = Evaluator(judged, metrics, options=options).evaluate(read)
    scored = np.stack([result.values(metric) for metric in metrics], axis=1)
    topics = np.sort(pc.unique(read.table["query_id"]).cast(pa.int64()).to_numpy(zero_copy_only=False))
    where = _positions(topics, result.query_ids.cast(pa.int64()).to_numpy(zero_copy_only=False))
    values = np.where((where >= 0)[:, None], scored[np.maximum(where, 0)], 0.0) if len(scored) else np.zeros(
        (len(topics), len(metrics)))
    return runid, topics, values, int((where >= 0).sum())


def _positions(topics: np.ndarray, among: np.ndarray) -> np.ndarray:
    """Where each of ``topics`` is in ``among`` (-1: not there)."""
    where = pc.index_in(pa.array(topics), value_set=pa.array(among, pa.int64()))
    return where.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _urisk(
    topics: np.ndarray, values: np.ndarray, base_topics: np.ndarray, base_values: np.ndarray, alpha: float,
    all_topics: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """ndeval's risk lines: URisk r - b, or (1 + alpha)(r - b) where r < b, per topic and column.

    The topics are the run's, and under ``all_topics`` the baseline's too, in ascending number; a
    side that lacks a topic counts 0 there.
    """
    union = np.union1d(topics, base_topics)
    in_run, in_base = _positions(union, topics), _positions(union, base_topics)
    printed = (in_run >= 0) | ((in_base >= 0) & all_topics)
    union, in_run, in_base = union[printed], in_run[printed], in_base[printed]
    r = np.where((in_run >= 0)[:, None], values[np.maximum(in_run, 0)], 0.0)
    b = np.where((in_base >= 0)[:, None], base_values[np.maximum(in_base, 0)], 0.0)
    with np.errstate(invalid="ignore"):
        return union, np.where(r >= b, r - b, (alpha + 1.0) * (r - b))


def _row(values: np.ndarray) -> str:
    """``%.6f`` for each value, C's ``-nan`` for a NaN (x86's 0 / 0 has its sign bit set)."""
    return ",".join("-nan" if value != value else f"{value:.6f}" for value in values.tolist())


def _unit(name: str, text: str) -> str:
    """``text`` as the registry's parameter, once checked to be a number from 0 to 1 (the family's range)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = float("nan")
    if not 0.0 <= value <= 1.0 or "_" in str(text):
        raise ConfigError(f"{name} must be a number from 0 to 1 (ndeval's -{name}), got {text!r}")
    return str(text).strip()


def _nonempty(data: Any, kind: str) -> None:
    if not len(data):
        raise InputError(f"{kind} file is empty (ndeval needs at least one line)", source=data.source)


def _read_run(run: Any, traditional: bool) -> tuple[Any, str]:
    """The run with ndeval's topic numbers, ranked by its rank column unless ``traditional``, and its runid.

    By rank: each score becomes -rank, so that the family's order (score descending) is the
    rank's; ranks are distinct in a topic, so the order of equal scores never comes in.
    """
    from ..data import Run
    from ..io.sources import resolve_source

    src = resolve_source(run) if isinstance(run, (str, os.PathLike)) else None
    if src is None or src.format != "trec":
        if not traditional:
            raise ConfigError("ndeval ranks by the rank column of a TREC run file; for a run without one "
                              "ask for its -traditional order (score, then docno)")
        read = Run.read(run)
        _nonempty(read, "run")
        return _renumbered(read, query_id=_run_topics(read.table, read.source)), read.name
    table = read_trec(src, _RUN_WITH_RANK)
    topics = _run_topics(table, src.label)
    ranks = _numbers(table, src.label, "rank", "rank")
    if not traditional:
        key = topics.to_numpy() * np.int64(1 << 21) + ranks.to_numpy()  # ranks < 2**21 (natural numbers)
        _, first = np.unique(key, return_index=True)
        if len(first) < len(key):
            row = int(np.setdiff1d(np.arange(len(key)), first)[0])
            raise InputError(f"duplicate rank ({ranks[row].as_py()}) for topic {topics[row].as_py()} (ndeval "
                             "ranks by the rank column; -traditional ranks by score)", source=src.label, row=row + 1,
                             field="rank")
        table = table.set_column(table.schema.get_field_index("score"), "score", pc.negate(ranks.cast(pa.float64())))
    ranked = Run(table.select(["query_id", "doc_id", "score"]), source=src.label)
    return _renumbered(ranked, query_id=topics), table["tag"][0].as_py()


def _run_topics(table: pa.Table, source: str) -> pa.Array:
    """A run's topics as ndeval's parseTopic reads them: a natural number, after a prefix up to the first ``-``."""
    ids = table["query_id"].cast(pa.string())
    return _numbers(table, source, "query_id", "topic", pc.replace_substring_regex(
        ids, pattern=_PREFIX, replacement="", max_replacements=1))


def _numbers(table: pa.Table, source: str, column: str, what: str, text: pa.Array | None = None) -> pa.Array:
    """The column (or ``text``, read from it) as ndeval's natural numbers (int64), or an error naming the first row that is not one."""
    text = table[column].cast(pa.string()) if text is None else text
    digits = pc.match_substring_regex(text, pattern=r"^[0-9]+$").to_numpy(zero_copy_only=False)
    if digits.all():
        # Leading zeros and every digit but the last cannot exceed ndeval's bound.
        head = pc.utf8_slice_codeunits(pc.utf8_ltrim(text, characters="0"), 0, -1)
        digits = pc.less_equal(pc.cast(pc.if_else(pc.equal(head, ""), "0", head).cast(pa.string()), pa.float64()),
                               _LARGE_ENOUGH).to_numpy(zero_copy_only=False)
    if not digits.all():
        row = int(np.flatnonzero(~digits)[0])
        value = table[column][row].as_py()
        raise InputError(f"{what} {value!r} is not a natural number of at most 1000009 (as ndeval reads a {what})",
                         source=source, row=row + 1, field=column)
    return pc.cast(text, pa.int64())


def _renumbered(data: Any, **numbers: pa.Array) -> Any:
    """``data`` with each named column the decimal text of its ``numbers`` (``051`` -> ``51``, ndeval's one topic)."""
    table = data.table
    for column, values in numbers.items():
        table = table.set_column(table.schema.get_field_index(column), column, values.cast(pa.string()))
    extra = {"name": data.name} if hasattr(data, "name") else {"judgments": "qrels_jg", "duplicates": "raise"}
    return type(data)(table, source=data.source, **extra)


def _check_judgments(qrels: Any) -> None:
    """Raise at the first judgment that is not a natural number (ndeval's syntax error)."""
    labels = qrels.table["relevance"].to_numpy()
    bad = (labels < 0) | (labels != np.floor(labels))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"judgment {qrels.describe_label(row)} is not a natural number (ndeval reads 0, 1, 2, ...)",
                         source=qrels.source, row=row + 1, field="relevance")
