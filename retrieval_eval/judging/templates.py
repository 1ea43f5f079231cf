"""Prompt templates: a system message and a user message with ``{field}`` slots filled from an item's texts.

A template is identified by its ``name`` and the SHA-256 of its text (``hash``), both in the
judge's fingerprint: editing a prompt makes a new judge whose answers are cached apart.
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import ConfigError, InputError


@dataclass(frozen=True)
class PromptTemplate:
    """``system`` and ``user`` messages; ``{name}`` slots are filled with the item's fields (``{{`` is a brace)."""

    name: str
    system: str
    user: str

    @property
    def fields(self) -> tuple[str, ...]:
        """The slots, in order of first appearance."""
        seen: list[str] = []
        for text in (self.system, self.user):
            for _, slot, _, _ in string.Formatter().parse(text):
                if slot is not None and slot not in seen:
                    if not slot.isidentifier():
                        raise ConfigError(f"template {self.name!r}: slot {{{slot}}} is not a plain name")
                    seen.append(slot)
        return tuple(seen)

    @property
    def hash(self) -> str:
        return hashlib.sha256(f"{self.system}\0{self.user}".encode("utf-8")).hexdigest()[:16]

    def messages(self, item: Mapping[str, str], where: str = "item") -> list[dict[str, str]]:
        """The messages for ``item``: every slot must be given as a non-empty string (``where`` names the item in errors)."""
        values = {}
        for slot in self.fields:
            value = item.get(slot)
            if not isinstance(value, str):
                raise InputError(f"{where}: the judge's prompt needs the text '{slot}', got {type(value).__name__}")
            if not value.strip():
                raise InputError(f"{where}: the text '{slot}' is empty; an empty text cannot be judged")
            values[slot] = value
        messages = [{"role": "system", "content": self.system.format(**values)}] if self.system else []
        return messages + [{"role": "user", "content": self.user.format(**values)}]
