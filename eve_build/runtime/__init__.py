"""The runtime host: load a compiled agent, call its tools through the hooks, keep state.

    from eve_build.runtime import load_agent

    with load_agent(Path("my-agent")) as agent:
        result = agent.call_tool("crm__search", {"query": "ada"}, approver=lambda r: True)

See docs/runtime.md for hook semantics, budgets, the trace and state migration.

Layer 4, run side, its lowest room: may import the authored layer, formats and the
foundation; never `local`, `node` or `connections` (but the loader's composition, a
listed debt) and never the build side (but the upgrade check, a listed debt).
"""

from __future__ import annotations

from eve_build.runtime.agent import Agent, EventOutcome, ToolNotFoundError
from eve_build.runtime.approval import ApprovalRequest, Approver
from eve_build.runtime.loader import HOOK_BUDGET, load_agent, open_agent, read_compiled_agent
from eve_build.runtime.migration import migrate_snapshot
from eve_build.runtime.snapshot import read_snapshot, write_snapshot

__all__ = [
    "HOOK_BUDGET", "Agent", "ApprovalRequest", "Approver", "EventOutcome", "ToolNotFoundError",
    "load_agent", "migrate_snapshot", "open_agent", "read_compiled_agent", "read_snapshot",
    "write_snapshot",
]


def __dir__() -> list[str]:
    return list(__all__)
