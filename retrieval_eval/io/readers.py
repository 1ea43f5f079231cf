"""Read qrels and runs from any supported source into canonical Arrow tables."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pyarrow as pa

from retrieval_eval.errors import ConfigError
from retrieval_eval.io.coerce import as_ids, as_levels, as_relevance, as_scores
from retrieval_eval.io.columns import COLUMN_ALIASES
from retrieval_eval.io.sources import SourceLike, resolve_source
from retrieval_eval.io.tables import RawColumns, load_columns
from retrieval_eval.io.trec import (
    PREFS_LAYOUT,
    QRELS_JG_LAYOUT,
    QRELS_LAYOUT,
    QRELS_PREFS_LAYOUT,
    RUN_LAYOUT,
    TrecLayout,
    read_trec,
)

# Canonical column -> role, in output order.
_QRELS_ROLES = {"query_id": "id", "doc_id": "id", "relevance": "relevance"}
RUN_ROLES = {"query_id": "id", "doc_id": "id", "score": "score"}
#: Each judgments layout (trec_eval's ``-R``): its columns' roles and its TREC text layout.
_JUDGMENT_LAYOUTS: Mapping[str, tuple[Mapping[str, str], TrecLayout]] = {
    "qrels": (_QRELS_ROLES, QRELS_LAYOUT),
    "qrels_jg": ({**_QRELS_ROLES, "group": "group"}, QRELS_JG_LAYOUT),
    "qrels_prefs": ({"query_id": "id", "doc_id": "id", "relevance": "level", "group": "group"}, QRELS_PREFS_LAYOUT),
    "prefs": (
        {"query_id": "id", "doc_id": "id", "relevance": "level", "group": "group", "subgroup": "group"},
        PREFS_LAYOUT,
    ),
}
#: The subgroup of every judgment read as ``qrels_prefs`` (get_qrels_prefs.c sets it so).
QRELS_PREFS_SUBGROUP = "0"


def _as_group_names(values: pa.ChunkedArray, **where: object) -> pa.ChunkedArray:
    """Judgment group (or subgroup) names as strings: integers in decimal, as a TREC file writes them."""
    values = as_ids(values, **where)
    return values.cast(pa.string()) if pa.types.is_integer(values.type) else values


#: Role -> the function that types a raw column of that role.
COERCERS: Mapping[str, Callable[..., pa.ChunkedArray]] = {
    "id": as_ids,
    "score": as_scores,
    "relevance": as_relevance,
    "level": as_levels,
    "group": _as_group_names,
}


def read_qrels_table(
    source: SourceLike,
    *,
    columns: Mapping[str, str] | None = None,
    format: str | None = None,
    judgments: str = "qrels",
) -> pa.Table:
    """Read relevance judgments (qrels), in any of trec_eval's judgment layouts.

    Parameters
    ----------
    source:
        A path (TREC text, ``.csv``, ``.tsv``, ``.json``, ``.jsonl``/``.ndjson``,
        ``.parquet``/``.pq``, any of them optionally ``.gz``), a pandas DataFrame, a polars
        DataFrame or LazyFrame, a pyarrow Table, a list of dicts, pytrec_eval's nested dict
        ``{query_id: {doc_id: value}}``, a ranx Qrels or Run, an iterable of named tuples
        (ir_datasets' and ir_measures' ``query_id, doc_id, relevance/score``) or an ir_datasets
        dataset (its ``qrels_iter()`` / ``scoreddocs_iter()``). A path's format comes from its extension;
        unknown extensions (``.txt``, ``.qrels``, none...) mean TREC text. ``"-"`` is
        standard input; it, ``/dev/stdin`` and pipes (``<(zcat run.gz)``) are read whole
        once and kept for the process (gzip is told by their first bytes).
    columns:
        Canonical name -> your column name, for columns whose names are not among the
        defaults (``{"query_id": "topic"}``). Not used for TREC text (positional).
    format:
        Overrides the format taken from the extension: ``"trec"``, ``"csv"``,
        ``"tsv"``, ``"json"``, ``"jsonl"`` or ``"parquet"``.
    judgments:
        The layout (trec_eval's ``-R``), one of
        :data:`~retrieval_eval.policies.JUDGMENT_FORMATS`. As TREC text:

        - ``"qrels"``: ``qid iter docno rel`` (``iter`` is ignored), ``rel`` an integer;
        - ``"qrels_jg"``: ``qid jg docno rel``, ``jg`` the judgment group (get_qrels_jg.c);
        - ``"qrels_prefs"``: ``qid jg docno rel_level``, a qrels file read as preferences,
          ``rel_level`` a number (trec_eval's ``atof``); the subgroup of every line is
          ``"0"`` (get_qrels_prefs.c);
        - ``"prefs"``: ``qid jg jsg docno rel_level`` (get_prefs.c).

        Other sources name the columns ``group`` (aliases ``judgment_group``, ``jg``) and
        ``subgroup`` (``judgment_subgroup``, ``jsg``); integer group ids become their decimal
        text, as a TREC file holds them.

    Returns
    -------
    pyarrow.Table
        Columns ``query_id``, ``doc_id`` (string, or int64 when the source has integer
        ids; TREC and CSV ids are always strings) and ``relevance`` (int64; float64 for the
        preference layouts), then for the grouped layouts ``group`` and (preferences)
        ``subgroup`` (strings), one row per input row, in input order.

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
    if not isinstance(judgments, str) or judgments not in _JUDGMENT_LAYOUTS:
        raise ConfigError(f"judgments must be one of {list(_JUDGMENT_LAYOUTS)}, got {judgments!r}")
    roles, layout = _JUDGMENT_LAYOUTS[judgments]
    table = _read(source, columns, format, roles, layout)
    if judgments == "qrels_prefs":
        table = table.append_column("subgroup", _constant_text(QRELS_PREFS_SUBGROUP, table.num_rows))
    return table.select([name for name in (*_QRELS_ROLES, "group", "subgroup") if name in table.column_names])


def _constant_text(text: str, n: int) -> pa.Array:
    """``n`` copies of a one-byte ``text``, built from buffers (Python values would import pandas)."""
    return pa.Array.from_buffers(
        pa.string(),
        n,
        [None, pa.py_buffer(np.arange(n + 1, dtype=np.int32)), pa.py_buffer(np.full(n, ord(text), dtype=np.uint8))],
    )


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
