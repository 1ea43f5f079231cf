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
#: Besides trec_eval's and Azure's words, the names other libraries write: BEIR's qrels TSV
#: (``query-id corpus-id score``), ranx's ``to_dataframe()`` (``q_id doc_id score``).
COLUMN_ALIASES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "query_id": ("query_id", "qid", "topic_id", "q_id", "query-id"),
        "doc_id": ("doc_id", "document_id", "docno", "docid", "doc", "corpus_id", "corpus-id"),
        "score": ("score", "relevance_score", "sim"),
        # A qrels table's "score" is its label (BEIR's, ranx's Qrels frame); a run reader asks for no relevance.
        "relevance": ("relevance", "label", "query_relevance_label", "rel", "grade", "score"),
        # Judgment groups and subgroups (trec_eval's qrels_jg and prefs layouts).
        "group": ("group", "judgment_group", "jg"),
        "subgroup": ("subgroup", "judgment_subgroup", "jsg"),
    }
)

#: Canonical name -> {alias: the aliases it yields to when one of them is a column too}. pyterrier's
#: result frames have ``docno``, the collection's document id (what qrels judge), and often ``docid``,
#: Terrier's internal number of the document in its index: ``docno`` is the document id, so a
#: table with both reads ``docno``. A qrels table with a ``score`` beside a label column (a run
#: joined to its judgments) reads the label. Any other pair of matches stays ambiguous.
YIELDING_ALIASES: Mapping[str, Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "doc_id": {"docid": ("docno",)},
        "relevance": {"score": ("relevance", "label", "query_relevance_label", "rel", "grade")},
    }
)

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
                f"choose one with {_how_to_name(canonical)}",
                source=source,
                field=canonical,
            )
        if not match:
            if canonical in optional:
                continue
            raise InputError(
                f"missing column '{canonical}': looked for {_names(looked_for)} "
                f"(case-insensitive); columns found: {_names(found)}; name yours with {_how_to_name(canonical)}",
                source=source,
                field=canonical,
            )
        resolved[canonical] = match[0]
    _check_distinct(resolved)
    return resolved


def _how_to_name(canonical: str) -> str:
    # The library's argument and the command line's flags (the same words in every subcommand).
    return f"columns={{'{canonical}': NAME}} (command line: --qrels-column or --run-column {canonical}=NAME)"


def _case_insensitive(found: Sequence[Hashable], names: Sequence[str]) -> list[Hashable]:
    wanted = {n.casefold() for n in names}
    return [c for c in found if str(c).casefold() in wanted]


def _yielded(match: list[Hashable], yields: Mapping[str, tuple[str, ...]]) -> list[Hashable]:
    """``match`` without the columns that yield to another column of ``match``."""
    present = {str(column).casefold() for column in match}
    return [column for column in match if present.isdisjoint(yields.get(str(column).casefold(), ()))]


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
