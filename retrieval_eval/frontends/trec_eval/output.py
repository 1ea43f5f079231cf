"""trec_eval's three-column output (``measure<TAB>query<TAB>value``), byte for byte, for scripts that parse it.

What is printed and how, as trec_eval 10 prints it (trec_eval.c, meas_acc.c, meas_avg.c,
meas_print_single.c, meas_print_final.c):

- With ``-q``, per query (queries in byte order of their ids, as trec_eval sorts its qrels), each
  value of each measure in trec_eval's table order (see
  :mod:`~retrieval_eval.metrics.spellings.trec_eval`); geometric means, ``num_q`` and ``runid``
  have no per-query line; ``relstring`` prints its text in quotes.
- Then the ``all`` lines (none with ``-n``): ``runid`` (the tag of the run's last line, as
  trec_eval keeps it), ``num_q``, and each value's summary: the per-query doubles added in
  query order, then divided by the number of queries (means), or kept (the counts num_ret,
  num_rel, num_rel_ret, num_nonrel_judged_ret and the preference counts), or exp(sum of
  log(max(v, 0.00001)) / n) (gm_map, gm_bpref). Under ``-c``, ``num_rel``'s summary is counted
  again over every judged query as trec_eval does: judgments with a label > 0, whatever ``-l``.
- Values print ``%6.4f``, counts as whole numbers (C's ``(long)`` cast); names are padded to 22
  characters. With z-scores (``-Z``) every per-query value is first converted (so summaries
  are means of z-scores), names get a ``Z`` prefix and counts print ``%6.4f`` too.
- Registry metrics trec_eval does not have (``judged@10``) follow trec_eval's values, in the
  order asked, under their canonical names, summarized the same way (their mean, or sum).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ...errors import InputError
from ...metrics.names import Metric
from ...metrics.registry import REGISTRY
from ...metrics.spellings.trec_eval import GEOMETRIC, MEAN, SUM, TrecEvalMeasure, TrecEvalSelection, TrecEvalValue

#: trec_eval's floor under a value before its log is taken for a geometric mean (MIN_GEO_MEAN).
MIN_GEO_MEAN = 0.00001


class ZScoreTable(Protocol):
    def convert(self, query_id: str, name: str, value: float) -> float: ...


@dataclass(frozen=True)
class _Column:
    """One printed value over the queries (in printing order), as trec_eval holds it per query."""

    name: str
    values: np.ndarray | None  # float64 per query; None for relstring, whose texts are in ``texts``
    summary: str
    whole: bool
    per_query: bool
    texts: Sequence[str] = ()


def trec_eval_lines(
    selection: TrecEvalSelection,
    columns: Mapping[Metric, np.ndarray],
    query_ids: Sequence[str],
    *,
    run_id: str,
    per_query: bool = False,
    summary: bool = True,
    rel_level: int = 1,
    relevant_judged: int | None = None,
    relevance_strings: Mapping[int, Sequence[str]] | None = None,
    zscores: ZScoreTable | None = None,
) -> list[str]:
    """The lines trec_eval prints for ``selection`` (see the module docstring).

    ``columns``: each metric's per-query values, aligned with ``query_ids``; ``relevant_judged``:
    under ``-c``, the judgments with a label > 0 over all judged queries (num_rel's summary);
    ``relevance_strings``: per relstring length, each query's text, aligned with ``query_ids``
    (needed with ``per_query`` only).
    """
    ids = [str(query_id) for query_id in query_ids]
    if per_query:
        _printable("query id", ids)
    order = sorted(range(len(ids)), key=lambda i: ids[i].encode("utf-8"))
    ordered_ids = [ids[i] for i in order]
    index = np.array(order, dtype=np.int64)
    table = [
        _trec_column(value, columns, index, relevance_strings)
        for value in selection.values
        # relstring has only per-query lines; runid and num_q only summary lines, printed below.
        if value.measure.name not in ("runid", "num_q") and (per_query or value.metric is not None)
    ]
    table += [_registry_column(metric, rel_level, columns, index) for metric in selection.others]
    if zscores is not None:
        table = [_in_zscores(column, ordered_ids, zscores) for column in table]
    z = "Z" if zscores is not None else ""

    lines: list[str] = []
    if per_query:
        printed = [column for column in table if column.per_query]
        formatted = [_per_query_texts(column, zscores is not None) for column in printed]
        for row, query_id in enumerate(ordered_ids):
            for column, texts in zip(printed, formatted):
                prefix = z if column.values is not None else ""
                lines.append(f"{prefix}{column.name:<22}\t{query_id}\t{texts[row]}")
    if not summary:
        return lines
    n = len(ordered_ids)
    wanted = {value.measure.name for value in selection.values}
    if "runid" in wanted:
        lines.append(f"{'runid':<22}\tall\t{run_id}")
    if "num_q" in wanted:
        lines.append(f"{z}{'num_q':<22}\tall\t{_text(float(n), True, zscores is not None)}")
    for column in table:
        if column.values is None:
            continue
        total = _summary(column, n)
        if column.name == "num_rel" and relevant_judged is not None:
            total = float(relevant_judged)
        lines.append(f"{z}{column.name:<22}\tall\t{_text(total, column.whole, zscores is not None)}")
    return lines


def _trec_column(
    value: TrecEvalValue,
    columns: Mapping[Metric, np.ndarray],
    index: np.ndarray,
    relevance_strings: Mapping[int, Sequence[str]] | None,
) -> _Column:
    measure: TrecEvalMeasure = value.measure
    if value.metric is None:
        texts = (relevance_strings or {}).get(value.length)
        if texts is None:
            raise ValueError(f"no relevance strings of length {value.length} were computed")
        return _Column(value.name, None, measure.summary, False, True, [f"'{texts[i]}'" for i in index])
    values = _held_values(columns[value.metric], index, measure.summary)
    return _Column(value.name, values, measure.summary, measure.whole, measure.per_query)


def _registry_column(metric: Metric, rel_level: int, columns: Mapping[Metric, np.ndarray], index: np.ndarray) -> _Column:
    definition = REGISTRY.definition(metric)
    summary = {"sum": SUM, "geometric": GEOMETRIC}.get(definition.aggregate, MEAN)
    values = _held_values(columns[metric], index, summary)
    return _Column(trec_name(metric, rel_level), values, summary, definition.integer, summary != GEOMETRIC)


def _held_values(values: np.ndarray, index: np.ndarray, summary: str) -> np.ndarray:
    """A metric's values in printing order, as trec_eval holds them per query.

    For a geometric mean that is log(max(v, MIN_GEO_MEAN)), with the C library's log.
    """
    ordered = np.asarray(values, dtype=np.float64)[index]
    if summary != GEOMETRIC:
        return ordered
    return np.array([math.log(max(v, MIN_GEO_MEAN)) for v in ordered.tolist()], dtype=np.float64)


def _in_zscores(column: _Column, query_ids: Sequence[str], zscores: ZScoreTable) -> _Column:
    if column.values is None:
        return column
    converted = np.array(
        [zscores.convert(query_id, column.name, value) for query_id, value in zip(query_ids, column.values.tolist())],
        dtype=np.float64,
    )
    return _Column(column.name, converted, column.summary, column.whole, column.per_query)


def _summary(column: _Column, n: int) -> float:
    """The ``all`` value: the per-query doubles added in query order (not pairwise), then averaged."""
    total = float(np.cumsum(column.values)[-1]) if n else 0.0
    if column.summary == SUM or n == 0:
        return total
    if column.summary == GEOMETRIC:
        return math.exp(total / n)
    return total / n


def _per_query_texts(column: _Column, in_zscores: bool) -> Sequence[str]:
    if column.values is None:
        return column.texts
    return [_text(value, column.whole, in_zscores) for value in column.values.tolist()]


def _text(value: float, whole: bool, in_zscores: bool) -> str:
    """As trec_eval prints a value: ``%ld`` of the (long) cast for counts (``%6.4f`` with z-scores), else ``%6.4f``.

    C's printf writes a NaN's sign (``-nan``, which x86 gives for 0/0); Python's format drops it.
    """
    if whole and not in_zscores:
        # x86's conversion gives the "integer indefinite" -2^63 for NaN and values out of range.
        return f"{int(value)}" if -(2.0**63) <= value < 2.0**63 else str(-(2**63))
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def trec_name(metric: Metric, rel_level: int = 1) -> str:
    """The name trec_eval run with ``-l rel_level`` prints for ``metric``; else its canonical name."""
    definition = REGISTRY.definition(metric)
    takes_level = "rel" in dict(definition.params)
    params = dict(metric.params)
    if definition.trec_name is None or (takes_level and int(params.get("rel", "1")) != rel_level):
        return str(metric)
    if any(key not in ("rel", "recall") for key in params):
        return str(metric)
    name = definition.trec_name.replace("{k}", str(metric.k))
    if "recall" in params:
        name = name.replace("{recall}", f"{float(params['recall']):.2f}")
    return name


def _printable(what: str, values: list[str]) -> None:
    """Refuse a value that would break the columns: trec_eval's lines are split on whitespace.

    (The run id is the last column, read to the end of the line; a path with spaces stays.)
    """
    for value in values:
        if not value or any(char.isspace() for char in value):
            raise InputError(
                f"{what} {value!r} is empty or holds whitespace, which trec_eval's output format cannot print; "
                "use the per-query table (-o) instead"
            )
