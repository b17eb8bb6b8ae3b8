"""Deferred values: `env("NAME")` is resolved when the agent loads, never at build."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ENV_MARKER = "$env"


@dataclass(frozen=True)
class Env:
    """A reference to an environment variable; artifacts record only the name."""

    name: str

    def __repr__(self) -> str:
        return f"env({self.name!r})"

    def to_json(self) -> dict[str, str]:
        return {ENV_MARKER: self.name}


class MissingEnvError(LookupError):
    def __init__(self, name: str) -> None:
        super().__init__(f"environment variable `{name}` is not set")
        self.name = name


def env(name: str) -> Env:
    """Refer to an environment variable, read when the agent loads."""
    return Env(name)


def is_env_json(value: object) -> bool:
    return isinstance(value, dict) and set(value) == {ENV_MARKER}


def resolve_env(value: Any, environ: Mapping[str, str] | None = None) -> Any:
    """Replace Env values (and their JSON form) by the variable's value, recursively."""
    source = os.environ if environ is None else environ
    if isinstance(value, Env) or is_env_json(value):
        name = value.name if isinstance(value, Env) else value[ENV_MARKER]
        if name not in source:
            raise MissingEnvError(name)
        return source[name]
    if isinstance(value, dict):
        return {k: resolve_env(v, source) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [resolve_env(v, source) for v in value]
    return value


def serialize_deferred(value: Any) -> Any:
    """A JSON-able copy where each Env is `{"$env": NAME}` and never a value."""
    if isinstance(value, Env):
        return value.to_json()
    if isinstance(value, dict):
        return {str(k): serialize_deferred(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [serialize_deferred(v) for v in value]
    return value
