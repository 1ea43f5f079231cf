"""Read qrels and runs from any supported source into canonical Arrow tables."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pyarrow as pa

from retrieval_eval.errors import ConfigError
from retrieval_eval.io.coerce import as_ids, as_relevance, as_scores
from retrieval_eval.io.columns import COLUMN_ALIASES
from retrieval_eval.io.sources import SourceLike, resolve_source
from retrieval_eval.io.tables import RawColumns, load_columns
from retrieval_eval.io.trec import QRELS_LAYOUT, RUN_LAYOUT, TrecLayout, read_trec

# Canonical column -> role, in output order.
_QRELS_ROLES = {"query_id": "id", "doc_id": "id", "relevance": "relevance"}
RUN_ROLES = {"query_id": "id", "doc_id": "id", "score": "score"}

#: Role -> the function that types a raw column of that role.
COERCERS: Mapping[str, Callable[..., pa.ChunkedArray]] = {
    "id": as_ids,
    "score": as_scores,
    "relevance": as_relevance,
}


def read_qrels_table(
    source: SourceLike,
    *,
    columns: Mapping[str, str] | None = None,
    format: str | None = None,
) -> pa.Table:
    """Read relevance judgments (qrels).

    Parameters
    ----------
    source:
        A path (TREC text, ``.csv``, ``.tsv``, ``.json``, ``.jsonl``/``.ndjson``,
        ``.parquet``/``.pq``, any of them optionally ``.gz``), a pandas DataFrame, a
        pyarrow Table or a list of dicts. A path's format comes from its extension;
        unknown extensions (``.txt``, ``.qrels``, none...) mean TREC text. ``"-"`` is
        standard input; it, ``/dev/stdin`` and pipes (``<(zcat run.gz)``) are read whole
        once and kept for the process (gzip is told by their first bytes).
    columns:
        Canonical name -> your column name, for columns whose names are not among the
        defaults (``{"query_id": "topic"}``). Not used for TREC text (positional).
    format:
        Overrides the format taken from the extension: ``"trec"``, ``"csv"``,
        ``"tsv"``, ``"json"``, ``"jsonl"`` or ``"parquet"``.

    Returns
    -------
    pyarrow.Table
        Columns ``query_id``, ``doc_id`` (string, or int64 when the source has integer
        ids; TREC and CSV ids are always strings) and ``relevance`` (int64), one row per
        input row, in input order.

    Raises
    ------
    InputError
        The file is missing, empty or malformed; a column is missing, ambiguous, of the
        wrong type or has nulls. The message names the file (or ``<DataFrame>``...), the
        row or line, and the field.

    Examples
    --------
    A TREC qrels line ``301 0 FBIS3-10082 1`` gives the row
    ``("301", "FBIS3-10082", 1)``; a CSV with columns ``topic,docno,grade`` is read with
    ``columns={"query_id": "topic"}`` (``docno`` and ``grade`` are default aliases).
    """
    return _read(source, columns, format, _QRELS_ROLES, QRELS_LAYOUT)


def read_run_table(
    source: SourceLike,
    *,
    columns: Mapping[str, str] | None = None,
    format: str | None = None,
) -> pa.Table:
    """Read a run (ranked retrieval results).

    Same sources and parameters as :func:`read_qrels_table`. A TREC run line is
    ``qid Q0 docno rank score tag``; the rank is ignored (trec_eval ranks by score)
    and so is any text after the tag.

    Returns
    -------
    pyarrow.Table
        Columns ``query_id``, ``doc_id`` and ``score`` (float64; NaN is kept for the data
        layer to judge), one row per input row, in input order.
    """
    return _read(source, columns, format, RUN_ROLES, RUN_LAYOUT)


def _read(
    source: SourceLike,
    columns: Mapping[str, str] | None,
    format: str | None,
    roles: Mapping[str, str],
    layout: TrecLayout,
) -> pa.Table:
    check_read_options(columns, format)
    src = resolve_source(source, format)
    if src.format == "trec":
        if columns:
            raise ConfigError("columns= does not apply to TREC text: its fields are positional")
        return read_trec(src, layout)
    raw = load_columns(
        src, {name: COLUMN_ALIASES[name] for name in roles}, roles, overrides=columns
    )
    return typed_table(raw, roles, src.label)


def check_read_options(columns: object, format: object) -> None:
    """Raise :class:`ConfigError` unless ``columns`` and ``format`` are of the documented types.

    ``columns``: None or a mapping of canonical names (str) to column names (str, or int for
    a DataFrame's integer labels); ``format``: None or a str. Checked before anything is
    read, so that a misuse (``columns=["query_id"]``) is named as such, not met later as an
    unrelated exception.
    """
    if columns is not None and not (
        isinstance(columns, Mapping)
        and all(isinstance(k, str) and isinstance(v, (str, int)) and not isinstance(v, bool) for k, v in columns.items())
    ):
        raise ConfigError(
            "columns= must map canonical names to your column names, such as {'query_id': 'topic'}; "
            f"got {columns!r}"
        )
    if format is not None and not isinstance(format, str):
        raise ConfigError(f"format= must be a format name such as 'csv' or 'trec', got {format!r}")


def typed_table(raw: RawColumns, roles: Mapping[str, str], label: str) -> pa.Table:
    """Type each raw column by its role; columns in ``roles`` order."""
    typed = [
        COERCERS[role](
            raw.data[name], source=label, field=raw.fields[name], from_text=raw.from_text
        )
        for name, role in roles.items()
    ]
    return pa.Table.from_arrays(typed, names=list(roles))
