"""Give raw Arrow columns their canonical types: ids, scores and relevance labels.

Only types, parsing and nulls are checked here, column-wise. Value checks (NaN scores,
label ranges, duplicates) belong to the data layer.

Row numbers in errors are 1-based. ``rows`` maps an element's position to the row a
user should look at (a line number in TREC text, the record of an Azure row); without
it the position + 1 is used (a data row of a table).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from retrieval_eval.errors import InputError
from retrieval_eval.io.arrays import numpy_view

Column = pa.Array | pa.ChunkedArray
RowMap = Callable[[int], int]

_INT64_LIMIT = 2.0**63  # floats at or above this (in magnitude) do not fit in int64


def _row_of(rows: RowMap | None, index: int) -> int:
    return rows(index) if rows is not None else index + 1


def casts(values: Column, target: pa.DataType) -> bool:
    """Whether ``values`` cast (safely) to ``target``."""
    try:
        pc.cast(values, target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True


def cast_exactly(values: Column, target: pa.DataType, failure: Callable[[int], Exception]) -> Column:
    """``values`` cast (safely) to ``target``; else raises ``failure(i)``, i the first element that does not cast.

    The whole column is cast once; the failing element is looked for only when that fails.
    """
    try:
        return pc.cast(values, target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise failure(_first_failure(values, target)) from None


def _first_failure(values: Column, target: pa.DataType) -> int:
    """Position of the first element that does not cast to ``target``, given that one does not.

    Arrow's cast reports the bad value but not where it is; bisecting with casts of
    halves finds it in about two passes over the data, without a Python loop per row.
    """
    lo, hi = 0, len(values)  # invariant: the first failure is in [lo, hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if casts(values.slice(lo, mid - lo), target):
            lo = mid
        else:
            hi = mid
    return lo


def parse_strings(
    values: Column,
    target: pa.DataType,
    *,
    what: str,
    source: str,
    field: str | None,
    rows: RowMap | None = None,
) -> Column:
    """Parse a string column into ``target``; the first unparsable value is an error."""
    return cast_exactly(
        values,
        target,
        lambda bad: InputError(
            f"{what}, got {values[bad].as_py()!r}", source=source, row=_row_of(rows, bad), field=field
        ),
    )


def require_no_nulls(
    values: Column, *, source: str, field: str | None, rows: RowMap | None = None
) -> None:
    """Raise if ``values`` has nulls, giving their count and the first one's row."""
    if values.null_count:
        first = pc.index(pc.is_null(values), True).as_py()
        raise InputError(
            f"{values.null_count} missing (null) value(s), the first at this row",
            source=source,
            row=_row_of(rows, first),
            field=field,
        )


def as_ids(
    values: Column,
    *,
    source: str,
    field: str | None,
    rows: RowMap | None = None,
    from_text: bool = False,
) -> Column:
    """Ids: integers become int64, strings stay strings; anything else is an error.

    ``from_text`` is accepted for a uniform signature: text ids are read as strings.
    """
    values = _prepared(values, None, "", source, field, rows)
    kind = values.type
    if pa.types.is_integer(kind):
        return _to_int64(values, what="id", source=source, field=field, rows=rows)
    if _is_text(kind):
        return values
    raise _wrong_type("ids must be integers or strings", values, source, field, rows)


def as_scores(
    values: Column,
    *,
    source: str,
    field: str | None,
    rows: RowMap | None = None,
    from_text: bool = False,
) -> Column:
    """Scores: any numeric type becomes float64 (NaN is left for the data layer).

    ``from_text`` (CSV/TSV) parses a string column, naming the first bad value; from
    typed sources a string column is an error.
    """
    parse = pa.float64() if from_text else None
    values = _prepared(values, parse, "score must be a number", source, field, rows)
    kind = values.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        # Unsafe on purpose: int64 -> float64 may round, which is what a score cast means.
        return pc.cast(values, pa.float64(), safe=False)
    raise _wrong_type("scores must be numeric", values, source, field, rows)


def as_relevance(
    values: Column,
    *,
    source: str,
    field: str | None,
    rows: RowMap | None = None,
    from_text: bool = False,
) -> Column:
    """Relevance labels: integers become int64; floats only if every value is integral.

    ``from_text`` as for :func:`as_scores`.
    """
    parse = pa.int64() if from_text else None
    values = _prepared(values, parse, "relevance must be an integer", source, field, rows)
    kind = values.type
    if pa.types.is_integer(kind) or pa.types.is_decimal(kind):
        return _to_int64(values, what="relevance", source=source, field=field, rows=rows)
    if pa.types.is_floating(kind):
        # float64 holds every float16/32 value exactly, so the test is the same on the cast.
        floats = numpy_view(pc.cast(values, pa.float64()))
        ok = np.isfinite(floats) & (np.abs(floats) < _INT64_LIMIT) & (np.floor(floats) == floats)
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise InputError(
                f"relevance must be an integer, got {values[bad].as_py()!r}",
                source=source,
                row=_row_of(rows, bad),
                field=field,
            )
        return pc.cast(values, pa.int64(), safe=False)
    raise _wrong_type("relevance labels must be integers", values, source, field, rows)


def _prepared(
    values: Column,
    parse: pa.DataType | None,
    what: str,
    source: str,
    field: str | None,
    rows: RowMap | None,
) -> Column:
    """Decode dictionaries, parse text into ``parse`` (if given), and reject nulls."""
    # Dictionary-encoded columns (pandas categoricals, parquet dictionaries) are
    # decoded so that every later layer sees plain values.
    if pa.types.is_dictionary(values.type):
        values = pc.cast(values, values.type.value_type)
    if parse is not None and _is_text(values.type):
        values = parse_strings(values, parse, what=what, source=source, field=field, rows=rows)
    require_no_nulls(values, source=source, field=field, rows=rows)
    return values


def _is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _to_int64(
    values: Column, *, what: str, source: str, field: str | None, rows: RowMap | None
) -> Column:
    # Fails for a uint64 above 2**63, or a decimal with a fraction.
    return cast_exactly(
        values,
        pa.int64(),
        lambda bad: InputError(
            f"{what} {values[bad].as_py()!r} does not fit a 64-bit integer",
            source=source,
            row=_row_of(rows, bad),
            field=field,
        ),
    )


def _wrong_type(
    what: str, values: Column, source: str, field: str | None, rows: RowMap | None
) -> InputError:
    # Nulls were rejected before, so the first element is a real, offending value.
    first = values[0].as_py() if len(values) else None
    return InputError(
        f"{what}, got {values.type} values (first: {first!r})",
        source=source,
        row=_row_of(rows, 0) if len(values) else None,
        field=field,
    )


def row_map_from_positions(positions: np.ndarray) -> RowMap:
    """A :data:`RowMap` from an array of 1-based row numbers, one per element."""
    return lambda index: int(positions[index])
