"""One trec_eval run: ``-m`` names resolved, the run scored by an Evaluator, trec_eval's lines printed.

Which queries: trec_eval 10 walks the judged queries; the run's other queries are ignored. A
judged query without results stops trec_eval with status 4 unless ``-c`` (then it is scored
against one unjudged document and counts 0 in every mean); :class:`MissingQueryError` is that
stop, with a message naming the query (trec_eval's own, "result qid '...' not found in qrels",
reads the other way round). trec_eval 9 and pytrec_eval leave such queries out instead: the
Python API's ``query_set="both"`` does that.

Labels: trec_eval reads a qrels label with C's ``atol`` (get_qrels.c), which keeps the digits
before anything else: ``0.5`` is 0, ``1.7`` is 1, ``-0.5`` is 0 and ``1e3`` is 1, silently.
Its lines for such a file are those of other labels than the file's, so this front end refuses
qrels with a label that is not a whole number (one line naming the row and the value) rather
than print them; the measures themselves (``evaluate`` without ``--trec``) take such labels as
given (see the README's float labels).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ... import views
from ...errors import TREC_EVAL_STOP_STATUS, DuplicateError, InputError, MissingQueryError
from ...metrics.evaluator import Evaluator
from ...metrics.names import Metric
from ...metrics.options import EvaluationOptions
from ...metrics.result import EvaluationResult
from ...metrics.spellings.trec_eval import TrecEvalSelection, select
from .output import ZScoreTable, trec_eval_lines

#: What trec_eval computes when ``-m`` is not given.
DEFAULT_MEASURES = ("official",)


@dataclass(frozen=True, eq=False)
class TrecEvalOutput:
    """trec_eval's lines and the evaluation behind them."""

    lines: list[str]
    result: EvaluationResult
    selection: TrecEvalSelection

    def __repr__(self) -> str:
        return views.trec_eval_repr(self)

    def _repr_html_(self) -> str:
        return views.trec_eval_html(self)


def trec_eval(
    qrels: Any,
    run: Any,
    measures: Iterable[str | Metric] | None = None,
    *,
    options: EvaluationOptions | None = None,
    per_query: bool = False,
    summary: bool = True,
    run_id: str | None = None,
    zscores: ZScoreTable | None = None,
    qrels_columns: Mapping[str, str] | None = None,
    run_columns: Mapping[str, str] | None = None,
) -> TrecEvalOutput:
    """Score ``run`` against ``qrels`` and print as ``trec_eval [-q] [-n] [-m measure]...`` does.

    ``options``: trec_eval's other flags (``query_set="qrels"`` is ``-c``, ``rel_level`` ``-l``,
    ``max_docs`` ``-M``, ``judged_only`` ``-J``, ``collection_size`` ``-N``, ``judgments``
    ``-R``); any other query set than ``"qrels"`` is trec_eval's default (judged queries, each
    with results). ``run_id``: the ``runid`` line (default: the run's name).
    """
    from ...data import Run
    from ...data.join import align_queries

    options = EvaluationOptions() if options is None else options
    complete = options.query_set == "qrels"
    options = dataclasses.replace(options, query_set="qrels" if complete else "both")
    selection = select(DEFAULT_MEASURES if measures is None else measures, rel_level=options.rel_level, default_k=options.k)
    # num_ret costs nothing extra and keeps an evaluation of runid or num_q alone well formed.
    metrics = selection.metrics or ["num_ret"]
    rows = None
    try:
        evaluator = Evaluator(qrels, metrics, options=options, qrels_columns=qrels_columns)
        _require_integer_labels(evaluator.qrels)
        run, rows = _judged_part(Run.read(run, columns=run_columns), evaluator.qrels)
        result = evaluator.evaluate(run)
    except DuplicateError as error:
        # A repeat in the run is located among the kept lines: give it back its row of the file.
        raise _stop(error, rows if rows is not None and error.source == run.source else None) from None
    stop = _missing_query(evaluator.qrels.query_ids, run) if result.query_counts["judged_only"] and not complete else None
    strings = None
    relstring = next((value for value in selection.values if value.measure.name == "relstring"), None)
    if relstring is not None and per_query:
        from .relstring import relevance_strings

        alignment = align_queries(evaluator.qrels, run, evaluator.plan.query_set)
        # trec_eval clears a stand-in query's string only under the plain name "relstring" (trec_eval.c).
        given = relstring.name != relstring.measure.name
        strings = {
            relstring.length: relevance_strings(
                evaluator.qrels, run, alignment, evaluator.options, relstring.length, length_given=given
            )
        }
    relevant_judged = int(np.count_nonzero(evaluator.qrels.labels > 0)) if complete else None
    lines = trec_eval_lines(
        selection,
        {metric: result.values(metric) for metric in selection.metrics},
        result.query_ids.to_pylist(),
        run_id=result.run if run_id is None else run_id,
        per_query=per_query,
        summary=summary and stop is None,
        rel_level=options.rel_level,
        relevant_judged=relevant_judged,
        relevance_strings=strings,
        zscores=zscores,
    )
    if stop is not None:
        # trec_eval has printed the per-query lines of the queries before the one it stops at.
        first = stop.query_id.encode("utf-8")
        stop.output = [line for line in lines if line.split("\t")[1].encode("utf-8") < first]
        raise stop
    return TrecEvalOutput(lines, result, selection)


