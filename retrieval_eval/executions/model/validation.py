"""Validation told the library's way: pydantic's errors as a field path and the first message, and arguments."""

from __future__ import annotations

import os

from pydantic import ValidationError

from ...errors import ConfigError


def first_error(exc: ValidationError) -> tuple[str | None, str]:
    """The path of the first invalid field (``a[0].b``; None for the object itself) and its message.

    Later errors are left out: pydantic may report one mistake twice (an invalid item, then
    the list as too short without it), so their count would mislead.
    """
    first = exc.errors()[0]
    return field_path(first["loc"]) or None, first["msg"].removeprefix("Value error, ")


def field_path(loc: tuple[int | str, ...]) -> str:
    """``("a", 0, "b")`` as ``"a[0].b"``."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else part)
    return path


def known(value: str, choices: tuple[str, ...], what: str, plural: str) -> str:
    """``value`` if it is one of ``choices``; else ValueError "unknown <what> 'x'; known <plural>: a, b"."""
    if value not in choices:
        raise ValueError(f"unknown {what} {value!r}; known {plural}: {', '.join(choices)}")
    return value


def path_argument(value: object, argument: str) -> str:
    """``value`` as a path string when it is a str or an ``os.PathLike``; else ConfigError naming ``argument``."""
    if not isinstance(value, (str, os.PathLike)):
        raise ConfigError(f"{argument} must be a path (str or os.PathLike), got {type(value).__name__}")
    return os.fspath(value)
