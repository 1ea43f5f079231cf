"""The one registry of fusion methods: every :class:`~retrieval_eval.fusion.method.FusionMethod`, by name and alias.

The score-based methods (:mod:`.scores`), the voting methods (:mod:`.voting`) and the trained
ones (:mod:`.trained`) each export ``METHODS``; this module collects them. Names are ranx's
method strings (``ranx.fuse(method=...)``); aliases and case are forgiven.
"""

from __future__ import annotations

import importlib

from .method import FusionMethod, unknown_name
from .scores import METHODS as _SCORE_METHODS


def _collect() -> tuple[FusionMethod, ...]:
    methods = list(_SCORE_METHODS)
    for module in (".voting", ".trained"):
        try:
            methods.extend(importlib.import_module(module, __package__).METHODS)
        except ModuleNotFoundError as error:  # not written yet; any other import error is a bug to show
            if error.name != f"{__package__}{module}":
                raise
    return tuple(methods)


#: Every method, in registry order (score-based, voting, trained).
METHODS: tuple[FusionMethod, ...] = _collect()
#: Each method by its canonical name.
METHODS_BY_NAME: dict[str, FusionMethod] = {method.name: method for method in METHODS}
_BY_ANY_NAME: dict[str, FusionMethod] = {name.lower(): method for method in METHODS for name in method.names}


def fusion_method(name: str | FusionMethod) -> FusionMethod:
    """The method of a name or alias (any case); an unknown name is a ConfigError with the closest names.

    Examples
    --------
    >>> fusion_method("CombMNZ").name
    'mnz'
    >>> fusion_method("rff")
    Traceback (most recent call last):
    ...
    retrieval_eval.errors.ConfigError: unknown fusion method 'rff'; did you mean 'rrf'? ...
    """
    if isinstance(name, FusionMethod):
        return name
    method = _BY_ANY_NAME.get(name.lower()) if isinstance(name, str) else None
    if method is None:
        raise unknown_name("method", name, list(METHODS_BY_NAME), [alias for m in METHODS for alias in m.aliases])
    return method
