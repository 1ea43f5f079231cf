"""Find the user's column for each canonical column (``query_id``, ``doc_id``, ...).

One resolver serves every tabular reader (CSV, TSV, JSON, parquet, DataFrame, Table,
list of dicts, Azure rows), so aliasing, ``columns=`` overrides and the error
messages behave the same everywhere.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from types import MappingProxyType

from retrieval_eval.errors import ConfigError, InputError

#: Default names looked for (case-insensitively) for each canonical column. "query" is left
#: out on purpose: RAG tables often use it for the query text (as pyterrier's frames do). Two
#: columns matching one canonical name are ambiguous, except as :data:`YIELDING_ALIASES` says.
COLUMN_ALIASES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "query_id": ("query_id", "qid", "topic_id"),
        "doc_id": ("doc_id", "document_id", "docno", "docid", "doc"),
        "score": ("score", "relevance_score", "sim"),
        "relevance": ("relevance", "label", "query_relevance_label", "rel", "grade"),
        # Judgment groups and subgroups (trec_eval's qrels_jg and prefs layouts).
        "group": ("group", "judgment_group", "jg"),
        "subgroup": ("subgroup", "judgment_subgroup", "jsg"),
    }
)

#: Canonical name -> {alias: the alias it yields to when both are columns}. pyterrier's result
#: frames have ``docno``, the collection's document id (what qrels judge), and often ``docid``,
#: Terrier's internal number of the document in its index: ``docno`` is the document id, so a
#: table with both reads ``docno``. Any other pair of matches stays ambiguous.
YIELDING_ALIASES: Mapping[str, Mapping[str, str]] = MappingProxyType({"doc_id": {"docid": "docno"}})


def resolve_columns(
    found: Iterable[Hashable],
    candidates: Mapping[str, Sequence[str]],
    *,
    source: str,
    overrides: Mapping[str, str] | None = None,
    optional: Iterable[str] = (),
) -> dict[str, Hashable]:
    """Map each canonical name in ``candidates`` to one of the ``found`` column names.

    Parameters
    ----------
    found:
        The column names present, in order (DataFrame labels need not be strings).
    candidates:
        Canonical name -> names to look for, compared case-insensitively.
    source:
        Label of the input, for error messages.
    overrides:
        Canonical name -> the user's column name; replaces the candidates of that
        canonical name. An exact match wins over a case-insensitive one.
    optional:
        Canonical names that may be absent; they are left out of the result.

    Returns
    -------
    dict
        Canonical name -> the column name exactly as found, in ``candidates`` order.

    Raises
    ------
    ConfigError
        ``overrides`` names a canonical column this reader does not use, or maps two
        canonical columns to the same column.
    InputError
        A required column is missing, or more than one column matches (after an alias
        yields to another, :data:`YIELDING_ALIASES`: ``docid`` beside ``docno``).

    Examples
    --------
    >>> resolve_columns(["Topic", "docno", "rel"], {"query_id": ("topic",)}, source="x")
    {'query_id': 'Topic'}
    """
    found = list(found)
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(candidates))
    if unknown:
        raise ConfigError(
            f"columns= has keys {unknown} that this reader does not use; "
            f"expected some of {list(candidates)}"
        )
    optional = set(optional)
    resolved: dict[str, Hashable] = {}
    for canonical, names in candidates.items():
        if canonical in overrides:
            wanted = overrides[canonical]
            match = [c for c in found if c == wanted]
            if not match and isinstance(wanted, str):  # a DataFrame's integer label matches exactly or not at all
                match = _case_insensitive(found, [wanted])
            looked_for = [wanted]
        else:
            match = _yielded(_case_insensitive(found, names), YIELDING_ALIASES.get(canonical, {}))
            looked_for = list(names)
        if len(match) > 1:
            raise InputError(
                f"ambiguous column for '{canonical}': {_names(match)} all match; "
                f"pass columns={{'{canonical}': ...}} to choose one",
                source=source,
                field=canonical,
            )
        if not match:
            if canonical in optional:
                continue
            raise InputError(
                f"missing column '{canonical}': looked for {_names(looked_for)} "
                f"(case-insensitive); columns found: {_names(found)}",
                source=source,
                field=canonical,
            )
        resolved[canonical] = match[0]
    _check_distinct(resolved)
    return resolved


def _case_insensitive(found: Sequence[Hashable], names: Sequence[str]) -> list[Hashable]:
    wanted = {n.casefold() for n in names}
    return [c for c in found if str(c).casefold() in wanted]


def _yielded(match: list[Hashable], yields: Mapping[str, str]) -> list[Hashable]:
    """``match`` without the columns that yield to another column of ``match``."""
    present = {str(column).casefold() for column in match}
    return [column for column in match if yields.get(str(column).casefold()) not in present]


def _check_distinct(resolved: Mapping[str, Hashable]) -> None:
    # Only an override can do this (the default alias lists do not overlap), and
    # reading one column as both ids and labels is never what was meant.
    seen: dict[Hashable, str] = {}
    for canonical, column in resolved.items():
        if column in seen:
            raise ConfigError(
                f"columns '{seen[column]}' and '{canonical}' both map to column {column!r}"
            )
        seen[column] = canonical


def _names(names: Iterable[Hashable]) -> str:
    return "[" + ", ".join(repr(str(n)) for n in names) + "]"
