"""The pages' script and style sheets as real files beside this module: ``explorer.js`` and ``explorer.css``
(the explorer page, :mod:`retrieval_eval.report.explorer_page`) and ``sweep.css`` (the sweep's report,
:mod:`retrieval_eval.report.html`), shipped as package data and inlined into each page when it is built."""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def asset_text(name: str) -> str:
    """The text of the file ``name`` of this folder (UTF-8), read once."""
    return (files(__name__) / name).read_text(encoding="utf-8")
