"""What ``retrieval-eval evaluate`` prints: the summary as an aligned table that fits the terminal (the
run, the conventions the measures followed, the query counts, the verdict), as JSON or CSV, or the
per-query values as pytrec_eval's JSON or long CSV rows.

Loads no pandas: the command prints a summary without it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..metrics.registry import REGISTRY
from ..views import Column, cell_text, count_text, fitted_table, is_missing, summary_table, terminal_width, wrap

if TYPE_CHECKING:
    from ..metrics import EvaluationResult, EvaluationSummary, Evaluator


#: How the summary's conventions line names each tie policy of TIE_POLICIES.
_TIES_SHOWN = {"docid": "descending doc id", "input": "input order", "ranx": "as ranx sorts a Run",
               "average": "averaged over every order"}


def conventions_line(evaluator: Evaluator) -> str:
    """The reference of the measures and the rules the evaluation followed, in one line."""
    options = evaluator.options
    families = {REGISTRY.family(metric).name for metric in evaluator.metrics}
    queries = {"qrels": "every judged query (one without results scores 0)", "both": "judged queries with results",
               "union": "judged and retrieved queries"}[options.query_set]
    described = []
    if "trec" in families:
        ties = _TIES_SHOWN[options.ties or "docid"]
        described.append(f"trec_eval 10 (relevant: label >= {options.rel_level}; ties: {ties})")
    if "document_retrieval" in families:
        ties = _TIES_SHOWN[options.ties or "input"]
        described.append(f"azure-ai-evaluation document retrieval (labels {options.label_min}..{options.label_max}; ties: {ties})")
    others = sorted(families - {"trec", "document_retrieval"})
    return "measures: " + "; ".join([*described, *others]) + f"; queries: {queries}"


#: The --format choices that print per-query values rather than the summary.
PER_QUERY_FORMATS = ("pytrec", "long")


def _per_query_text(result: EvaluationResult, style: str) -> str:
    """The per-query values: pytrec_eval's nested dict as JSON (NaN as null), or the long table as CSV."""
    if style == "pytrec":
        from ..io.writers import json_ready

        return json.dumps(json_ready(result.to_dict()), indent=2, ensure_ascii=False, allow_nan=False)
    from ..io.delimited import delimited_blocks

    # Unquoted, as the summary's CSV is, unless an id holds a comma, a quote or a line break.
    return b"".join(delimited_blocks(result.long_arrow(), ",")).decode().rstrip("\n")


def summary_text(result: EvaluationSummary, style: str, conventions: str) -> str:
    """What ``evaluate`` prints in ``style`` (a ``--format``): the summary as JSON or CSV, the per-query values
    (:data:`PER_QUERY_FORMATS`), or the table: the run, the ``conventions`` line (:func:`conventions_line`), the
    query counts, the summary fitted to the terminal's width and the verdict."""
    if style in PER_QUERY_FORMATS:
        return _per_query_text(result, style)
    if style == "json":
        return json.dumps(result.summary_dict(), indent=2)
    records = result.summary_records()
    if style == "csv":
        header = ",".join(records[0]) if records else "metric,mean,undefined"
        return "\n".join([header, *(",".join(_csv_cell(value) for value in record.values()) for record in records)])
    counts = {name: count_text(count) for name, count in result.query_counts.items()}
    width = terminal_width()
    paragraphs = [
        f"run: {result.run}",
        conventions,
        f"queries: {counts['evaluated']} evaluated ({counts['both']} judged and retrieved, "
        f"{counts['judged_only']} judged only, {counts['retrieved_only']} retrieved only)",
    ]
    lines = [line for text in paragraphs for line in wrap(text, width)] + _aligned_table(result, width)
    if result.passed is not None:
        lines.append(f"verdict: {'PASS' if result.passed else 'FAIL'}")
    return "\n".join(lines)


def _aligned_table(result: EvaluationSummary, width: int) -> list[str]:
    """The summary as :func:`~retrieval_eval.views.summary_table` has it, fitted to ``width``: the metric, its
    mean (4 decimals, NaN where no query defines it), the queries that do not, and with thresholds the bound
    (``>= 0.4000``), whether it passed and the pass rate, ``-`` for a metric without a threshold; a line
    names the columns left out."""
    table = summary_table(result, limit=len(result.summary_records()))
    if not table.rows:
        return []

    def text(column: str, value: Any) -> str:
        if value is None:  # no threshold on this metric: nothing applies
            return "-"
        return count_text(value) if column == "undefined" else cell_text(value)

    columns = [Column(name, [text(name, row[index]) for row in table.rows], right=index > 0)
               for index, name in enumerate(table.columns)]  # fmt: skip
    # Too narrow: the pass rate goes first, then the undefined counts, then the bounds; the verdicts stay.
    return fitted_table(columns, width, [5, 2, 3] if len(columns) > 3 else None, where="--format csv or json has every column")


def _csv_cell(value: Any) -> str:
    """As pandas writes a CSV cell: floats by repr, missing values empty."""
    if is_missing(value):
        return ""
    return repr(value) if isinstance(value, float) else str(value)
