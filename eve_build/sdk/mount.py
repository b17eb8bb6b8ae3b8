"""What a mount file's `mount = crm(...)` evaluates to, and tool results."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Mount:
    """An extension mounted with a config (values may be `env(...)` references)."""

    package: str
    import_name: str
    version: str
    config: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool call as the host returns it.

    `identity` is the identity of the definition that ran, so a result of the
    namespaced `crm__search` still maps back to the package's `search`.
    """

    name: str
    status: str  # "ok" | "failed" | "blocked" | "refused"
    value: Any = None
    error: str | None = None
    identity: str = ""
    trace: tuple[Mapping[str, Any], ...] = ()
    progress: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == "ok"


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
