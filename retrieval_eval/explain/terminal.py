"""An explanation as text for a terminal: one query's lists (:func:`query_report`) or a summary
of all queries (:func:`summary_report`), as aligned columns of plain ASCII."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .tables import Explanation

_TITLE_WIDTH = 40
#: Relevant documents not retrieved listed per run before "... N more".
MISSED_SHOWN = 10
#: After a label that a judge gave (the qrels name the source of each label), as in "2*".
JUDGED_MARK = "*"


def query_report(explanation: Explanation, query_id: Any) -> str:
    """One query: its metric values (and deltas), its ranked list(s) side by side and its missed documents
    (the first :data:`MISSED_SHOWN` of each run, then how many more).

    Each row is a rank: doc id, label ("hole" when unjudged), score, and with run B where the
    document went: on A's side "left" (not in B's top N) or "-> r" (at rank r in B), on B's side
    "entered" or "<- r" (it was at rank r in A).
    """
    view = explanation.query(query_id)
    paired = explanation.paired
    lines = [f"query {view.row['query_id']}" + (f": {view.row['text']}" if view.row["text"] else "")]
    header = ["metric", "a"] + (["b", "delta"] if paired else [])
    rows = []
    for name in explanation.metrics:
        cells = [name, _number(view.row[name])]
        if paired:
            cells += [_number(view.row[name + "_b"]), _number(view.row[name + "_delta"], signed=True)]
        rows.append(cells)
    for what in ("holes", "missed"):
        rows.append([f"{what} (top {explanation.top})" if what == "holes" else what, str(view.row[what])]
                    + ([str(view.row[what + "_b"]), ""] if paired else []))  # fmt: skip
    lines += _aligned(header, rows) + [""]
    if paired:
        lines.append(f"b against a on {explanation.metrics[0]}: {view.row['outcome'] or 'undefined'}")
    lines += _ranked_table(view.ranked, view.changes, explanation.top, paired) + [""]
    for key in ("a", "b") if paired else ("a",):
        missed = view.missed[view.missed["run"] == key]
        shown = missed.head(MISSED_SHOWN)
        sources = shown["label_source"] if "label_source" in shown else [None] * len(shown)
        listed = ", ".join(f"{doc} ({_label(label, source)})"
                           for doc, label, source in zip(shown["doc_id"], shown["label"], sources))
        more = len(missed) - len(shown)
        lines.append(f"relevant, not retrieved by {key}: {listed or 'none'}" + (f", ... {more:,} more" if more else ""))
    return "\n".join(lines)


def summary_report(explanation: Explanation, *, worst: int = 10) -> str:
    """The means of each run, with run B its wins, ties and losses, and the ``worst`` queries on the first
    metric: by B's delta with run B, by A's value without (the lowest, or the highest where lower is better)."""
    queries = explanation.queries
    paired = explanation.paired
    names = explanation.run_names
    lines = [f"{len(queries)} queries, top {explanation.top} shown per query", f"a: {names[0]}"] + ([f"b: {names[1]}"] if paired else [])
    header = ["metric", "a"] + (["b", "delta"] if paired else [])
    rows = []
    for name in explanation.metrics:
        mean_a = explanation.means["a"][name]
        cells = [name, _number(mean_a)]
        if paired:
            mean_b = explanation.means["b"][name]
            cells += [_number(mean_b), _number(explanation.delta(name), signed=True)]
        rows.append(cells)
    rows.append([f"holes (top {explanation.top}, total)", str(int(queries["holes"].sum()))]
                + ([str(int(queries["holes_b"].sum())), ""] if paired else []))  # fmt: skip
    rows.append(["missed (total)", str(int(queries["missed"].sum()))] + ([str(int(queries["missed_b"].sum())), ""] if paired else []))
    lines += [""] + _aligned(header, rows)
    note = explanation.comparison_note()
    if note is not None:
        lines.append(note)
    first = explanation.metrics[0]
    if paired:
        outcomes = queries["outcome"].value_counts()
        lines += ["", f"b against a on {first}: {outcomes.get('win', 0)} wins, {outcomes.get('tie', 0)} ties, "
                  f"{outcomes.get('loss', 0)} losses" + _undefined(queries)]  # fmt: skip
    if worst:
        lines += [""] + _worst(explanation, first, worst)
    return "\n".join(lines)


def _worst(explanation: Explanation, first: str, worst: int) -> list[str]:
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
    rows = [[str(row["query_id"]), *(_number(row[column]) for column in columns)]
            + ([_number(row[key], signed=True)] if paired else []) + ([_short(row["text"])] if texts else [])
            for _, row in picked.iterrows()]  # fmt: skip
    header = ["query", "a"] + (["b", "delta"] if paired else []) + (["text"] if texts else [])
    return [title] + _aligned(header, rows)


def _ranked_table(ranked: pd.DataFrame, changes: pd.DataFrame, top: int, paired: bool) -> list[str]:
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
            cells[rank] = [str(row["doc_id"]), _label(row["label"], row.get("label_source")), _score(row["score"])] + ([_short(row["title"])] if titles else []) + ([mark] if paired else [])
        sides.append(cells)
    columns = ["doc_id", "label", "score"] + (["title"] if titles else []) + (["change"] if paired else [])
    header = ["rank"] + [f"{c} ({key})" if paired else c for key in ("a", "b")[: len(sides)] for c in columns]
    depth = max([max(cells, default=0) for cells in sides])
    blank = [""] * len(columns)
    rows = [[str(rank)] + [cell for cells in sides for cell in cells.get(rank, blank)] for rank in range(1, depth + 1)]
    if not rows:
        return ["(no documents retrieved)"]
    judges = sorted({source for source in ranked.get("label_source", pd.Series(dtype=object)).dropna() if _by_judge(source)})
    legend = [f"{JUDGED_MARK} a label given by {', '.join(judges)}, not by people"] if judges else []
    return _aligned(header, rows) + legend


def _aligned(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(cells[i]) for cells in [header, *rows]) for i in range(len(header))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(cells, widths)).rstrip() for cells in [header, *rows]]


def _number(value: Any, *, signed: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "NaN"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


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
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return ""
    text = " ".join(str(text).split())
    return text if len(text) <= _TITLE_WIDTH else text[: _TITLE_WIDTH - 3] + "..."


def _undefined(queries: pd.DataFrame) -> str:
    missing = int(queries["outcome"].isna().sum())
    return f", {missing} undefined" if missing else ""
