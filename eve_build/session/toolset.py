"""The loaded agent's tools as one pydantic-ai toolset.

Every tool of a surface (`agent.surface(subagent)`: the agent's, the mounts', local
and node tools, and whatever else the runtime adds there) becomes a pydantic-ai tool
with its input model's JSON schema. Each call goes through `agent.acall_tool`, so the
hooks, approvals, budgets and timeouts of section 6 apply. What the model is told:

- `ok`: the value, or the content parts (session/content.py);
- `blocked`, `refused`, `failed`: the host's reason, as a failed tool result
  (pydantic-ai's ToolFailed) the model adapts to; the run goes on;
- arguments that do not fit the input model: a retry (pydantic-ai's ValidationError
  or ModelRetry), within the tool's retry budget. An unknown tool name is answered
  as a retry by pydantic-ai itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic_ai import RunContext
from pydantic_ai.exceptions import ModelRetry, ToolFailed
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.toolsets.abstract import ToolsetTool

from eve_build.runtime.agent import Agent
from eve_build.runtime.approval import Approver
from eve_build.sdk.definitions import Tool
from eve_build.session.content import derive_model_return, derive_record_content
from eve_build.session.transcript import Listener, SessionEvent, ToolCallRecord

TOOL_RETRIES = 3
"""How often the model may retry one tool with bad arguments before the run fails."""
ARGUMENT_ERRORS = ("invalid arguments", "no definition of the dynamic tool accepts")
"""How the host's reason starts when the arguments did not fit (answered as a retry)."""
OPEN_SCHEMA: dict[str, Any] = {"type": "object", "properties": {},
                               "additionalProperties": True}
_OBJECT = TypeAdapter(dict[str, Any]).validator


@dataclass
class RunState:
    """What the tools of one run share: who approves, who listens, what was called."""

    approver: Approver | None
    listener: Listener
    after_call: Callable[[], Awaitable[None]]
    tool_calls: list[ToolCallRecord] = field(default_factory=list)


class ArgumentsValidator:
    """Parses the model's arguments to a JSON object and checks them against the input
    model; a pydantic ValidationError here is answered to the model as a retry."""

    def __init__(self, model: type[BaseModel] | None) -> None:
        self.model = model

    def validate_json(self, input: str | bytes | bytearray, *,
                      allow_partial: Any = False, **kwargs: Any) -> Any:  # noqa: ARG002
        return self._check(_OBJECT.validate_json(input or "{}", allow_partial=allow_partial),
                           allow_partial)

    def validate_python(self, input: Any, *, allow_partial: Any = False,
                        **kwargs: Any) -> Any:  # noqa: ARG002
        return self._check(_OBJECT.validate_python(input or {}, allow_partial=allow_partial),
                           allow_partial)

    def _check(self, value: dict[str, Any], allow_partial: Any) -> dict[str, Any]:
        if self.model is not None and allow_partial in (False, "off"):
            self.model.model_validate(value)  # raises ValidationError: a retry
        return value  # the host validates again and the hooks see what the model sent


class AgentToolset(AbstractToolset[Any]):
    """The tools of `agent.surface(subagent)`, listed afresh at every run step."""

    def __init__(self, agent: Agent, state: RunState, subagent: str | None = None) -> None:
        self.agent, self.state, self.subagent = agent, state, subagent
        self._cache: dict[tuple[str, int], ToolsetTool[Any]] = {}

    @property
    def id(self) -> str:
        return f"eve-{self.subagent or 'agent'}"

    async def get_tools(self, ctx: RunContext[Any]  # noqa: ARG002 (the toolset API)
                        ) -> dict[str, ToolsetTool[Any]]:
        # asurface: the agent's MCP connections open without blocking the event loop
        surface = await self.agent.asurface(self.subagent)
        tools: dict[str, ToolsetTool[Any]] = {}
        for name in sorted(surface.tools):
            definition = surface.tools[name].definition
            key = (name, id(definition))
            if isinstance(definition, Tool) and key in self._cache:
                tools[name] = self._cache[key]
                continue
            tool = await self._describe(name, definition)
            if isinstance(definition, Tool):
                self._cache[key] = tool
            tools[name] = tool
        return tools

    async def _describe(self, name: str, definition: object) -> ToolsetTool[Any]:
        static = isinstance(definition, Tool)
        shown: Tool | None = definition if isinstance(definition, Tool) else None
        if shown is None:  # dynamic: described by what it resolves to now
            try:
                shown = await self.agent.aresolve_tool(name, subagent=self.subagent)
            except Exception:  # a resolve that fails now fails its call with the reason
                shown = None
        model = shown.input if shown is not None else None
        schema = model.model_json_schema() if model is not None else dict(OPEN_SCHEMA)
        tool_def = ToolDefinition(name=name, description=(shown.description if shown else None)
                                  or "", parameters_json_schema=schema)
        return ToolsetTool(toolset=self, tool_def=tool_def, max_retries=TOOL_RETRIES,
                           args_validator=ArgumentsValidator(model if static else None))

    async def call_tool(self, name: str, tool_args: dict[str, Any],
                        ctx: RunContext[Any], tool: ToolsetTool[Any],  # noqa: ARG002
                        ) -> Any:
        from eve_build.runtime.agent import ToolNotFoundError

        listener, loop = self.state.listener, asyncio.get_running_loop()
        listener(SessionEvent("tool.start", {"name": name, "arguments": tool_args,
                                             "subagent": self.subagent}))

        def progress(text: str) -> None:  # on a worker thread for sync tools
            event = SessionEvent("tool.update", {"name": name, "text": text})
            loop.call_soon_threadsafe(listener, event)

        try:
            result = await self.agent.acall_tool(name, tool_args, subagent=self.subagent,
                                                 approver=self.state.approver,
                                                 on_progress=progress)
        except ToolNotFoundError as exc:  # gone since the tools were listed (a reload)
            raise ModelRetry(f"{exc.message}; {exc.hint}") from None
        record = ToolCallRecord(name, dict(tool_args), result.status, result.value,
                                result.error, self.subagent, derive_record_content(result))
        self.state.tool_calls.append(record)
        listener(SessionEvent("tool.end", record.to_json()))
        await self.state.after_call()
        if result.ok:  # the content, as the model takes it (session/content.py)
            return derive_model_return(result, getattr(ctx.model, "profile", None))
        reason = result.error or result.status
        if result.status == "failed" and reason.startswith(ARGUMENT_ERRORS):
            raise ModelRetry(reason)
        raise ToolFailed(f"{result.status}: {reason}")
