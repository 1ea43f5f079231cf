"""Names in natural order: runs of ASCII digits compare as numbers, so ``k20`` comes before ``k100``."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"([0-9]+)")


def natural_key(name: str) -> tuple[object, ...]:
    """The sort key of ``name``: its text and digit runs alternating (text first), each digit run as an int.

    Ties between names that differ only in leading zeros (``k07``, ``k7``) are left to the caller.
    """
    return tuple(int(piece) if i % 2 else piece for i, piece in enumerate(_DIGITS.split(name)))