def _require_integer_labels(qrels: Any) -> None:
    """trec_eval's labels are whole numbers (its ``atol`` truncates any other): refuse qrels with another.

    The preference layouts' levels are doubles (get_prefs.c and get_qrels_prefs.c read them with ``atof``).
    """
    if qrels.judgments not in ("qrels", "qrels_jg"):
        return
    row = qrels.first_non_integer_label()
    if row is not None:
        raise InputError(
            f"trec_eval reads relevance labels as integers and would truncate {qrels.describe_label(row)} (C's atol); "
            "its output is printed only for integer labels (without --trec the measures take float labels)",
            source=qrels.source, row=row + 1, field="relevance",
        )


def _judged_part(run: Any, qrels: Any) -> tuple[Any, np.ndarray | None]:
    """The run's lines of judged queries (trec_eval never reads the others: a repeat there is no error),
    and the run's row of each kept line (None when every line is kept)."""
    from ...data import Run

    ids = run.table["query_id"]
    if ids.type != qrels.query_ids.type:
        return run, None  # the evaluation names the mismatch
    judged = pc.is_in(ids, value_set=qrels.query_ids)
    if pc.all(judged).as_py():
        return run, None
    mask = judged.to_numpy(zero_copy_only=False)
    return Run(run.table.filter(judged), source=run.source, name=run.name), np.flatnonzero(mask)


def _stop(error: DuplicateError, rows: np.ndarray | None) -> DuplicateError:
    """trec_eval stops with status 4 at a document twice in one query ("duplicate docs"); the row is the file's."""
    row = error.row
    if rows is not None and row is not None and 0 < row <= len(rows):
        row = int(rows[row - 1]) + 1
    stopped = DuplicateError(error.detail, source=error.source, row=row, field=error.field)
    stopped.exit_status = TREC_EVAL_STOP_STATUS
    return stopped


def _missing_query(judged: pa.Array, run: Any) -> MissingQueryError:
    """trec_eval's status 4: the first judged query (in its byte order) that has no results."""
    missing = pc.invert(pc.is_in(judged, value_set=run.query_ids))
    ids: Sequence[str] = [str(query_id) for query_id in judged.filter(missing).to_pylist()]
    first = min(ids, key=lambda text: text.encode("utf-8"))
    others = f" (and {len(ids) - 1} more)" if len(ids) > 1 else ""
    return MissingQueryError(
        f"judged query {first!r}{others} has no results in the run {run.source}: trec_eval 10 stops here with "
        "status 4; give -c to score it as retrieving nothing, as trec_eval -c does",
        query_id=first,
    )
