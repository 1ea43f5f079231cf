"""Short views of every result: a few lines of text for ``__repr__``, an HTML fragment for Jupyter's ``_repr_html_``.

A view is a glance, not the data: a title with the result's key facts (run, query counts,
verdict) and the first rows of its tables, each table saying how many rows it left out
(``… 15 more rows``) and which attribute holds them all. Conventions, the same in text and HTML:

- numbers: integers as they are, other numbers to 4 decimals; NaN is ``NaN``; a value that
  does not apply (None: no threshold on that metric) is an empty cell;
- at most :data:`ROWS` rows of a table in HTML, :data:`TEXT_ROWS` in text, whatever the size
  of the result: a view of ten million queries is as long as a view of ten;
- text from the user (run names, query ids, metric names, configuration names) is escaped
  in HTML, and in text shown on one line (control characters as escapes, long names cut),
  so that a hostile name neither runs in a notebook nor breaks the repr's shape.

This module is the bottom leaf of formatting: every renderer (those of :mod:`retrieval_eval.report`,
the terminal's writers of ``evaluate``, ``sweep``, ``explain``, ``metrics``, ``pool``, ``qrels merge``
and the command's error lines) builds on its primitives. Numbers: :func:`cell_text`, :func:`decimal`
(fixed decimals, signed or not, a missing value as ``NaN`` or empty), :func:`p_value_text`,
:func:`value_text` (a setting's value), :func:`count_text`, with :func:`is_number` and
:func:`is_missing`; HTML: :func:`html_text` (the escaping), :func:`table_html` and the one style sheet
of the fragments; the terminal, in the last section: the width (:func:`terminal_width`), the escaping
(:func:`terminal_text`), the aligned table that fits that width (:class:`Column`, :func:`fit_columns`,
:func:`aligned`, and :func:`values_table` for rows of values), paragraphs wrapped at word boundaries
(:func:`wrap`).

The views read only public attributes, and everything here renders plain values (the
:class:`Table` of a few rows): showing a result imports no pandas that the result did not
already need, and this module imports nothing of the package, so any result type may use it.
"""

from __future__ import annotations

import html
import shutil
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from numbers import Integral, Real
from typing import Any

import numpy as np

#: Rows of a table shown in an HTML view.
ROWS = 10
#: Rows of a table shown in a text view.
TEXT_ROWS = 5
#: The longest text (a name, an id) shown whole in a text view.
TEXT_WIDTH = 40

_CLASS = "retrieval-eval"
# Scoped by the fragment's class, so that it styles nothing else of the notebook; no colours
# but a translucent grey, so that it reads in light and dark themes alike.
_STYLE = f"""
.{_CLASS} {{ font-size: 0.9em; }}
.{_CLASS} .rx-facts {{ margin: 0.3em 0; }}
.{_CLASS} .rx-scroll {{ overflow-x: auto; }}
.{_CLASS} table {{ border-collapse: collapse; margin: 0.3em 0 0.8em 0; }}
.{_CLASS} caption {{ text-align: left; font-weight: bold; padding: 0.2em 0; white-space: nowrap; }}
.{_CLASS} th, .{_CLASS} td {{
  padding: 0.15em 0.6em; text-align: left; border-bottom: 1px solid rgba(128, 128, 128, 0.35);
}}
.{_CLASS} td.rx-num {{ text-align: right; font-variant-numeric: tabular-nums; }}
.{_CLASS} tfoot td, .{_CLASS} .rx-note {{ font-style: italic; opacity: 0.75; }}
"""


@dataclass(frozen=True)
class Table:
    """The first rows of a table: ``rows`` (at most the view's limit) of ``total``.

    ``caption`` names the table (and where the whole of it is); ``columns`` are the header.
    """

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    total: int

    @classmethod
    def head(cls, caption: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], total: int, limit: int) -> Table:
        """The first ``limit`` of ``rows`` (an iterable read no further than that)."""
        return cls(caption, tuple(columns), tuple(tuple(row) for row in islice(rows, limit)), total)

    @property
    def hidden(self) -> int:
        return self.total - len(self.rows)


