"""The terminal text of the agreement results: aligned columns of cells as :mod:`retrieval_eval.views` writes them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..views import cell_text, one_line


def aligned(header: Sequence[str], rows: Sequence[Sequence[Any]], *, indent: str = "  ") -> list[str]:
    """``rows`` under ``header`` in aligned columns (numbers to the right), each cell on one line, cut if long."""
    texts = [[one_line(str(name)) for name in header]] + [[one_line(cell_text(cell)) for cell in row] for row in rows]
    numeric = [all(isinstance(row[i], (int, float)) and not isinstance(row[i], bool) for row in rows) for i in range(len(header))]
    widths = [max(len(row[i]) for row in texts) for i in range(len(header))]
    return [
        (indent + "  ".join(cell.rjust(w) if right else cell.ljust(w) for cell, w, right in zip(row, widths, numeric))).rstrip()
        for row in texts
    ]
