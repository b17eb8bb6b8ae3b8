"""Validate `--json` payloads against the schemas shipped in eve_build/schemas/."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from eve_build.schemas import list_schemas, read_schema

REGISTRY: Registry[Any] = Registry().with_resources(
    (read_schema(name)["$id"], Resource.from_contents(read_schema(name)))
    for name in list_schemas()
)


def validate(schema: str, payload: Any) -> None:
    """Raise jsonschema.ValidationError unless `payload` matches `schema` (`build.json`)."""
    Draft202012Validator(read_schema(schema), registry=REGISTRY).validate(payload)
