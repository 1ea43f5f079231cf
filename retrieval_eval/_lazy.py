"""Package attributes loaded on first use (PEP 562), so that importing a package costs nothing it does not need.

The command line lists metrics and options without loading pandas or numba; a script that
imports :func:`retrieval_eval.evaluate` loads the data layer when it first calls it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``exports[name]`` (a module relative to ``package``) on first use."""

    def __getattr__(name: str) -> Any:
        try:
            module = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        return getattr(importlib.import_module(module, package), name)

    return __getattr__
