"""An explanation as text for a terminal: one query's lists (:func:`query_report`) or a summary
of all queries (:func:`summary_report`), as aligned columns of plain text.

Every line fits the terminal's width (:func:`~retrieval_eval.views.terminal_width`): tables elide
their ids and titles, then leave out the titles and then the scores (never the rank or the first
column); sentences wrap at word boundaries. Every id and text is escaped
(:func:`~retrieval_eval.views.terminal_text`), so that an id cannot move the cursor or set the title.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..explain.tables import Explanation
from ..views import Column, count_text, counted, decimal, fitted_table, is_missing, terminal_width, wrap

_TITLE_WIDTH = 40
#: Relevant documents not retrieved listed per run before "... N more".
MISSED_SHOWN = 10
#: After a label that a judge gave (the qrels name the source of each label), as in "2*".
JUDGED_MARK = "*"


def query_report(explanation: Explanation, query_id: Any, *, width: int | None = None) -> str:
    """One query: its metric values (and deltas), its ranked list(s) side by side and its missed documents
    (the first :data:`MISSED_SHOWN` of each run, then how many more).

    Each row is a rank: doc id, label ("hole" when unjudged), score, and with run B where the
    document went: on A's side "left" (not in B's top N) or "-> r" (at rank r in B), on B's side
    "entered" or "<- r" (it was at rank r in A). Every line at most ``width`` characters (default:
    :func:`~retrieval_eval.views.terminal_width`).
    """
    width = terminal_width() if width is None else width
    view = explanation.query(query_id)
    paired = explanation.paired
    lines = wrap(f"query {view.row['query_id']}" + (f": {view.row['text']}" if view.row["text"] else ""), width)
    header = ["metric", "a"] + (["b", "delta"] if paired else [])
    rows = []
    for name in explanation.metrics:
        cells = [name, decimal(view.row[name])]
        if paired:
            cells += [decimal(view.row[name + "_b"]), decimal(view.row[name + "_delta"], signed=True)]
        rows.append(cells)
    for what in ("holes", "missed"):
        rows.append([f"{what} (top {explanation.top})" if what == "holes" else what, count_text(view.row[what])]
                    + ([count_text(view.row[what + "_b"]), ""] if paired else []))  # fmt: skip
    lines += _aligned(header, rows, width) + [""]
    if paired:
        lines += wrap(f"b against a on {explanation.metrics[0]}: {view.row['outcome'] or 'undefined'}", width)
    lines += _ranked_table(view.ranked, view.changes, explanation.top, paired, width) + [""]
    for key in ("a", "b") if paired else ("a",):
        missed = view.missed[view.missed["run"] == key]
        shown = missed.head(MISSED_SHOWN)
        sources = shown["label_source"] if "label_source" in shown else [None] * len(shown)
        listed = ", ".join(f"{doc} ({_label(label, source)})"
                           for doc, label, source in zip(shown["doc_id"], shown["label"], sources))
        more = len(missed) - len(shown)
        lines += wrap(f"relevant, not retrieved by {key}: {listed or 'none'}" + (f", ... {more:,} more" if more else ""), width)
    return "\n".join(lines)


def summary_report(explanation: Explanation, *, worst: int = 10, width: int | None = None) -> str:
    """The means of each run, with run B its wins, ties and losses, and the ``worst`` queries on the first
    metric: by B's delta with run B, by A's value without (the lowest, or the highest where lower is better);
    every line at most ``width`` characters (default: :func:`~retrieval_eval.views.terminal_width`)."""
    width = terminal_width() if width is None else width
    queries = explanation.queries
    paired = explanation.paired
    names = explanation.run_names
    heading = [f"{counted(len(queries), 'query', 'queries')}, top {explanation.top} shown per query", f"a: {names[0]}"]
    lines = [line for text in heading + ([f"b: {names[1]}"] if paired else []) for line in wrap(text, width)]
    header = ["metric", "a"] + (["b", "delta"] if paired else [])
    rows = []
    for name in explanation.metrics:
        mean_a = explanation.means["a"][name]
        cells = [name, decimal(mean_a)]
        if paired:
            mean_b = explanation.means["b"][name]
            cells += [decimal(mean_b), decimal(explanation.delta(name), signed=True)]
        rows.append(cells)
    rows.append([f"holes (top {explanation.top}, total)", count_text(queries["holes"].sum())]
                + ([count_text(queries["holes_b"].sum()), ""] if paired else []))  # fmt: skip
    rows.append(["missed (total)", count_text(queries["missed"].sum())] + ([count_text(queries["missed_b"].sum()), ""] if paired else []))
    lines += [""] + _aligned(header, rows, width)
    note = explanation.comparison_note()
    if note is not None:
        lines += wrap(note, width)
    first = explanation.metrics[0]
    if paired:
        outcomes = queries["outcome"].value_counts()
        lines += ["", *wrap(f"b against a on {first}: {counted(outcomes.get('win', 0), 'win')}, "
                            f"{counted(outcomes.get('tie', 0), 'tie')}, {counted(outcomes.get('loss', 0), 'loss', 'losses')}"
                            + _undefined(queries), width)]  # fmt: skip
    if worst:
        lines += [""] + _worst(explanation, first, worst, width)
    return "\n".join(lines)


def _worst(explanation: Explanation, first: str, worst: int, width: int) -> list[str]:
    """The ``worst`` queries on ``first`` (by B's delta with run B, by A's value without), worst first; ties
    in the queries' order, NaN left out."""
    queries = explanation.queries
    paired = explanation.paired
    key = first + "_delta" if paired else first
    values = queries[key].to_numpy(dtype=np.float64)
    order = values if explanation.higher_is_better.get(first, True) else -values
    picked = queries.iloc[np.argsort(order, kind="stable")[: min(worst, int(np.isfinite(order).sum()))]]
    title = f"worst {len(picked)} queries for b by {first} delta:" if paired else f"worst {len(picked)} queries by {first}:"
    texts = picked["text"].notna().any()
    columns = [first, first + "_b"] if paired else [first]
    rows = [[str(row["query_id"]), *(decimal(row[column]) for column in columns)]
            + ([decimal(row[key], signed=True)] if paired else []) + ([_short(row["text"])] if texts else [])
            for _, row in picked.iterrows()]  # fmt: skip
    header = ["query", "a"] + (["b", "delta"] if paired else []) + (["text"] if texts else [])
    return wrap(title, width) + _aligned(header, rows, width)


