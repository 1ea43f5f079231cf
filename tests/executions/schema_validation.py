"""Validation against the evaluation-document JSON schema (draft 2020-12), whole or one of its ``$defs``."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource


@cache
def _validators(folder: Path) -> tuple[dict[str, Any], Registry]:
    schema = json.loads((folder / "eval-document.schema.json").read_text(encoding="utf-8"))
    return schema, Registry().with_resource(schema["$id"], Resource.from_contents(schema))


def schema_errors(folder: Path, instance: Any, definition: str | None = None) -> list[str]:
    """Every violation of the schema (or of ``$defs/definition``) by ``instance``, as ``path: message``."""
    schema, registry = _validators(folder)
    target = schema if definition is None else {"$ref": f"{schema['$id']}#/$defs/{definition}"}
    validator = Draft202012Validator(target, registry=registry)
    return [f"{error.json_path}: {error.message}" for error in validator.iter_errors(instance)]
