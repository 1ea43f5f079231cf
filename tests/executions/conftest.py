"""Fixtures of the execution and document tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .schema_validation import schema_errors


@pytest.fixture(scope="session")
def conforms(eval_schema: Path) -> Callable[[object, str], None]:
    """A check that an object is valid against one of the schema's ``$defs`` (AssertionError listing the violations)."""

    def check(instance: object, definition: str) -> None:
        errors = schema_errors(eval_schema, instance, definition)
        assert not errors, errors

    return check
