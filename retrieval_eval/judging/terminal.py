"""The terminal text of the agreement results: aligned columns of cells as :mod:`retrieval_eval.views` writes them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..views import Column, cell_text, fitted_table, terminal_width


def aligned(header: Sequence[str], rows: Iterable[Sequence[Any]], *, indent: str = "  ", width: int | None = None) -> list[str]:
    """``rows`` under ``header`` in aligned columns (numbers to the right), every cell escaped, fitted to
    ``width`` (default: the terminal's) as :func:`~retrieval_eval.views.fit_columns` fits them."""
    rows = [list(row) for row in rows]
    columns = [
        Column(str(name), [cell_text(row[i]) for row in rows],
               right=all(isinstance(row[i], (int, float)) and not isinstance(row[i], bool) for row in rows))
        for i, name in enumerate(header)
    ]  # fmt: skip
    return fitted_table(columns, terminal_width() if width is None else width, indent=indent)
