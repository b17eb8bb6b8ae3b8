"""The runtime host: load a compiled agent, call its tools through the hooks, keep state.

    from eve_build.runtime import load_agent

    with load_agent(Path("my-agent")) as agent:
        result = agent.call_tool("crm__search", {"query": "ada"}, approver=lambda r: True)

See docs/runtime.md for hook semantics, budgets, the trace and state migration.

`load_agent` and `open_agent` compose the runtime with the local extensions and the
connections' tools, so they live above all three, in `eve_build.host`; this package
answers them by name (`__getattr__`) and never imports the host.

Layer 4, run side, its lowest room: may import the authored layer, formats and the
foundation; never `host`, `local`, `node` or `connections`, never the build side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eve_build.runtime.agent import Agent, EventOutcome, ToolNotFoundError
from eve_build.runtime.approval import ApprovalRequest, Approver
from eve_build.runtime.loader import HOOK_BUDGET, read_compiled_agent
from eve_build.runtime.migration import migrate_snapshot
from eve_build.runtime.snapshot import read_snapshot, write_snapshot

if TYPE_CHECKING:
    from eve_build.host.loader import load_agent as load_agent
    from eve_build.host.loader import open_agent as open_agent

__all__ = [
    "HOOK_BUDGET", "Agent", "ApprovalRequest", "Approver", "EventOutcome", "ToolNotFoundError",
    "load_agent", "migrate_snapshot", "open_agent", "read_compiled_agent", "read_snapshot",
    "write_snapshot",
]


def __getattr__(name: str) -> Any:
    """`load_agent` and `open_agent`, from `eve_build.host` (which imports this package):
    fetched by name on first use, never imported here."""
    if name in ("load_agent", "open_agent"):
        import importlib

        return getattr(importlib.import_module("eve_build.host.loader"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(__all__)
