"""What a mount file's `mount = crm(...)` evaluates to, and tool results."""

from __future__ import annotations

from collections.abc import Mapping
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


def tool_result_from(result: object, definition: object) -> Any:
    """The value of `result` if it came from `definition` (or a `.replace` of it), else None."""
    identity = getattr(definition, "identity", "")
    if isinstance(result, ToolResult) and identity and result.identity == identity:
        return result.value
    return None
