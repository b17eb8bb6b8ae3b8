"""Which config fields hold secrets, judged by their name or their type.

`eve add` writes such a field as `env("NS_FIELD")`, never as a value, and no error
about such a field (a mount's config, a default that does not validate) repeats any
text derived from its value: validators may echo what they were given.
"""

from __future__ import annotations

import re
import typing
from typing import Any

_SECRET_WORDS = re.compile(r"key|token|secret|password", re.IGNORECASE)
_SECRET_TYPES = ("SecretStr", "SecretBytes", "Secret")


def is_secret_name(name: str) -> bool:
    """A name that tells: `api_key`, `token`, `client_secret`, `password`."""
    return bool(_SECRET_WORDS.search(name))


def is_secret_property(name: str, prop: dict[str, Any]) -> bool:
    """Secret-like in a JSON Schema: `SecretStr` (`format: password`, `writeOnly`) or a
    telling name."""
    return (prop.get("format") == "password" or prop.get("writeOnly") is True
            or is_secret_name(name))


def is_secret_annotation(annotation: object) -> bool:
    """`SecretStr`, `SecretBytes`, `Secret[...]`, also inside `Optional`/`Annotated`."""
    origin = typing.get_origin(annotation) or annotation
    if getattr(origin, "__name__", "") in _SECRET_TYPES:
        return True
    return any(is_secret_annotation(arg) for arg in typing.get_args(annotation))


def is_secret_field(model: Any, name: str) -> bool:
    """Whether field `name` (or its alias) of pydantic model `model` is secret-like."""
    fields = getattr(model, "model_fields", {}) or {}
    for field_name, info in fields.items():
        if name in (field_name, info.alias):
            return is_secret_name(field_name) or is_secret_annotation(info.annotation)
    return is_secret_name(name)


def describe_given(value: object) -> str:
    """What an author passed, in words, without its repr (an instance may hold secrets)."""
    if isinstance(value, type):
        return f"the class `{value.__name__}`"
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    return f"an instance of `{type(value).__name__}`"
