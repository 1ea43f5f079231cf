"""Checks shared by Qrels and Run when they are built from a canonical Arrow table."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..constraints import check_choice
from ..errors import DuplicateError, InputError
from ..kernels.core.duplicate_policy import KEEP_FIRST, KEEP_LAST, KEEP_MAX, RAISE
from ..policies import DUPLICATE_POLICIES

#: The kernel code of each policy of :data:`~retrieval_eval.policies.DUPLICATE_POLICIES`.
DUPLICATE_CODES = {"last": KEEP_LAST, "first": KEEP_FIRST, "max": KEEP_MAX, "raise": RAISE}


def duplicate_policy_code(policy: str, *, what: str) -> int:
    """Kernel code of a duplicates policy; ``what`` names the parameter in the error."""
    return DUPLICATE_CODES[check_choice(what, policy, DUPLICATE_POLICIES, bracketed=True)]


def require_columns(table: pa.Table, names: tuple[str, ...], source: str) -> None:
    missing = [name for name in names if name not in table.column_names]
    if missing:
        raise InputError(f"missing column(s) {missing}; found {table.column_names}", source=source)


def describe_row(table: pa.Table, row: int) -> str:
    """``query 'q' doc 'd'`` of a 0-based row, for error messages."""
    return f"query {table['query_id'][row].as_py()!r} doc {table['doc_id'][row].as_py()!r}"


def raise_on_duplicates(duplicate_rows: np.ndarray, table: pa.Table, source: str, what: str) -> None:
    """Raise naming the first repeated row, given each query's first repeated row (-1 for none).

    ``what`` says what happened to the document and under which policy, e.g.
    ``"is judged more than once (qrels duplicates='raise')"``.
    """
    repeated = duplicate_rows[duplicate_rows >= 0]
    if len(repeated):
        row = int(repeated.min())
        raise DuplicateError(f"{describe_row(table, row)} {what}", source=source, row=row + 1)


def first_true(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])
