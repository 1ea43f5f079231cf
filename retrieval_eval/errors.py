"""Exception hierarchy.

Every error the library raises on purpose derives from :class:`RetrievalEvalError`.
Errors about bad values also derive from :class:`ValueError`, so generic callers that
catch ``ValueError`` keep working.
"""

from __future__ import annotations

#: trec_eval 10's exit status where it cannot compute a measure for a query ("Can't calculate
#: measure", a judged query without results): kept by the command line's ``--trec``.
TREC_EVAL_STOP_STATUS = 4


class RetrievalEvalError(Exception):
    """Base class of all errors raised deliberately by retrieval_eval."""


class InputError(RetrievalEvalError, ValueError):
    """Input data is malformed: a file, a row or a field is not what was expected.

    The message names where the problem is (``source``, ``row``, ``field``) when known.
    ``row`` is 1-based: the data row in a table, or the line number in a text file.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        row: int | None = None,
        field: str | None = None,
    ) -> None:
        self.source = source
        self.row = row
        self.field = field
        self.detail = message
        super().__init__(_locate(message, source=source, row=row, field=field))


class DuplicateError(InputError):
    """A document is retrieved or judged twice in one query where the policy is to refuse it."""


class MissingQueryError(InputError):
    """A judged query has no results, where trec_eval 10 stops (its exit status 4, which the command line keeps).

    ``query_id``: that query; ``output``: the lines trec_eval prints before it stops (with ``-q``,
    those of the queries before it).
    """

    exit_status = TREC_EVAL_STOP_STATUS

    def __init__(self, message: str, *, query_id: str, output: list[str] | None = None) -> None:
        super().__init__(message)
        self.query_id = query_id
        self.output = output or []


class ConfigError(RetrievalEvalError, ValueError):
    """A parameter is invalid: an unknown metric, k <= 0, a bad threshold or label range."""


class LayoutError(ConfigError):
    """A measure cannot read judgments of the layout given (trec_eval stops there: "Can't calculate measure", status 4)."""

    exit_status = TREC_EVAL_STOP_STATUS


class UnknownMetricError(ConfigError):
    """A metric name is not in the registry; the message lists the closest known names."""


class OutputError(RetrievalEvalError, OSError):
    """An output file could not be written (nothing is left behind when this is raised)."""


def _locate(message: str, *, source: str | None, row: int | None, field: str | None) -> str:
    where = []
    if source is not None:
        where.append(str(source))
    if row is not None:
        where.append(f"row {row}")
    if field is not None:
        where.append(f"field '{field}'")
    return f"{', '.join(where)}: {message}" if where else message
