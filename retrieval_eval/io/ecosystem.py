"""What users of the IR and data ecosystem already hold, recognised without importing its libraries.

No object can be a polars frame, a ranx ``Qrels`` or an ir_datasets dataset unless that library
has been imported, so asking :data:`sys.modules` answers without importing it (as
:mod:`~retrieval_eval.io.pandas_objects` does for pandas). Each kind is unpacked through its
library's public API:

- polars ``DataFrame`` / ``LazyFrame``: ``to_arrow()`` (a LazyFrame is collected first) at
  polars' oldest Arrow compatibility level, whose strings are ``large_string`` (not
  ``string_view``): an Arrow table, read as any other, without a detour through pandas.
- ranx ``Qrels`` / ``Run``: ``to_dict()``, a nested dict (below). ranx holds judgments as int64
  and scores as float64, so both come back exactly (the same bits).
- ir_datasets datasets: ``qrels_iter()`` for judgments, ``scoreddocs_iter()`` for runs, each
  an iterable of named tuples (below).
- Nested dicts in pytrec_eval's shape: ``{query_id: {doc_id: value}}``, the value a relevance
  label (qrels) or a score (runs). A query with an empty inner dict has no rows.
- Named tuples (ir_datasets' ``TrecQrel``, ``GenericScoredDoc``, ir_measures' ``Qrel``,
  ``ScoredDoc``): their fields are the columns, found by the same aliases as a table's
  (``query_id``, ``doc_id``, ``relevance`` or ``score``); other fields (``iteration``...) are
  ignored. An iterator is read once, chunk by chunk.

Python values are gathered into one flat list per column in one pass over the rows (C-level
``extend`` of a ``map`` per column, chunk by chunk; no dict or tuple per row), for
:func:`~retrieval_eval.io.tables.to_arrow` to convert with
the same rules and messages as a list of dicts. Rows are counted from 1 in iteration order
(query by query for a nested dict).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from itertools import islice, repeat
from operator import attrgetter

import pyarrow as pa

from retrieval_eval.errors import InputError

#: Rows taken from an iterator at a time: each chunk's rows are checked and unpacked in C.
_CHUNK = 1 << 16


def polars_kind(obj: object) -> str | None:
    """``"DataFrame"`` or ``"LazyFrame"`` when ``obj`` is a polars frame, else None."""
    polars = sys.modules.get("polars")
    for kind in ("DataFrame", "LazyFrame"):
        cls = getattr(polars, kind, None)
        if cls is not None and isinstance(obj, cls):
            return kind
    return None


def polars_table(frame: object) -> pa.Table:
    """A polars DataFrame or LazyFrame (collected) as a pyarrow Table, strings as ``large_string``."""
    polars = sys.modules["polars"]
    if isinstance(frame, polars.LazyFrame):
        frame = frame.collect()
    return frame.to_arrow(compat_level=polars.CompatLevel.oldest())


def ranx_kind(obj: object) -> str | None:
    """``"Qrels"`` or ``"Run"`` when ``obj`` is a ranx object of that class, else None."""
    ranx = sys.modules.get("ranx")
    for kind in ("Qrels", "Run"):
        cls = getattr(ranx, kind, None)
        if cls is not None and isinstance(obj, cls):
            return kind
    return None


def is_ir_dataset(obj: object) -> bool:
    """Whether ``obj`` is an ir_datasets dataset (``ir_datasets.load(...)`` or one built of parts)."""
    cls = getattr(sys.modules.get("ir_datasets"), "Dataset", None)
    return cls is not None and isinstance(obj, cls)


def dataset_label(dataset: object) -> str:
    """How messages name an ir_datasets dataset: with its id when it was loaded by name."""
    # Only a registered dataset has dataset_id(); one built of local parts has none.
    if hasattr(dataset, "dataset_id"):
        return f"<ir_datasets dataset {dataset.dataset_id()!r}>"
    return "<ir_datasets dataset>"


def dataset_rows(dataset: object, label: str, *, scored: bool) -> Iterator[tuple]:
    """A dataset's judgments (``qrels_iter()``) or, when ``scored``, its results (``scoreddocs_iter()``)."""
    what = "scoreddocs" if scored else "qrels"
    if not hasattr(dataset, f"{what}_iter"):
        raise InputError(f"this ir_datasets dataset has no {what} (no {what}_iter())", source=label)
    return getattr(dataset, f"{what}_iter")()


