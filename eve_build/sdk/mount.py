"""What a mount file's `mount = crm(...)` evaluates to, and which tool made a result."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from eve_build.sdk.results import ToolResult

__all__ = ["Mount", "ToolResult", "result_identity", "tool_result_from"]


@dataclass(frozen=True)
class Mount:
    """An extension mounted with a config (values may be `env(...)` references)."""

    package: str
    import_name: str
    version: str
    config: Mapping[str, Any] = field(default_factory=dict)


_RESULT_IDENTITY: ContextVar[tuple[object, str] | None] = ContextVar(
    "eve_build_result_identity", default=None)
"""While an `action.result` handler runs: (the result it was given, the identity of the
tool that produced it), so `tool_result_from(event.result, search)` recognises it."""


@contextlib.contextmanager
def result_identity(result: object, identity: str) -> Iterator[None]:
    """Mark `result` as produced by the definition `identity` for the handlers run inside."""
    token = _RESULT_IDENTITY.set((result, identity))
    try:
        yield
    finally:
        _RESULT_IDENTITY.reset(token)


def tool_result_from(result: object, definition: object) -> Any:
    """The value of `result` if it came from `definition` (or a `.replace` of it), else None.

    `result` is a ToolResult, or the `event.result` an `action.result` handler was given.
    """
    identity = getattr(definition, "identity", "")
    if not identity:
        return None
    if isinstance(result, ToolResult):
        return result.value if result.identity == identity else None
    current = _RESULT_IDENTITY.get()
    if current is not None and current[0] is result and current[1] == identity:
        return result
    return None