def _ranked_table(ranked: pd.DataFrame, changes: pd.DataFrame, top: int, paired: bool, width: int) -> list[str]:
    titles = ranked["title"].notna().any()
    sides = []
    for key in ("a", "b") if paired else ("a",):
        side = ranked[ranked["run"] == key].set_index("rank")
        moved = changes.set_index("doc_id")
        cells = {}
        for rank, row in side.iterrows():
            mark = ""
            if paired:
                other = "rank_b" if key == "a" else "rank_a"
                where = moved[other].get(row["doc_id"]) if row["doc_id"] in moved.index else float(rank)
                if isinstance(where, float) and math.isnan(where):
                    mark = "left" if key == "a" else "entered"
                elif where != rank:
                    mark = f"-> {int(where)}" if key == "a" else f"<- {int(where)}"
            cells[rank] = ([str(row["doc_id"]), _label(row["label"], row.get("label_source")), _score(row["score"])]
                           + ([_short(row["title"])] if titles else []) + ([mark] if paired else []))
        sides.append(cells)
    columns = ["doc_id", "label", "score"] + (["title"] if titles else []) + (["change"] if paired else [])
    # With two runs each side's columns are named by its run: in the header only its doc_id (the rest is room).
    names = ["rank"] + [f"{c} ({key})" if paired else c for key in ("a", "b")[: len(sides)] for c in columns]
    header = ["rank"] + [f"{c} ({key})" if paired and c == "doc_id" else c for key in ("a", "b")[: len(sides)] for c in columns]
    depth = max([max(cells, default=0) for cells in sides])
    blank = [""] * len(columns)
    rows = [[str(rank)] + [cell for cells in sides for cell in cells.get(rank, blank)] for rank in range(1, depth + 1)]
    if not rows:
        return ["(no documents retrieved)"]
    judges = sorted({source for source in ranked.get("label_source", pd.Series(dtype=object)).dropna() if _by_judge(source)})
    legend = wrap(f"{JUDGED_MARK} a label given by {', '.join(judges)}, not by people", width) if judges else []
    # Too wide: the titles go first (B's, then A's), then the scores; the documents and where they went stay.
    drop = [index for kind in ("title", "score") for index in reversed(range(len(header))) if header[index] == kind]
    return _aligned(header, rows, width, drop=drop, names=names) + legend


#: The columns of numbers, aligned to the right and never elided.
_NUMBERS = ("rank", "score", "a", "b", "delta")


def _aligned(header: list[str], rows: list[list[str]], width: int, *, drop: list[int] | None = None,
             names: list[str] | None = None) -> list[str]:
    """``rows`` under ``header``, fitted to ``width`` (:func:`~retrieval_eval.views.fit_columns`, which leaves
    out columns in the order of ``drop``; default: the last first), and a line naming the columns left out
    (by their ``names``, default: their headers)."""
    columns = [Column(title, [cells[index] for cells in rows], right=title.split(" (")[0] in _NUMBERS, name=name)
               for index, (title, name) in enumerate(zip(header, names or header))]  # fmt: skip
    return fitted_table(columns, width, drop)


def _score(value: float) -> str:
    return f"{value:.6g}"


def _label(label: float, source: Any = None) -> str:
    """A label as its integer, "hole" when unjudged, marked with :data:`JUDGED_MARK` when a judge gave it."""
    if math.isnan(label):
        return "hole"
    text = str(int(label)) if float(label).is_integer() else f"{label:g}"
    return text + JUDGED_MARK if _by_judge(source) else text


def _by_judge(source: Any) -> bool:
    return isinstance(source, str) and source.startswith("judge:")


def _short(text: Any) -> str:
    if is_missing(text):
        return ""
    text = " ".join(str(text).split())
    return text if len(text) <= _TITLE_WIDTH else text[: _TITLE_WIDTH - 3] + "..."


def _undefined(queries: pd.DataFrame) -> str:
    missing = int(queries["outcome"].isna().sum())
    return f", {count_text(missing)} undefined" if missing else ""
