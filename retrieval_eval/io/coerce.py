"""Give raw Arrow columns their canonical types: ids, scores and relevance labels.

Only types, parsing and nulls are checked here, column-wise. Value checks (NaN scores,
label ranges, duplicates) belong to the data layer.

Text rules, one per role, each implemented once here:

- A relevance label written as text (a TREC or CSV/TSV field, a JSON string, a string
  in a DataFrame, an Arrow table or a list of dicts: the same rule everywhere) is an
  optional ``-`` followed by one or more ASCII digits ``0-9``, within the int64 range
  (leading zeros allowed: ``007`` is 7), or else a finite number by the score rule below
  (``0.5``, ``2.0``, ``1e-1``: the mean of several assessors, a judge's probability). No
  spaces, no ``_``, no hex (``0x10``), no NaN or infinity. A column whose labels are all
  whole numbers is int64 (``2.0`` is 2); one with a label that is not is float64 (see
  :func:`labels_column`). trec_eval's ``atol`` would read ``0.5`` as 0 and ``1e3`` as 1:
  its front end refuses non-integer labels (:mod:`retrieval_eval.frontends.trec_eval.run`).
- A score written as text (TREC, CSV/TSV; other sources must give numbers) is an ASCII
  decimal number as Python's ``float()`` reads it (optional sign, digits with an optional
  fraction, optional exponent), or ``inf``, ``infinity`` or ``nan`` in any case with an
  optional sign; no spaces, no ``_``, no hex. It is rounded to the nearest float64, as
  C's ``strtod`` (trec_eval's ``atof``) does, except that an integer literal
  (``[+-]digits``) float64 cannot hold exactly, or a finite number too large for float64,
  is an error: either would silently change a ranking.

Typed (non-text) values: integer labels of any width become int64, floating and decimal
labels too when every one is integral, else float64 (finite); integer scores become float64 only when float64 holds them exactly
(beyond 2**53 most integers it does not), floating and decimal scores are converted
(decimals rounded to the nearest float64).

Row numbers in errors are 1-based. ``rows`` maps an element's position to the row a
user should look at (a line number in TREC text, the record of an Azure row); without
it the position + 1 is used (a data row of a table).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from retrieval_eval.errors import InputError
from retrieval_eval.io.arrays import arrow_array, numpy_view

Column = pa.Array | pa.ChunkedArray
RowMap = Callable[[int], int]
#: A parser of a text column: ``parser(values, source=, field=, rows=)`` -> typed column.
Parser = Callable[..., "Column"]

_INT64_LIMIT = 2.0**63  # floats at or above this (in magnitude) do not fit in int64
_EXACT_INT = 2**53  # every integer up to this magnitude is exact in float64; beyond, few are
_EXACT_LIMIT = float(_EXACT_INT)
#: What a score written as text must be, for messages.
SCORE_TEXT = "a number"


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


def parse_label_text(
    values: Column, *, source: str, field: str | None, rows: RowMap | None = None
) -> Column:
    """Relevance labels written as text, by the label rule of the module docstring: int64, or
    float64 when some label is not a whole number.

    The one place label text is read, for every source. Text that is all integers (an
    optional ``-`` and ASCII digits) takes the integer path it always took, to the bit.

    Raises
    ------
    InputError
        Naming the first value that is neither an integer nor a finite number, or an integer
        that does not fit a 64-bit integer. Nulls pass through (the caller rejects them).

    Examples
    --------
    ``"2"``, ``"-1"`` and ``"007"`` read as 2, -1 and 7; ``"2.0"`` as 2 (int64 when every label
    is whole); ``"0.5"`` as 0.5 (the column then float64); ``"0x10"``, ``" 2"``, ``"nan"`` and
    ``"1_000"`` are errors.
    """
    # Arrow's own cast also reads hex ("0x10"): the digit test after one '-' excludes it.
    digits = pc.ascii_is_decimal(pc.ascii_ltrim(values, characters="-"))
    # A null is valid here (or_kleene: null or true is true); scalars from Python values
    # would import pandas, so nothing here converts one.
    integer_text = pc.and_not(digits, pc.starts_with(values, "--"))
    valid = numpy_view(pc.or_kleene(integer_text, pc.is_null(values)))
    if valid.all():
        return _to_int64(values, what="relevance", source=source, field=field, rows=rows)
    # Beside fractions an integer literal must still fit int64 (read as a float it would be silently rounded).
    _to_int64(pc.if_else(integer_text, values, "0"), what="relevance", source=source, field=field, rows=rows)
    numbers = parse_strings(
        values, pa.float64(), what="relevance must be a number", source=source, field=field, rows=rows
    )
    return labels_column(numbers, source=source, field=field, rows=rows, text=values)


def labels_column(
    values: Column, *, source: str, field: str | None, rows: RowMap | None = None, text: Column | None = None
) -> Column:
    """Floating (or decimal) labels as int64 when every one is a whole number within int64, else as float64.

    Whole numbers given as floats (``1.0``) so give the same int64 labels, and the same
    results to the bit, as integers. A NaN or an infinite label is an error (it is no grade),
    quoting ``text`` (the column as written) when the labels were parsed from it.
    """
    floats = numpy_view(pc.cast(values, pa.float64(), safe=False), fill=0.0)
    finite = np.isfinite(floats)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        raise InputError(
            f"relevance must be a finite number, got {(values if text is None else text)[bad].as_py()!r}",
            source=source, row=_row_of(rows, bad), field=field,
        )
    if ((np.abs(floats) < _INT64_LIMIT) & (np.floor(floats) == floats)).all():
        return pc.cast(values, pa.int64(), safe=False)
    return pc.cast(values, pa.float64(), safe=False)


def concat_labels(chunks: list[pa.Array]) -> pa.ChunkedArray:
    """Label chunks read apart (int64 or float64 each) as one column: float64 when any chunk is."""
    kind = pa.float64() if any(pa.types.is_floating(chunk.type) for chunk in chunks) else pa.int64()
    return pa.chunked_array([chunk.cast(kind) for chunk in chunks], type=kind)


def parse_score_text(
    values: Column, *, source: str, field: str | None, rows: RowMap | None = None, what: str = "score"
) -> Column:
    """Scores written as text, as float64, by the score rule of the module docstring.

    The one place score text is read, for every source.

    ``what`` names the value in messages (``"score"``, ``"relevance level"``).

    Raises
    ------
    InputError
        Naming the first value that is not a number, an integer float64 cannot hold
        exactly (``"1152921504606846977"``, 2**60 + 1), or a finite number beyond float64
        (``"1e400"``). Nulls pass through (the caller rejects them).
    """
    scores = parse_strings(values, pa.float64(), what=f"{what} must be {SCORE_TEXT}", source=source, field=field, rows=rows)
    # Only an integer literal of magnitude 2**53 or more can be rounded, and only text read
    # as infinite or NaN can be an overflow (or Arrow's "nan(...)"): such scores are rare,
    # so they alone are looked at one by one (decimals beyond 2**53, "1.5e20", are not).
    floats = numpy_view(scores, fill=0.0)
    large = np.flatnonzero(~(np.abs(floats) < _EXACT_LIMIT))
    if large.size == 0:
        return scores
    integral = numpy_view(pc.ascii_is_decimal(pc.ascii_ltrim(values.take(arrow_array(large)), characters="+-")), fill=False)
    for index in large[integral | ~np.isfinite(floats[large])].tolist():
        text = values[index].as_py()
        problem = _score_text_problem(text, float(floats[index]))
        if problem is not None:
            raise InputError(
                f"{what} {text!r} {problem}", source=source, row=_row_of(rows, index), field=field
            )
    return scores


def _score_text_problem(text: str, value: float) -> str | None:
    """Why the text of a large or non-finite score is rejected, or None when it is not."""
    word = text.lstrip("+-").lower()
    if word.isdigit():  # an integer literal: ASCII only, as Arrow parsed it
        return None if int(text) == value else "is an integer that float64 cannot hold exactly (beyond 2**53)"
    if math.isinf(value) and word not in ("inf", "infinity"):
        return "is too large for float64"
    if math.isnan(value) and word != "nan":
        return f"must be {SCORE_TEXT}"  # Arrow also reads "nan(...)"; Python's float() does not
    return None


def require_exact_floats(
    values: Column, *, source: str, field: str | None, rows: RowMap | None = None
) -> None:
    """Raise if an integer column has a value float64 cannot hold exactly (naming the first).

    Integers of magnitude up to 2**53 are all exact; beyond, only some are (2**60 is,
    2**60 + 1 is not). A score that float64 rounds would tie with, or pass, its neighbour.
    """
    if values.type.bit_width < 64:
        return  # every int32 and uint32 is exact in float64
    ints = numpy_view(values, fill=0)
    large = ints > _EXACT_INT
    if pa.types.is_signed_integer(values.type):
        large |= ints < -_EXACT_INT
    large = np.flatnonzero(large)
    if large.size == 0:
        return
    candidates = ints[large]
    floats = candidates.astype(np.float64)
    # 2**63 (int64) and 2**64 (uint64) are where the largest integers round to; they do not
    # cast back, and are never exact.
    inside = floats < float(np.iinfo(ints.dtype).max)
    exact = inside & (np.where(inside, floats, 0).astype(ints.dtype) == candidates)
    if not exact.all():
        bad = int(large[np.flatnonzero(~exact)[0]])
        raise InputError(
            f"score {int(ints[bad])} is an integer that float64 cannot hold exactly (beyond 2**53); "
            "scores are compared as float64",
            source=source,
            row=_row_of(rows, bad),
            field=field,
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
    values = _prepared(values, None, source, field, rows)
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
    """Scores: numbers become float64 (NaN is left for the data layer).

    Integers must be exact in float64 (:func:`require_exact_floats`). ``from_text``
    (TREC, CSV/TSV) parses a string column by the score rule (:func:`parse_score_text`);
    from typed sources (JSON, parquet, tables) a string column is an error.
    """
    values = _prepared(values, parse_score_text if from_text else None, source, field, rows)
    kind = values.type
    if pa.types.is_integer(kind):
        require_exact_floats(values, source=source, field=field, rows=rows)
        return pc.cast(values, pa.float64(), safe=False)  # checked exact just above
    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        # Unsafe on purpose: a decimal rounds to the nearest float64, as decimal text does.
        return pc.cast(values, pa.float64(), safe=False)
    raise _wrong_type("scores must be numeric", values, source, field, rows)


def parse_level_text(
    values: Column, *, source: str, field: str | None, rows: RowMap | None = None
) -> Column:
    """Preference relevance levels written as text (trec_eval's prefs ``rel_level``, a double), as float64.

    The score rule of the module docstring, without NaN: a level is compared with others (and
    with 0, the non-relevant level), which NaN cannot be.
    """
    levels = parse_score_text(values, source=source, field=field, rows=rows, what="relevance level")
    _refuse_nan_levels(levels, source, field, rows)
    return levels


def as_levels(
    values: Column,
    *,
    source: str,
    field: str | None,
    rows: RowMap | None = None,
    from_text: bool = False,
) -> Column:
    """Preference relevance levels: numbers become float64 (as scores do), NaN is an error.

    A string column is parsed by :func:`parse_level_text` from text sources (TREC, CSV/TSV)
    and is an error from typed ones, as for scores.
    """
    values = _prepared(values, parse_level_text if from_text else None, source, field, rows)
    if not (pa.types.is_integer(values.type) or pa.types.is_floating(values.type) or pa.types.is_decimal(values.type)):
        raise _wrong_type("relevance levels must be numeric", values, source, field, rows)
    levels = as_scores(values, source=source, field=field, rows=rows)
    _refuse_nan_levels(levels, source, field, rows)
    return levels


def _refuse_nan_levels(levels: Column, source: str, field: str | None, rows: RowMap | None) -> None:
    nan = np.isnan(numpy_view(levels, fill=0.0))
    if nan.any():
        raise InputError(
            "relevance level must be a number, got NaN (levels are compared with each other)",
            source=source,
            row=_row_of(rows, int(np.flatnonzero(nan)[0])),
            field=field,
        )


def as_relevance(
    values: Column,
    *,
    source: str,
    field: str | None,
    rows: RowMap | None = None,
    from_text: bool = False,
) -> Column:
    """Relevance labels: integers become int64; floats and decimals int64 when every one is
    integral, else float64 (:func:`labels_column`).

    A string column is parsed by the label rule (:func:`parse_label_text`) whatever the
    source, so label text means the same in TREC, CSV/TSV, JSON and a DataFrame.
    ``from_text`` is accepted for a uniform signature.
    """
    values = _prepared(values, parse_label_text, source, field, rows)
    kind = values.type
    if pa.types.is_integer(kind):
        return _to_int64(values, what="relevance", source=source, field=field, rows=rows)
    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return labels_column(values, source=source, field=field, rows=rows)
    raise _wrong_type("relevance labels must be numbers", values, source, field, rows)


def _prepared(
    values: Column,
    parse: Parser | None,
    source: str,
    field: str | None,
    rows: RowMap | None,
) -> Column:
    """Decode dictionaries, parse text with ``parse`` (if given), and reject nulls."""
    # Dictionary-encoded columns (pandas categoricals, parquet dictionaries) are
    # decoded so that every later layer sees plain values.
    if pa.types.is_dictionary(values.type):
        values = pc.cast(values, values.type.value_type)
    if parse is not None and _is_text(values.type):
        values = parse(values, source=source, field=field, rows=rows)
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