Facts = Sequence[tuple[str, Any]]


# -- cells ------------------------------------------------------------------------------------


def cell_text(value: Any) -> str:
    """A value as a cell shows it: integers whole, other numbers to 4 decimals, NaN ``NaN``, None empty."""
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        return decimal(value)
    return str(value)


def decimal(value: Any, digits: int = 4, *, signed: bool = False, missing: str = "NaN") -> str:
    """A number to ``digits`` decimals, ``+`` before a positive one when ``signed`` (a difference); ``missing``
    for one that is not there (:func:`is_missing`: None, NaN, pandas' NA): ``NaN`` where a metric is
    undefined, empty where a table leaves the cell blank."""
    if is_missing(value):
        return missing
    return f"{float(value):{'+' if signed else ''}.{digits}f}"


#: Below this a p-value is shown as ``<0.0001``: four decimals would read as zero.
P_FLOOR = 0.0001


def p_value_text(value: Any, *, missing: str = "") -> str:
    """A p-value to 4 decimals, ``<0.0001`` below :data:`P_FLOOR`, ``missing`` where there is none (no test)."""
    if is_missing(value):
        return missing
    return "<0.0001" if value < P_FLOOR else f"{float(value):.4f}"


def value_text(value: Any, *, booleans: tuple[str, str] = ("True", "False")) -> str:
    """A parameter's, cost's or setting's value as a cell: integers whole, other numbers to 6 significant digits
    (``5``, ``0.3``, ``105.8``), a boolean as ``booleans`` (its text when true, when false), text as it is,
    empty where there is none (:func:`is_missing`)."""
    if is_missing(value):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return booleans[0] if value else booleans[1]
    if isinstance(value, Integral):
        return str(int(value))
    return f"{float(value):.6g}" if isinstance(value, Real) else str(value)


def is_number(value: Any) -> bool:
    """A real number that is not a boolean (numpy's integers and floats included)."""
    return isinstance(value, Real) and not isinstance(value, (bool, np.bool_))


def is_missing(value: Any) -> bool:
    """No value: None, or a value unequal to itself (NaN, NaT), or pandas' NA (whose comparison has no truth value)."""
    if value is None:
        return True
    if isinstance(value, str):
        return False
    try:
        return bool(value != value)
    except TypeError:  # pandas' NA: NA != NA is NA, which refuses bool()
        return True


def one_line(text: str, width: int = TEXT_WIDTH) -> str:
    """``text`` on one line (control characters as their escapes, :func:`terminal_text`), cut to ``width`` characters with ``…``."""
    text = terminal_text(text)
    return text if len(text) <= width else text[: width - 1] + "…"


# -- text -------------------------------------------------------------------------------------


def text_view(title: str, facts: Facts, table: Table | None = None) -> str:
    """``Title(name=value, ...)`` and, indented below, the first :data:`TEXT_ROWS` rows of ``table``."""
    lines = [f"{title}({', '.join(f'{name}={_fact_text(value)}' for name, value in facts)})"]
    if table is not None:
        lines += ["  " + line for line in _text_table(table)]
    return "\n".join(lines)


def _fact_text(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_fact_text(key)}: {_fact_text(item)}" for key, item in value.items()) + "}"
    if is_number(value):
        return cell_text(value)
    return one_line(repr(value), 2 * TEXT_WIDTH)


