"""The loaded agent's tools as one pydantic-ai toolset, for a session's run.

The toolset itself is the agent's (eve_build.runtime.toolset, `Agent.toolset()`): every
tool of `agent.surface(subagent)` under eve's name, each call through
`agent.acall_tool` (hooks, approvals, budgets, timeouts), and what the model is told
of a result (`derive_model_answer`: the value, a retry or a failed tool result). The
session adds its run state: the approver of the turn (none: a call needing approval
is refused, never deferred), `tool.start` / `tool.update` / `tool.end` events to the
listener, the calls made, and a flush after each call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from eve_build.runtime.agent import Agent
from eve_build.runtime.approval import Approver
from eve_build.runtime.model_content import derive_record_content
from eve_build.runtime.toolset import TOOL_RETRIES as TOOL_RETRIES  # the session's too
from eve_build.runtime.toolset import EveToolset
from eve_build.sdk.mount import ToolResult
from eve_build.session.transcript import Listener, SessionEvent, ToolCallRecord


@dataclass
class RunState:
    """What the tools of one run share: who approves, who listens, what was called."""

    approver: Approver | None
    listener: Listener
    after_call: Callable[[], Awaitable[None]]
    tool_calls: list[ToolCallRecord] = field(default_factory=list)


class AgentToolset(EveToolset):
    """The agent's toolset for one session: the run's approver, events and records."""

    def __init__(self, agent: Agent, state: RunState, subagent: str | None = None) -> None:
        super().__init__(agent, subagent, defer=False, ask_ways=None)
        self.state = state

    def current_approver(self) -> Approver | None:
        return self.state.approver

    def started(self, name: str, arguments: dict[str, Any]) -> None:
        self.state.listener(SessionEvent("tool.start", {
            "name": name, "arguments": arguments, "subagent": self.subagent}))

    def progressed(self, name: str, text: str) -> None:
        self.state.listener(SessionEvent("tool.update", {"name": name, "text": text}))

    async def ended(self, name: str, arguments: dict[str, Any], result: ToolResult) -> None:
        record = ToolCallRecord(name, dict(arguments), result.status, result.value,
                                result.error, self.subagent, derive_record_content(result))
        self.state.tool_calls.append(record)
        self.state.listener(SessionEvent("tool.end", record.to_json()))
        await self.state.after_call()