def is_named_tuple(obj: object) -> bool:
    """Whether ``obj`` is a named tuple (``collections.namedtuple`` or ``typing.NamedTuple``)."""
    return isinstance(obj, tuple) and hasattr(type(obj), "_fields")


def nested_columns(
    nested: Mapping[Hashable, object], names: Sequence[str], label: str
) -> dict[str, list]:
    """The columns of ``{query_id: {doc_id: value}}``: ``names`` are the three columns' names.

    Raises
    ------
    InputError
        An inner value is not a dict: the message names its query.
    """
    query_name, doc_name, value_name = names
    query_ids: list = []
    doc_ids: list = []
    values: list = []
    for query, docs in nested.items():
        if not isinstance(docs, Mapping):
            raise InputError(
                f"query {query!r}: expected a dict {{{doc_name}: {value_name}}} (pytrec_eval's "
                f"{{{query_name}: {{{doc_name}: {value_name}}}}}), got {type(docs).__name__}",
                source=label,
            )
        query_ids.extend(repeat(query, len(docs)))
        doc_ids.extend(docs)
        values.extend(docs.values())
    return {query_name: query_ids, doc_name: doc_ids, value_name: values}


def tuple_columns(
    rows: Iterable[object],
    resolve: Callable[[Iterable[Hashable]], dict[str, Hashable]],
    label: str,
) -> tuple[dict[str, list], dict[str, Hashable]]:
    """The columns of an iterable of named tuples, and the field chosen for each canonical name.

    ``resolve`` maps the first row's fields to the canonical columns (aliases, ``columns=``);
    every later row must have the same fields chosen. An empty ``rows`` gives empty columns.

    Raises
    ------
    InputError
        A row is not a named tuple, or lacks a chosen field: the message names the row.
    """
    rows = iter(rows)
    chunk = list(islice(rows, _CHUNK))
    if not chunk:
        return {}, {}
    _require_named_tuple(chunk[0], (), label, 1)
    resolved = resolve(chunk[0]._fields)
    fields = [str(field) for field in resolved.values()]
    # One getter per column, each mapped over the chunk: a tuple per row and a transposition
    # (zip(*rows)) would cost about five times as much.
    getters = [attrgetter(field) for field in fields]
    columns: list[list] = [[] for _ in fields]
    fitting: set[type] = set()  # the row types seen to have every chosen field
    done = 0
    while chunk:
        for kind in set(map(type, chunk)) - fitting:
            if not (issubclass(kind, tuple) and set(fields) <= set(getattr(kind, "_fields", ()))):
                position = next(i for i, row in enumerate(chunk) if type(row) is kind)
                _require_named_tuple(chunk[position], fields, label, done + position + 1)
            fitting.add(kind)
        for column, get in zip(columns, getters):
            column.extend(map(get, chunk))
        done += len(chunk)
        chunk = list(islice(rows, _CHUNK))
    return dict(zip(resolved, columns)), resolved


def _require_named_tuple(row: object, fields: Sequence[str], label: str, number: int) -> None:
    """Raise unless ``row`` is a named tuple with every one of ``fields``."""
    if not is_named_tuple(row):
        raise InputError(
            f"expected a named tuple (such as ir_datasets' TrecQrel or ir_measures' Qrel), "
            f"got {type(row).__name__}",
            source=label,
            row=number,
        )
    missing = [field for field in fields if field not in row._fields]
    if missing:
        raise InputError(
            f"a {type(row).__name__} has no field {', '.join(map(repr, missing))} (its fields: "
            f"{', '.join(map(repr, row._fields))}); every row needs the fields chosen from the first",
            source=label,
            row=number,
        )