def _text_table(table: Table) -> list[str]:
    rows = table.rows[:TEXT_ROWS]
    columns = [Column(str(name), [one_line(cell_text(row[index])) for row in rows]) for index, name in enumerate(table.columns)]
    lines = aligned(columns)
    hidden = table.total - len(rows)
    if not table.total:
        lines.append("(no rows)")
    elif hidden:
        lines.append(f"… {hidden} more {_rows_word(hidden)}")
    return lines


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` (:func:`count_text`) and ``noun``, in the ``plural`` (default: the noun and ``s``) unless the
    count is one: ``"1 metric"``, ``"2 metrics"``, ``counted(2, "query", "queries")``, ``"1,000,000 queries"``."""
    return f"{count_text(count)} {noun if count == 1 else plural or noun + 's'}"


def count_text(count: int) -> str:
    """A count as people read it, with thousands separators: ``1,000,000``. Never for machine formats
    (TREC, CSV, JSON) nor for ids or parameters that happen to be integers."""
    return f"{int(count):,}"


def _rows_word(count: int) -> str:
    return "row" if count == 1 else "rows"


# -- HTML -------------------------------------------------------------------------------------


def html_view(title: str, facts: Facts, tables: Sequence[Table], notes: Sequence[str] = ()) -> str:
    """A self-contained fragment: the title and facts, each table, then ``notes`` (at most :data:`ROWS`).

    Everything is escaped; the style is inline and scoped by the fragment's class.
    """
    shown = [f"<b>{html_text(title)}</b>"] + [f"{html_text(name)}: {_fact_html(value)}" for name, value in facts]
    parts = [f'<div class="{_CLASS}">', f"<style>{_STYLE}</style>", f'<p class="rx-facts">{" · ".join(shown)}</p>']
    parts += [table_html(table) for table in tables]
    parts += [f'<p class="rx-note">{html_text(note)}</p>' for note in notes[:ROWS]]
    if len(notes) > ROWS:
        parts.append(f'<p class="rx-note">… {len(notes) - ROWS} more notes</p>')
    parts.append("</div>")
    return "\n".join(parts)


def table_html(table: Table) -> str:
    """``table`` as an escaped ``<table>`` with its caption; a footer row says how many rows are not shown."""
    head = "".join(f"<th>{html_text(column)}</th>" for column in table.columns)
    body = "".join("<tr>" + "".join(_cell_html(cell) for cell in row) + "</tr>" for row in table.rows)
    span = max(len(table.columns), 1)
    if not table.total:
        foot = f'<tfoot><tr><td colspan="{span}">no rows</td></tr></tfoot>'
    elif table.hidden:
        foot = f'<tfoot><tr><td colspan="{span}">… {table.hidden} more {_rows_word(table.hidden)}</td></tr></tfoot>'
    else:
        foot = ""
    return (
        f'<div class="rx-scroll"><table><caption>{html_text(table.caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody>{foot}</table></div>"
    )


def _cell_html(value: Any) -> str:
    if is_number(value):
        return f'<td class="rx-num">{html_text(cell_text(value))}</td>'
    return f"<td>{html_text(cell_text(value))}</td>"


def _fact_html(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{html_text(cell_text(key))} {_fact_html(item)}" for key, item in value.items()) or "none"
    if isinstance(value, str):
        return f"<code>{html_text(value)}</code>"
    return f"<b>{html_text('None' if value is None else cell_text(value))}</b>"


def html_text(text: str) -> str:
    """``text`` as HTML text or an attribute's value: ``&``, ``<``, ``>`` and both quotes as their character references."""
    return html.escape(text, quote=True)


# -- evaluations ------------------------------------------------------------------------------


def summary_table(summary: Any, limit: int = ROWS) -> Table:
    """The summary of an evaluation: ``metric``, ``mean``, ``undefined``; with thresholds also
    ``threshold`` (``>= v`` or ``<= v``), ``passed`` and ``pass_rate`` (empty for a metric without one).

    Reads ``summary.summary_records()`` (see :class:`~retrieval_eval.metrics.result.EvaluationSummary`).
    """
    records = summary.summary_records()
    thresholds = bool(records) and "threshold" in records[0]
    columns = ["metric", "mean", "undefined"] + (["threshold", "passed", "pass_rate"] if thresholds else [])

    def row(record: Mapping[str, Any]) -> list[Any]:
        cells = [record["metric"], record["mean"], record["undefined"]]
        if thresholds:
            higher = record["higher_is_better"]
            if higher is None:  # this metric has no threshold: nothing applies
                cells += [None, None, None]
            else:
                bound = f"{'>=' if higher else '<='} {cell_text(record['threshold'])}"
                cells += [bound, record["passed"], record["pass_rate"]]
        return cells

    caption = f"summary: {len(records)} {'metric' if len(records) == 1 else 'metrics'} (all in .summary)"
    return Table.head(caption, columns, map(row, records), len(records), limit)


def _summary_facts(summary: Any, extra: Facts) -> list[tuple[str, Any]]:
    return [("run", summary.run), *summary.query_counts.items(), ("passed", summary.passed), *extra]


def summary_repr(summary: Any, *, extra: Facts = ()) -> str:
    """A few lines: the run, the query counts, the verdict (and ``extra`` facts), then the first metrics' means."""
    return text_view(type(summary).__name__, _summary_facts(summary, extra), summary_table(summary, TEXT_ROWS))


def summary_html(summary: Any, *, extra: Facts = ()) -> str:
    """The run, the query counts and the verdict, and the summary table (first :data:`ROWS` metrics)."""
    return html_view(type(summary).__name__, _summary_facts(summary, extra), [summary_table(summary)])


def per_query_table(result: Any, limit: int = ROWS) -> Table:
    """The first ``limit`` rows of an evaluation's per-query table, read from ``result.per_query_arrow(limit)``."""
    total = len(result.query_ids)
    head = result.per_query_arrow(limit)
    columns = head.column_names
    rows = (tuple(record[column] for column in columns) for record in head.to_pylist())
    caption = f"per query: first {min(limit, total)} of {total} (all in .per_query)"
    return Table.head(caption, columns, rows, total, limit)


def result_repr(result: Any) -> str:
    """A few lines: the run, the query counts, the verdict, then the first metrics' means (never the per-query rows)."""
    return summary_repr(result)


def result_html(result: Any) -> str:
    """The run, the query counts and the verdict, the summary table and the first :data:`ROWS` per-query rows."""
    facts = _summary_facts(result, ())
    return html_view(type(result).__name__, facts, [summary_table(result), per_query_table(result)])


def trec_eval_table(output: Any, limit: int = ROWS) -> Table:
    """trec_eval's lines as ``measure``, ``query``, ``value`` (its own text): the summary lines (query
    ``all``) when it printed them, else the first lines."""
    lines = output.lines
    fields = [_trec_fields(line) for line in lines]
    summary = [row for row in fields if row[1] == "all"]
    rows, what = (summary, "summary lines") if summary else (fields, "lines")
    caption = f"trec_eval {what}: {len(rows)} of {len(lines)} lines (all in .lines)"
    return Table.head(caption, ("measure", "query", "value"), rows, len(rows), limit)


def _trec_fields(line: str) -> tuple[str, str, str]:
    measure, query, value = (line.split("\t", 2) + ["", ""])[:3]
    return measure.strip(), query, value


def _trec_eval_facts(output: Any) -> list[tuple[str, Any]]:
    result = output.result
    return [("run", result.run), ("queries", result.query_counts["evaluated"]), ("lines", len(output.lines))]


def trec_eval_repr(output: Any) -> str:
    """The run, the queries and the number of lines, then trec_eval's first summary lines."""
    return text_view(type(output).__name__, _trec_eval_facts(output), trec_eval_table(output, TEXT_ROWS))


def trec_eval_html(output: Any) -> str:
    """The run, the queries and the number of lines, and trec_eval's summary lines as a table."""
    return html_view(type(output).__name__, _trec_eval_facts(output), [trec_eval_table(output)])


# -- sweeps -----------------------------------------------------------------------------------

# The leaderboard's columns a glance needs, after the configuration, rank and metric means.
_BOARD_COLUMNS = ("ci_low", "ci_high", "p_column", "wins", "ties", "losses", "tied_with_best")  # p_column: the board's deciding p
_BOARD_TEXT_COLUMNS = ("ci_low", "ci_high", "tied_with_best")


def leaderboard_table(board: Any, limit: int = ROWS, *, text: bool = False, table: Any = None) -> Table:
    """The top ``limit`` configurations of a :class:`~retrieval_eval.sweep.Leaderboard`.

    ``table`` (default: the leaderboard's own) may carry more columns (a sweep's parameters),
    shown after the leaderboard's. In ``text`` only the objective's mean and interval.
    """
    frame = board.table if table is None else table
    metrics = [board.objective] if text else list(board.metrics)
    shown = ("rank", *metrics, *(board.p_column if column == "p_column" else column
                                 for column in (_BOARD_TEXT_COLUMNS if text else _BOARD_COLUMNS)))
    own = [column for column in shown if column in frame.columns]
    others = [] if text or table is None else [column for column in frame.columns if column not in board.table.columns]
    columns = own + others
    head = frame.head(limit)[columns]
    caption = f"leaderboard by {board.objective}: top {min(limit, len(frame))} of {len(frame)} (all in .table)"
    return Table.head(caption, ["configuration", *columns], head.itertuples(name=None), len(frame), limit)


def _board_facts(board: Any) -> list[tuple[str, Any]]:
    return [
        ("objective", board.objective),
        ("configurations", len(board.table)),
        ("queries", board.per_query.shape[1]),
        ("best", board.table.index[0]),
    ]


def leaderboard_repr(board: Any) -> str:
    """The objective, the numbers of configurations and queries, the best, then the top configurations."""
    return _board_text(type(board).__name__, board)


def marks_legend(alpha: float, p_words: str = "Holm-adjusted randomization") -> list[str]:
    """What the marks of a leaderboard and ``tied_with_best`` mean: two lines, of at most 100 characters with the
    default test (``p_words``: the deciding p-value, ``Leaderboard.p_words``)."""
    return [
        f"* best  † significantly worse than the best ({p_words} p <= {alpha:g})  unmarked: tied",
        "ties follow the paired per-query variance, not the rank: a lower row may be tied, a higher one worse",
    ]


def pairwise_table(board: Any, limit: int = ROWS, *, where: str = "") -> Table | None:
    """The first ``limit`` pairs of a leaderboard's all-pairs comparison (None when not asked for).

    ``where``: the attribute that holds the leaderboard (``.leaderboard`` of a sweep), for the caption.
    """
    pairs = board.pairwise
    if pairs is None:
        return None
    columns = ["a", "b", "difference", *board.p_columns, "significant"]
    caption = f"all pairs, {board.correction_words}: first {min(limit, len(pairs))} of {len(pairs)} (all in {where}.pairwise)"
    return Table.head(caption, columns, pairs[columns].itertuples(index=False, name=None), len(pairs), limit)


def _board_notes(board: Any, where: str = "") -> list[str]:
    """The leaderboard's notes, the best against the runner-up in one line, and what the marks mean."""
    notes = list(board.notes)
    duel = board.head_to_head
    if duel is not None:
        counts = duel["outcome"].value_counts()
        wins, ties, losses = (int(counts.get(outcome, 0)) for outcome in ("win", "tie", "loss"))
        notes.append(f"the best against the runner-up, per query: {counted(wins, 'win')}, {counted(ties, 'tie')}, "
                     f"{counted(losses, 'loss', 'losses')} (each query in {where}.head_to_head)")  # fmt: skip
    if len(board.table) > 1:
        notes += marks_legend(board.alpha, board.p_words)
    return notes


def leaderboard_html(board: Any) -> str:
    """The objective, the numbers of configurations and queries, the top configurations (and pairs), the notes."""
    tables = [leaderboard_table(board), pairwise_table(board)]
    return html_view(type(board).__name__, _board_facts(board), [t for t in tables if t is not None], _board_notes(board))


def sweep_repr(result: Any) -> str:
    """A sweep's leaderboard at a glance, as :func:`leaderboard_repr`, under the sweep's name."""
    return _board_text(type(result).__name__, result.leaderboard)


def sweep_html(result: Any) -> str:
    """A sweep's top configurations with their parameters (and Pareto front), its first pairs, and the leaderboard's notes."""
    board = result.leaderboard
    tables = [leaderboard_table(board, table=result.table), pairwise_table(board, where=".leaderboard")]
    notes = _board_notes(board, ".leaderboard")
    return html_view(type(result).__name__, _board_facts(board), [t for t in tables if t is not None], notes)


def _board_text(title: str, board: Any) -> str:
    return text_view(title, _board_facts(board), leaderboard_table(board, TEXT_ROWS, text=True))


# -- checks -----------------------------------------------------------------------------------


def evaluators_table(summary: Any, limit: int = ROWS, *, where: str = "") -> Table:
    """Per evaluator (a check summary's ``evaluators``): the count of each result and the pass rate.

    ``where``: the attribute that holds the summary (``.summary`` of a check), for the caption.
    """
    frame = summary.evaluators
    caption = f"evaluators: {len(frame)} (all in {where}.evaluators)"
    rows = frame.head(limit).itertuples(name=None)
    return Table.head(caption, ["evaluator", *frame.columns], rows, len(frame), limit)


def codes_table(summary: Any, limit: int = ROWS, *, where: str = "") -> Table:
    """Per (evaluator, diagnostic code), the count (a check summary's ``codes``).

    ``where``: as in :func:`evaluators_table`.
    """
    frame = summary.codes
    caption = f"diagnostic codes: {len(frame)} (all in {where}.codes)"
    rows = frame.head(limit).itertuples(index=False, name=None)
    return Table.head(caption, list(frame.columns), rows, len(frame), limit)


def _check_facts(summary: Any) -> list[tuple[str, Any]]:
    statuses = dict(summary.statuses)
    return [("verdict", summary.verdict), ("items", statuses), ("ran", summary.ran), ("unchecked", summary.unchecked)]


def check_summary_repr(summary: Any, *, title: str | None = None) -> str:
    """The verdict, the item statuses, how many evaluations ran, then each evaluator's counts.

    ``title``: the name shown (default: the summary's type; a check shows its own).
    """
    name = type(summary).__name__ if title is None else title
    return text_view(name, _check_facts(summary), evaluators_table(summary, TEXT_ROWS))


def check_summary_html(summary: Any) -> str:
    """The verdict and counts, each evaluator's counts and the diagnostic codes."""
    tables = [evaluators_table(summary), codes_table(summary)]
    return html_view(type(summary).__name__, _check_facts(summary), tables)


def statuses_table(what: str, pairs: Iterable[tuple[Any, str]], total: int, where: str, limit: int = ROWS) -> Table:
    """The first ``limit`` of ``pairs`` (a unit of a check, ``what`` names it, and its status) of ``total``;
    ``where`` is the attribute that holds them all."""
    caption = f"statuses: first {min(limit, total)} of {total} (all in {where})"
    return Table.head(caption, (what, "status"), pairs, total, limit)


def checks_repr(check: Any) -> str:
    """A document's or a log's check (:class:`~retrieval_eval.executions.DocumentCheck`, ``LogCheck``):
    the verdict and counts, then each evaluator's counts."""
    return check_summary_repr(check.summary, title=type(check).__name__)


def checks_html(check: Any, statuses: Table) -> str:
    """The verdict and counts, each evaluator's counts, the diagnostic codes and the first units' ``statuses``."""
    summary = check.summary
    tables = [evaluators_table(summary, where=".summary"), codes_table(summary, where=".summary"), statuses]
    return html_view(type(check).__name__, _check_facts(summary), tables)


# -- explanations -----------------------------------------------------------------------------


def explanation_table(explanation: Any, limit: int = ROWS) -> Table:
    """Per metric of an :class:`~retrieval_eval.explain.Explanation`: each run's mean (``Explanation.mean``)
    and with run B the delta of the means over the queries both runs define (``Explanation.delta``)."""
    paired = explanation.paired
    metrics = list(explanation.metrics)

    def row(metric: str) -> list[Any]:
        cells = [metric, explanation.mean("a", metric)]
        return cells + [explanation.mean("b", metric), explanation.delta(metric)] if paired else cells

    columns = ["metric", "mean a"] + (["mean b", "delta (b - a)"] if paired else [])
    caption = f"means: {counted(len(metrics), 'metric')} (each query in .queries)"
    return Table.head(caption, columns, map(row, metrics), len(metrics), limit)


def _explanation_facts(explanation: Any) -> list[tuple[str, Any]]:
    a, b = explanation.run_names
    runs = [("a", a)] + ([("b", b)] if explanation.paired else [])
    return [*runs, ("metric", explanation.metrics[0]), ("queries", len(explanation.queries)), ("top", explanation.top)]


def explanation_repr(explanation: Any) -> str:
    """The runs, the first metric (the one the outcome follows), the numbers of queries and documents shown,
    then each metric's means (and delta)."""
    return text_view(type(explanation).__name__, _explanation_facts(explanation), explanation_table(explanation, TEXT_ROWS))


def explanation_html(explanation: Any) -> str:
    """As :func:`explanation_repr`, with the note that names the queries a run lacks (when a delta is over fewer)."""
    note = explanation.comparison_note()
    return html_view(type(explanation).__name__, _explanation_facts(explanation), [explanation_table(explanation)],
                     [] if note is None else [note])  # fmt: skip


# -- terminal ---------------------------------------------------------------------------------

#: The width of terminal text when standard output is not a terminal (a pipe, a file) and
#: ``$COLUMNS`` is not set: the same shape in a log as in a wide terminal, whatever reads it.
PIPE_WIDTH = 100
#: Terminal text is fitted to no fewer columns than this (a narrower width is taken as this one).
NARROWEST = 40
#: A column of text (an id, a name) is elided to no fewer characters than this before columns are dropped.
CELL_AT_LEAST = 10
#: Between two columns of a terminal table.
GAP = "  "


def terminal_width() -> int:
    """The columns terminal text is fitted to: ``$COLUMNS`` when it is a positive integer, else the
    terminal's width when standard output is one, else :data:`PIPE_WIDTH`; never less than :data:`NARROWEST`."""
    return max(NARROWEST, shutil.get_terminal_size((PIPE_WIDTH, 24)).columns)


def terminal_text(text: str) -> str:
    """``text`` safe to print on a terminal: every character that Python does not call printable is shown as
    its escape (``\\x1b``, ``\\r``, ``\\u202e``), the rest as it is.

    Not printable (:meth:`str.isprintable`): the C0 and C1 control characters with ESC, CR, BEL
    and DEL (which erase a line or set the terminal's title), the format characters with the
    bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069, which reorder what
    follows), zero-width characters, line and paragraph separators, unassigned code points. So an
    id shows what it holds, on one line. The escapes are for the eye: a backslash is not doubled.
    """
    if text.isprintable():
        return text
    return "".join(character if character.isprintable() else repr(character)[1:-1] for character in text)


def elide(text: str, width: int) -> str:
    """``text`` escaped (:func:`terminal_text`), at most ``width`` characters: cut in the middle with ``…``."""
    text = terminal_text(text)
    if len(text) <= width:
        return text
    if width < 1:
        return ""
    head = width // 2  # the longer half first: names tend to differ at their ends, ids at their starts
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def fit_line(text: str, width: int) -> str:
    """``text`` escaped, cut at its end with ``…`` to at most ``width`` characters."""
    text = terminal_text(text)
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def wrap(text: str, width: int, *, indent: str = "  ") -> list[str]:
    """``text`` escaped and wrapped at word boundaries into lines of at most ``width`` characters, the later
    lines indented by ``indent``; a word longer than a line is cut across lines."""
    return textwrap.wrap(terminal_text(text), width=width, subsequent_indent=indent, break_on_hyphens=False) or [""]


@dataclass
class Column:
    """A column of a terminal table: its header and cells as text (escaped here), numbers to the right.

    A left-aligned column (text: ids, names) may be elided to fit; a right-aligned one (numbers) never is.
    ``name`` is what a line of the columns left out calls it (default: the header).
    """

    header: str
    cells: list[str]
    right: bool = False
    name: str = ""

    def __post_init__(self) -> None:
        self.header = terminal_text(self.header)
        self.cells = [terminal_text(cell) for cell in self.cells]

    @property
    def width(self) -> int:
        return max([len(self.header), *map(len, self.cells)])

    def elided(self, width: int) -> Column:
        """The column with its header and cells at most ``width`` characters (cut in the middle)."""
        return Column(elide(self.header, width), [elide(cell, width) for cell in self.cells], self.right, self.name)


def aligned(columns: Sequence[Column], *, indent: str = "") -> list[str]:
    """The header line and one line per row of ``columns``, two spaces apart, trailing blanks removed."""
    widths = [column.width for column in columns]

    def line(cells: Sequence[str]) -> str:
        shown = (cell.rjust(width) if column.right else cell.ljust(width) for cell, width, column in zip(cells, widths, columns))
        return (indent + GAP.join(shown)).rstrip()

    rows = len(columns[0].cells) if columns else 0
    return [line([column.header for column in columns])] + [line([column.cells[row] for column in columns]) for row in range(rows)]


def table_width(columns: Sequence[Column]) -> int:
    """The characters of the widest line :func:`aligned` writes for ``columns``."""
    return sum(column.width for column in columns) + len(GAP) * max(len(columns) - 1, 0)


def fit_columns(columns: Sequence[Column], width: int, drop: Sequence[int] | None = None) -> tuple[list[Column], list[str]]:
    """The columns whose table fits ``width`` characters, and the names of those dropped.

    The first column identifies a row (a metric, a query, a rank): it is kept whole while anything
    else can give way. First the other text columns are elided, the widest first, down to
    :data:`CELL_AT_LEAST` characters; when that is not enough, columns are dropped in the order of
    ``drop`` (indices; default: the last column first) until the rest fits. Only then, as a last
    resort, is the first column elided too.
    """
    order = [index for index in (range(len(columns) - 1, 0, -1) if drop is None else drop) if index != 0]
    kept = list(range(len(columns)))
    dropped: list[str] = []
    for index in [None, *order]:
        if index is not None:
            kept.remove(index)
            dropped.append(columns[index].name or columns[index].header)
        fitted = _squeezed([columns[i] for i in kept], width, CELL_AT_LEAST, first=False)
        if fitted is not None:
            return fitted, dropped
    return _squeezed([columns[i] for i in kept], width, 0, first=True) or [columns[0].elided(width)], dropped


def fitted_table(columns: Sequence[Column], width: int, drop: Sequence[int] | None = None, *, indent: str = "",
                 where: str = "a wider terminal shows them") -> list[str]:
    """The lines of ``columns`` fitted to ``width`` (:func:`fit_columns`, the ``indent`` included), then a
    line naming the columns left out and ``where`` they are."""
    fitted, dropped = fit_columns(columns, width - len(indent), drop)
    note = wrap(f"{indent}not shown: {', '.join(dropped)} ({where})", width, indent=indent + "  ") if dropped else []
    return aligned(fitted, indent=indent) + note


def values_table(header: Sequence[str], rows: Iterable[Sequence[Any]], *, indent: str = "  ", width: int | None = None) -> list[str]:
    """``rows`` of values under ``header`` in aligned columns, each cell as :func:`cell_text` writes it, a column
    of numbers only to the right, fitted to ``width`` (default: :func:`terminal_width`) as :func:`fitted_table` fits them."""
    rows = [list(row) for row in rows]
    columns = [Column(str(name), [cell_text(row[i]) for row in rows], right=all(is_number(row[i]) for row in rows))
               for i, name in enumerate(header)]  # fmt: skip
    return fitted_table(columns, terminal_width() if width is None else width, indent=indent)


def _squeezed(columns: list[Column], width: int, floor: int, *, first: bool) -> list[Column] | None:
    """``columns`` with the text ones (the first too when ``first``) elided to the widest common cap, no less
    than ``floor``, that fits ``width``; None when even the floor does not fit."""
    if table_width(columns) <= width:
        return columns
    text = [i for i, column in enumerate(columns) if not column.right and column.width > floor and (first or i > 0)]
    fixed = table_width(columns) - sum(columns[i].width for i in text)
    room = width - fixed
    # The widest cap c with sum(min(width_i, c)) <= room over the text columns.
    for cap in range(max((columns[i].width for i in text), default=0), floor - 1, -1):
        if sum(min(columns[i].width, cap) for i in text) <= room:
            return [column.elided(cap) if i in text else column for i, column in enumerate(columns)]
    return None
