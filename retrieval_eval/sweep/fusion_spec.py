"""A fusion grid entry in one line of text, as the command line's ``--fuse`` takes it.

``METHOD[:KEY=VALUES]...``: the method, then ``:``-separated settings, each ``KEY=`` with
``,``-separated values, which the entry sweeps (:mod:`.grids`):

- ``norm=min-max,max,sum`` (``none`` for no normalization);
- ``step=0.1``: ranx's weight grid at that step (``{"weights": {"step": 0.1}}``);
- ``w=0.3/0.7,0.5/0.5`` (or ``weights=``): explicit weight vectors, one weight per run joined by
  ``/``, as configuration names show them (``w=`` without a ``/`` is a parameter named ``w``, such
  as SlideFuse's window);
- any parameter of the method: ``k=10,20,60,100``, ``gamma=0.5``.

``rrf:k=10,20,60,100`` is four configurations; ``wsum:norm=min-max,max,sum:step=0.1`` is 33 for
two runs. A value that reads as an integer or a decimal number is that number; anything else
is passed on as text for the method's own check to judge.
"""

from __future__ import annotations

import re
from typing import Any, NoReturn

from ..errors import ConfigError

_INTEGER = re.compile(r"^[+-]?\d+$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_fusion_spec(text: str) -> dict[str, Any]:
    """The grid entry ``text`` writes (module docstring); a malformed one is a one-line ConfigError quoting it.

    Examples
    --------
    >>> parse_fusion_spec("rrf:k=10,20,60,100")
    {'method': 'rrf', 'k': [10, 20, 60, 100]}
    >>> parse_fusion_spec("wsum:norm=min-max,max:step=0.1")
    {'method': 'wsum', 'norm': ['min-max', 'max'], 'weights': {'step': 0.1}}
    >>> parse_fusion_spec("wsum:w=0.3/0.7")
    {'method': 'wsum', 'weights': [[0.3, 0.7]]}
    >>> parse_fusion_spec("rrf:k")
    Traceback (most recent call last):
    ...
    retrieval_eval.errors.ConfigError: --fuse 'rrf:k': 'k' is not KEY=VALUES; write e.g. rrf:k=10,60 or wsum:norm=min-max:step=0.1
    """
    if not isinstance(text, str):
        raise ConfigError(f"a fusion spec is text such as 'rrf:k=10,60', got {text!r}")
    method, *settings = text.strip().split(":")
    if not method.strip():
        _refuse(text, "it begins with the fusion method (rrf, wsum, mnz, ...)")
    entry: dict[str, Any] = {"method": method.strip()}
    for setting in settings:
        key, equals, values = setting.partition("=")
        key = key.strip()
        if not equals or not _KEY.match(key):
            _refuse(text, f"{setting!r} is not KEY=VALUES; write e.g. rrf:k=10,60 or wsum:norm=min-max:step=0.1")
        items = [item.strip() for item in values.split(",")]
        if not all(items):
            _refuse(text, f"{key}= lists an empty value; values are separated by single commas")
        name, value = _setting(text, key, items)
        if name in entry:
            _refuse(text, f"{key}= is given twice" if name != "weights" else "the weights are given twice (step=, w= or weights=)")
        entry[name] = value
    return entry


def _setting(text: str, key: str, items: list[str]) -> tuple[str, Any]:
    """The entry key and value of one ``KEY=VALUES``."""
    if key == "norm":
        return "norm", items
    if key == "step":
        if len(items) != 1:
            _refuse(text, f"step= is one number (ranx's weight grid), got {len(items)}")
        return "weights", {"step": parameter_value(items[0])}
    vectors = ["/" in item for item in items]
    if key == "weights" or (key == "w" and any(vectors)):
        if not all(vectors):
            _refuse(text, f"{key}= lists weight vectors, one weight per run joined by '/' (0.3/0.7), got {','.join(items)!r}")
        return "weights", [[parameter_value(weight) for weight in item.split("/")] for item in items]
    return key, [parameter_value(item) for item in items]


def parameter_value(item: str) -> int | float | str:
    """The number ``item`` reads as (an int, else a float), or else the text itself (for the method's check to judge)."""
    if _INTEGER.match(item):
        return int(item)
    if _NUMBER.match(item):
        return float(item)
    return item


def _refuse(text: str, message: str) -> NoReturn:
    raise ConfigError(f"--fuse {text!r}: {message}")
