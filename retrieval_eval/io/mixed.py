"""Explain why Python values (list of dicts, pandas object column) did not convert to Arrow.

Arrow says *that* a column mixes types, not *where*. This runs only after a conversion
failed, so its Python loop over the values costs nothing on the normal path.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from retrieval_eval.errors import InputError
from retrieval_eval.io.pandas_objects import is_pandas_missing

if TYPE_CHECKING:
    import pandas as pd

_LISTS = (list, tuple, np.ndarray)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def kind_of(value: object) -> str | None:
    """A coarse type name for conflict messages; None for a missing value."""
    if value is None or is_pandas_missing(value):
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (bool, np.bool_)):
        return "bool"  # before int: bool is an int subclass
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, _LISTS):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _family(kind: str) -> str:
    # Arrow converts a mix of ints and floats to float64 without complaint.
    return "number" if kind in ("int", "float") else kind


def _pair(first: str, second: str) -> str:
    return "/".join(sorted((first, second)))  # "int/str" whichever came first


def first_conflict(values: Iterable[object]) -> tuple[int, str, str, object] | None:
    """``(position, first kind, conflicting kind, value)`` of the first type conflict."""
    first: str | None = None
    for position, value in enumerate(values):
        kind = kind_of(value)
        if kind is None:
            continue
        if first is None:
            first = kind
        elif _family(kind) != _family(first):
            return position, first, kind, value
    return None


def conversion_error(
    values: Sequence | pd.Series, role: str, label: str, field: str, exc: Exception
) -> InputError:
    """The InputError to raise when ``pa.array(values)`` failed with ``exc``."""
    values = list(values)
    if role == "nested":
        return _nested_error(values, label, field, exc)
    if role == "list":
        return _list_error(values, label, field, exc)
    if role == "text":  # a text column holds no ids: its first value that is no text is the error
        for position, value in enumerate(values):
            if kind_of(value) not in (None, "str"):
                return InputError(
                    f"expected text, got {type(value).__name__} {value!r}", source=label, row=position + 1, field=field
                )
    for position, value in enumerate(values):
        if kind_of(value) == "int" and not _INT64_MIN <= value <= _INT64_MAX:
            return InputError(f"{value} does not fit a 64-bit integer", source=label, row=position + 1, field=field)
    conflict = first_conflict(values)
    if conflict is None:
        return InputError(f"cannot convert column: {exc}", source=label, field=field)
    position, first, kind, value = conflict
    noun = "ids" if role == "id" else "values"
    return InputError(
        f"mixed {_pair(first, kind)} {noun} in one column (this row has {value!r})",
        source=label,
        row=position + 1,
        field=field,
    )


def _list_error(values: list, label: str, field: str, exc: Exception) -> InputError:
    """Find the first row that is not a list, or whose items mix kinds with the items before (an id 1 and an id "a")."""
    seen: str | None = None
    for number, value in enumerate(values, start=1):
        kind = kind_of(value)
        if kind is None:
            continue
        if kind != "list":
            return InputError(f"expected a list, got {type(value).__name__}", source=label, row=number, field=field)
        for position, item in enumerate(value, start=1):
            item_kind = kind_of(item)
            if item_kind is None:
                continue
            seen = seen or item_kind
            if _family(item_kind) != _family(seen):
                return InputError(
                    f"mixed {_pair(seen, item_kind)} items in the lists (item {position} of this row is {item!r})",
                    source=label, row=number, field=field,
                )  # fmt: skip
    return InputError(f"cannot convert column: {exc}", source=label, field=field)


def _nested_error(values: list, label: str, field: str, exc: Exception) -> InputError:
    """Find the first row that is not a list of objects with consistently typed keys."""
    key_kinds: dict[str, str] = {}
    for number, value in enumerate(values, start=1):
        kind = kind_of(value)
        if kind is None:
            continue
        if kind != "list":
            return InputError(
                f"expected a list of objects, got {type(value).__name__}",
                source=label, row=number, field=field,
            )
        for item_number, item in enumerate(value, start=1):
            if not isinstance(item, dict):
                return InputError(
                    f"item {item_number} is not an object (got {type(item).__name__})",
                    source=label, row=number, field=field,
                )
            for key, item_value in item.items():
                item_kind = kind_of(item_value)
                if item_kind is None:
                    continue
                seen = key_kinds.setdefault(key, item_kind)
                if _family(seen) != _family(item_kind):
                    return InputError(
                        f"mixed {_pair(seen, item_kind)} values for '{key}' "
                        f"(item {item_number} has {item_value!r})",
                        source=label, row=number, field=f"{field}.{key}",
                    )
    return InputError(f"cannot convert column: {exc}", source=label, field=field)
