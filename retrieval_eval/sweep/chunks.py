"""Chunk runs scored against document judgments: each document keeps its best-ranked chunk.

A RAG retriever returns chunks (``handbook.docx#3``) while the judgments are per document
(``handbook.docx``). :func:`chunks_to_documents` maps every chunk id to its document id and
keeps, for each (query, document), the chunk with the highest score (the first one in the
input among equal scores), so that runs of different chunk sizes are scored against the same
document-level qrels.
"""

from __future__ import annotations

import re

import pandas as pd

from ..errors import ConfigError, InputError


def chunks_to_documents(
    run: pd.DataFrame,
    *,
    separator: str | None = None,
    pattern: str | None = None,
    column: str | None = None,
) -> pd.DataFrame:
    """The document-level run of a chunk-level ``run`` (columns ``query_id``, ``doc_id``, ``score``).

    Exactly one way to find a chunk's document:

    - ``column``: a column of ``run`` holding it;
    - ``separator``: the chunk id up to the last ``separator`` (``"doc#3"`` with ``"#"`` ->
      ``"doc"``; an id without it is its own document);
    - ``pattern``: a regular expression matched at the start of the chunk id, whose group
      ``doc`` (or else its first group, or else the whole match) is the document id; a chunk id
      it does not match is an error naming the row.

    Returns ``query_id``, ``doc_id`` (the document), ``score`` (its best chunk's) and
    ``chunk_id`` (that chunk), one row per (query, document), in the input order of the kept chunks.
    """
    ways = [
        name
        for name, value in (("separator", separator), ("pattern", pattern), ("column", column))
        if value is not None
    ]
    if len(ways) != 1:
        raise ConfigError(f"give exactly one of separator, pattern or column, got {ways or 'none'}")
    way = {"separator": separator, "pattern": pattern, "column": column}[ways[0]]
    if not isinstance(way, str):
        raise ConfigError(f"{ways[0]} must be text, got {way!r}")
    if not isinstance(run, pd.DataFrame):
        raise ConfigError(f"run must be a pandas DataFrame (query_id, doc_id, score), got {type(run).__name__}")
    missing = [
        name for name in ("query_id", "doc_id", "score", *([column] if column else [])) if name not in run.columns
    ]
    if missing:
        raise InputError(f"no column {missing[0]!r}; the columns are {', '.join(map(str, run.columns))}")
    chunks = run["doc_id"].astype(str)
    if pattern is not None:
        documents = _by_pattern(chunks, pattern)
    elif column is not None:
        documents = run[column]
    else:
        if not separator:
            raise ConfigError("the separator must not be empty")
        before = chunks.str.rpartition(separator)[0] if len(chunks) else chunks
        documents = before.where(chunks.str.contains(separator, regex=False), chunks)
    frame = pd.DataFrame(
        {"query_id": run["query_id"].to_numpy(), "doc_id": documents.to_numpy(), "score": run["score"].to_numpy(),
         "chunk_id": run["doc_id"].to_numpy()}
    )  # fmt: skip
    # A stable sort by descending score puts each document's best chunk first (the earlier of equals).
    best = frame.sort_values("score", ascending=False, kind="stable").drop_duplicates(["query_id", "doc_id"])
    return best.sort_index(kind="stable").reset_index(drop=True)


def _by_pattern(chunks: pd.Series, pattern: str) -> pd.Series:
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise ConfigError(f"invalid pattern {pattern!r}: {exc}") from None
    if compiled.groups == 0:
        anchored, group = f"^({pattern})", 0
    else:
        anchored, group = f"^(?:{pattern})", "doc" if "doc" in compiled.groupindex else 0
    if not len(chunks):
        return chunks
    documents = chunks.str.extract(anchored, expand=True)[group]
    unmatched = documents.isna().to_numpy().nonzero()[0]
    if len(unmatched):
        row = int(unmatched[0])
        raise InputError(f"the chunk id {chunks.iloc[row]!r} does not match {pattern!r}", row=row + 1, field="doc_id")
    return documents
