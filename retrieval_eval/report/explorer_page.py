"""The explorer page: one self-contained HTML file to debug a run (or run B against run A) query by query.

The page holds no link to anything outside itself (no network, no CDN): its CSS and plain JavaScript
(``explorer.css`` and ``explorer.js`` of :mod:`.assets`, real files shipped as package data) and the data,
embedded once as one JSON object in a ``<script type="application/json">`` element (a large one gzip-compressed in base64, which the script
inflates with the browser's ``DecompressionStream``: a quarter of the size). The data is columnar: one array per column of the
queries, the ranked, missed and changed rows each grouped by query (offsets into the arrays), and every
string (query id and text, doc id, title, outcome) interned once in a string table that the columns
index (-1: none). Every ``<`` in the JSON is written ``\\u003c``, so that no id or title can close the
script element, and the script shows every string with ``textContent``, never as HTML.

Numbers: the metric values are written exactly (the shortest text that reads back as the same double);
scores and labels with 7 significant digits (what the page shows, and float32's precision); NaN is
``null`` (shown empty, sorted last), an infinity ``1e999`` (which JSON reads as one).

What the script draws, from that data: the summary (the mean of each metric per run, computed here with
the explanation's ``means`` (the Evaluator's), or pandas' NaN-skipping mean of the column where it has
none; with run B the difference of the means over the queries both runs define, a line naming what each
run lacks when that is fewer than all, and B's wins, ties and losses on the first metric), a plot
of the distribution of the deltas of the first metric (of its values without B), the worst queries (the
largest losses of B, or the lowest values without B; "worse" follows the first metric's direction,
``higher_is_better``); the query table, sortable (click a header: ascending, again: descending, empty values last,
ties in the queries' order) and filterable (text or query id, a metric's range, B's outcome, "has
holes"), drawn a page of 50 rows at a time so that 10,000 queries stay responsive; and a query's detail
(with B first what entered, left or moved, then its ranked lists with labels and holes, then the relevant
documents not retrieved; each list drawn 100 rows at first, the missed documents 10, and a button adds
the next 100, so that a top of a million documents opens at once). Keys: j/k or the arrows move the
selection, Enter opens it, / focuses the filter.
The page fits a 1024-pixel window and uses a wide window's width up to 160em (a wide table scrolls in
its own box). When the first page is drawn it sets ``window.explorerReady`` to ``performance.now()`` (milliseconds
since navigation began).

The script builds every element with the DOM API and writes every string with ``textContent`` (never
``innerHTML``), so an id or title is always text. The query table holds only one page of rows (``PAGE`` = 50)
in the DOM, and each list of a query's detail its first rows (``DETAIL_ROWS`` = 100; the missed documents
``MISSED_ROWS`` = 10) and a button that adds ``MORE_ROWS`` = 100 at a time, so any ``top`` opens at once;
sorting and filtering compute the order of the query indices once per change.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..io.atomic import atomic_write
from ..progress import phase
from ..views import html_text
from .assets import asset_text

if TYPE_CHECKING:
    from ..explain import Explanation

#: Above this many characters of JSON (roughly 1,000 queries x 20 documents of one run), the page embeds it
#: compressed: below, the plain JSON is small anyway and readable in the file.
COMPRESS_ABOVE = 1_000_000
#: The codes of the `run` column of the ranked and missed rows.
_RUNS = ("a", "b")
#: The codes of the `change` column of the changes.
_CHANGES = ("entered", "left", "moved")


def explorer_html(explanation: Explanation, *, title: str = "Retrieval explorer", compress: bool | None = None) -> str:
    """The explorer page of ``explanation`` (see the module docstring), as one HTML document.

    ``compress``: embed the JSON gzip-compressed in base64 (about a quarter of the size; the browser
    inflates it with its ``DecompressionStream``); by default (None) where the JSON passes
    :data:`COMPRESS_ABOVE` characters.

    Raises
    ------
    ValueError
        When a query id is in the queries twice, a ranked, missed or changed row names a query that
        is not among them, a run other than "a"/"b", or a change other than entered/left/moved.
    """
    data = _PageData().payload(explanation, title)
    kind, encoding = "application/json", ""
    if compress or (compress is None and len(data) > COMPRESS_ABOVE):
        # mtime=0: the same explanation gives the same file.
        data = base64.b64encode(gzip.compress(data.encode("utf-8"), compresslevel=6, mtime=0)).decode("ascii")
        kind, encoding = "application/gzip", ' data-encoding="gzip+base64"'
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html_text(title)}</title>\n<style>\n{asset_text('explorer.css')}</style>\n</head>\n<body>\n"
        f"<h1 id=\"title\">{html_text(title)}</h1>\n"
        f"<script type=\"{kind}\" id=\"explorer-data\"{encoding}>{data}</script>\n"
        f"<script>\n{asset_text('explorer.js')}</script>\n</body>\n</html>\n"
    )


def write_explorer(
    explanation: Explanation,
    path: str | os.PathLike[str],
    *,
    title: str = "Retrieval explorer",
    compress: bool | None = None,
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> None:
    """Write :func:`explorer_html` of ``explanation`` to ``path`` atomically (UTF-8); ``inputs``: the files
    the explanation was read from, which ``path`` may not be (:func:`~retrieval_eval.io.atomic.atomic_write`)."""
    with phase(f"building the page {os.fspath(path)} ({len(explanation.queries):,} queries)"):
        text = explorer_html(explanation, title=title, compress=compress)

    def write(temp: str) -> None:
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write(text)

    atomic_write(path, write, inputs=inputs)


class _PageData:
    """Builds the page's JSON (:meth:`payload`), interning its strings: each distinct string gets one index
    into :attr:`strings` (in the order of first use)."""

    def __init__(self) -> None:
        self.strings = pd.Index([], dtype=object)

    def codes(self, values: pd.Series) -> str:
        """The JSON array of the indices of ``values`` (None/NaN: -1), interning the new strings."""
        missing = values.isna().to_numpy()
        inverse, uniques = pd.factorize(values[~missing].astype(str).to_numpy())
        known = self.strings.get_indexer(uniques)
        new = known < 0
        known[new] = len(self.strings) + np.arange(new.sum())
        self.strings = self.strings.append(pd.Index(uniques[new], dtype=object))
        codes = np.full(len(values), -1, dtype=np.int64)
        codes[~missing] = known[inverse]
        return _integers(codes)

    def payload(self, explanation: Explanation, title: str) -> str:
        queries = explanation.queries.reset_index(drop=True)
        metrics = list(explanation.metrics)
        with_b = explanation.paired
        names = [default if name is None else str(name) for name, default in zip(explanation.run_names, "AB")]
        names = names[: 2 if with_b else 1]
        position = pd.Index(queries["query_id"].astype(str))
        if not position.is_unique:
            raise ValueError(f"explorer: query id {position[position.duplicated()][0]!r} is in the queries twice")

        columns = [_column("query_id", "query", "text", self.codes(queries["query_id"]))]
        if "text" in queries.columns and queries["text"].notna().any():
            columns.append(_column("text", "text", "text", self.codes(queries["text"])))
        for metric in metrics:
            columns.append(_column(metric, metric, "float", _exact(queries[metric])))
            if with_b:
                columns.append(_column(f"{metric}_b", f"{metric} B", "float", _exact(queries[f"{metric}_b"])))
                columns.append(_column(f"{metric}_delta", f"\u0394 {metric}", "float", _exact(queries[f"{metric}_delta"])))
        for key, label in (("holes", "holes"), ("missed", "missed"), ("holes_b", "holes B"), ("missed_b", "missed B")):
            if key in queries.columns and (with_b or not key.endswith("_b")):
                columns.append(_column(key, label, "int", _exact(queries[key])))
        if with_b:
            columns.append(_column("outcome", "B", "text", self.codes(queries["outcome"])))

        summary: dict[str, Any] = {"means": [_means(explanation, metric) for metric in metrics]}
        note = explanation.comparison_note()
        if note is not None:
            summary["note"] = note
        higher = explanation.higher_is_better.get(metrics[0], True)
        if with_b:
            counts = queries["outcome"].value_counts()
            summary["outcomes"] = {word: int(counts.get(word, 0)) for word in ("win", "tie", "loss")}
        ranked = self._rows(explanation.ranked, position, "ranked", True, (
            ("rank", "rank"), ("doc", "doc_id"), ("score", "number"), ("label", "number"), ("title", "title"),
            ("judged", "judged")))  # fmt: skip
        missed = self._rows(explanation.missed, position, "missed", True, (
            ("doc", "doc_id"), ("label", "number"), ("title", "title"), ("judged", "judged")))  # fmt: skip
        changes = self._rows(explanation.changes, position, "changes", False, (
            ("doc", "doc_id"), ("change", "change"), ("rank_a", "number"), ("rank_b", "number")))  # fmt: skip
        head = {"title": title, "runs": names, "top": int(explanation.top), "metrics": metrics, "higher": bool(higher),
                "summary": summary}
        parts = [json.dumps(head, ensure_ascii=False, allow_nan=False)[:-1]]
        parts.append(',"columns":[' + ",".join(columns) + "]")
        parts.append(f',"ranked":{ranked},"missed":{missed},"changes":{changes}')
        parts.append(',"strings":' + json.dumps(self.strings.tolist(), ensure_ascii=False) + "}")
        # "<" appears only inside JSON strings, where \u003c reads back as "<": nothing can close the script.
        return "".join(parts).replace("<", "\\u003c")

    def _rows(
        self, frame: pd.DataFrame, position: pd.Index, name: str, by_run: bool, fields: Sequence[tuple[str, str]]
    ) -> str:
        """The rows of ``frame`` in groups, by query (the queries' order) and with ``by_run`` by run within it
        (a, then b), each group in rank order where there is a rank: ``{"groups": runs per query, "start": the
        groups' offsets (n_queries x groups + 1), field: column...}``. A rank that is 1, 2, ... in every group
        (a top N) is left out: the script counts it; so is a title column without a title."""
        where = position.get_indexer(frame["query_id"].astype(str))
        if (where < 0).any():
            unknown = frame["query_id"].to_numpy()[np.flatnonzero(where < 0)[0]]
            raise ValueError(f"explorer: the {name} rows name query {unknown!r}, which is not among the queries")
        groups = len(_RUNS) if by_run else 1
        group = where * groups + (_coded(frame["run"], _RUNS, name, "run") if by_run else 0)
        if "rank" in frame.columns:
            order = np.lexsort((frame["rank"].to_numpy(dtype=np.int64), group))
        else:
            order = np.argsort(group, kind="stable")
        frame, group = frame.iloc[order].reset_index(drop=True), group[order]
        start = np.searchsorted(group, np.arange(len(position) * groups + 1), side="left")
        parts = [f'"groups":{groups}', f'"start":{_integers(start)}']
        for field, kind in fields:
            source = {"doc": "doc_id"}.get(field, field)
            if kind == "rank":
                ranks = frame[source].to_numpy(dtype=np.int64)
                if not np.array_equal(ranks, np.arange(len(frame)) - start[group] + 1):
                    parts.append(f'"{field}":{_integers(ranks)}')
            elif kind == "change":
                parts.append(f'"{field}":{_integers(_coded(frame[source], _CHANGES, name, source))}')
            elif kind == "number":
                parts.append(f'"{field}":{_rounded(frame[source].to_numpy(dtype=np.float64))}')
            elif kind == "title":  # left out where no row has one (no document texts were given)
                if frame[source].notna().any():
                    parts.append(f'"{field}":{self.codes(frame[source])}')
            elif kind == "judged":  # 1 where a judge gave the label; left out where the qrels name no sources
                if "label_source" in frame.columns:
                    by_judge = frame["label_source"].map(lambda value: isinstance(value, str) and value.startswith("judge:"))
                    parts.append(f'"{field}":{_integers(by_judge.to_numpy(dtype=np.int64))}')
            else:
                parts.append(f'"{field}":{self.codes(frame[source])}')
        return "{" + ",".join(parts) + "}"


def _means(explanation: Explanation, metric: str) -> dict[str, Any]:
    """The mean of ``metric`` per run (:meth:`Explanation.mean`); with B the delta over the queries both
    define (:meth:`Explanation.delta`)."""
    means: dict[str, Any] = {"metric": metric, "a": _finite(explanation.mean("a", metric))}
    if explanation.paired:
        means.update(b=_finite(explanation.mean("b", metric)), delta=_finite(explanation.delta(metric)))
    return means


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _column(key: str, label: str, kind: str, values: str) -> str:
    return f'{{"key":{json.dumps(key)},"label":{json.dumps(label)},"kind":"{kind}","values":{values}}}'


def _coded(values: pd.Series, words: tuple[str, ...], name: str, field: str) -> np.ndarray:
    codes = pd.Index(words).get_indexer(values.astype(str))
    if (codes < 0).any():
        bad = values.to_numpy()[np.flatnonzero(codes < 0)[0]]
        raise ValueError(f"explorer: the {name} rows' {field} is {bad!r}; expected one of {', '.join(words)}")
    return codes


def _integers(values: np.ndarray) -> str:
    return "[" + ",".join(map(str, values.tolist())) + "]"


def _exact(values: pd.Series) -> str:
    """Numbers as JSON, each the shortest text that reads back as the same double (json's repr)."""
    numbers = values.to_numpy(dtype=np.float64)
    return _json_numbers(numbers, [repr(value) for value in numbers.tolist()])


def _rounded(numbers: np.ndarray) -> str:
    """Numbers as JSON with 7 significant digits."""
    if numbers.shape[0] == 0:
        return "[]"
    # One %-format of the whole list (C's loop): np.char.mod formats element by element, 4x slower.
    return _json_numbers(numbers, (("%.7g," * numbers.shape[0]) % tuple(numbers.tolist()))[:-1].split(","))


def _json_numbers(numbers: np.ndarray, texts: list[str]) -> str:
    text = np.array(texts, dtype=object)
    text[np.isnan(numbers)] = "null"
    text[numbers == np.inf] = "1e999"
    text[numbers == -np.inf] = "-1e999"
    return "[" + ",".join(text.tolist()) + "]"
