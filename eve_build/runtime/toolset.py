"""The loaded agent's tools as one pydantic-ai toolset (`Agent.toolset()`).

    from pydantic_ai import Agent as ModelAgent

    with load_agent(Path("my-agent")) as agent:
        model_agent = ModelAgent("openai:gpt-4o", toolsets=[agent.toolset()])

Every tool of a surface (`agent.surface(subagent)`: the agent's, the mounts', local and
node tools, the connections') becomes a pydantic-ai tool under eve's name, with its
input model's JSON schema. Each call goes through `agent.acall_tool`, so the hooks,
approvals, budgets and timeouts of DESIGN section 6 apply. What the model is told
(`derive_model_answer`, the one place a result becomes the model's value):

- `ok`: the value, or the content parts (runtime/model_content.py);
- `blocked`, `refused`, `failed`: the host's reason, as a failed tool result
  (pydantic-ai's ToolFailed) the model adapts to; the run goes on;
- arguments that do not fit the input model: a retry (pydantic-ai's ValidationError or
  ModelRetry), within the tool's retry budget. An unknown tool name is answered as a
  retry by pydantic-ai itself.

A call that needs approval (`always()`, `once()` not yet answered) asks the `approver`
when one is given; without one it is deferred: pydantic-ai ends the run with a
`DeferredToolRequests` (the run's `output_type` must admit it) and the caller resumes
with `DeferredToolResults(approvals={call_id: True})`. The session (eve_build.session)
uses the same toolset with deferral off: there, no approver means refused.

This module imports pydantic-ai at its top: only `Agent.toolset()` and the session
import it, so loading an agent never does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, TypeAdapter
from pydantic_ai import RunContext
from pydantic_ai.exceptions import ApprovalRequired, ModelRetry, ToolFailed
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.toolsets.abstract import ToolsetTool

from eve_build.runtime.approval import ApprovalRequest, Approver
from eve_build.runtime.calls import ToolNotFoundError
from eve_build.runtime.model_content import derive_model_return
from eve_build.sdk.definitions import Tool
from eve_build.sdk.interaction import Ask, interacting
from eve_build.sdk.mount import ToolResult

if TYPE_CHECKING:  # the agent imports this module (Agent.toolset), never the reverse
    from eve_build.runtime.agent import Agent

TOOL_RETRIES = 3
"""How often the model may retry one tool with bad arguments before the run fails."""
ARGUMENT_ERRORS = ("invalid arguments", "no definition of the dynamic tool accepts")
"""How the host's reason starts when the arguments did not fit (answered as a retry)."""
OPEN_SCHEMA: dict[str, Any] = {"type": "object", "properties": {},
                               "additionalProperties": True}
ASK_WAYS = ("give the toolset an answerer: `agent.toolset(ask=...)`, or serve the agent "
            "where a person can answer (`eve chat`, an HTTP session, an MCP client that "
            "supports elicitation)")
"""What a `ctx.ask` nobody answers says to do, under the toolset."""
_OBJECT = TypeAdapter(dict[str, Any]).validator


def derive_model_answer(result: ToolResult, profile: Any = None) -> Any:
    """What the model is told of one finished call: the value or the content parts as the
    model takes them (runtime/model_content.py), a retry or a failure."""
    if result.ok:
        return derive_model_return(result, profile)
    reason = result.error or result.status
    if result.status == "failed" and reason.startswith(ARGUMENT_ERRORS):
        raise ModelRetry(reason)
    raise ToolFailed(f"{result.status}: {reason}")


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


def _approve(request: ApprovalRequest) -> bool:  # noqa: ARG001 (an Approver)
    return True


class EveToolset(AbstractToolset[Any]):
    """The tools of `agent.surface(subagent)`, listed afresh at every run step.

    `defer`: a call needing approval without an approver becomes pydantic-ai's
    ApprovalRequired (else the host refuses it). `ask` answers `ctx.ask`; `ask_ways`
    is what a question nobody answers says to do (None: the enclosing one's). Subclasses
    observe calls through `started`, `progressed` (on the event loop) and `ended`.
    """

    def __init__(self, agent: Agent, subagent: str | None = None, *,
                 approver: Approver | None = None, ask: Ask | None = None,
                 defer: bool = True, ask_ways: str | None = ASK_WAYS) -> None:
        self.agent, self.subagent, self.defer = agent, subagent, defer
        self._approver, self._ask, self._ask_ways = approver, ask, ask_ways
        self._cache: dict[tuple[str, int], ToolsetTool[Any]] = {}

    @property
    def id(self) -> str:
        return f"eve-{self.subagent or 'agent'}"

    def current_approver(self) -> Approver | None:
        """Who decides approvals for the call starting now."""
        return self._approver

    def started(self, name: str, arguments: dict[str, Any]) -> None:
        """A call is about to run (after any deferral)."""

    def progressed(self, name: str, text: str) -> None:
        """A running call reported progress (called on the event loop)."""

    async def ended(self, name: str, arguments: dict[str, Any], result: ToolResult) -> None:
        """A call finished, before the model is answered."""

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
        approver = self.current_approver()
        if approver is None and ctx.tool_call_approved:  # the caller approved the deferral
            approver = _approve
        elif approver is None and self.defer:
            try:
                pending = await self.agent.aapproval_pending(name, tool_args,
                                                             subagent=self.subagent)
            except ToolNotFoundError as exc:  # gone since the tools were listed (a reload)
                raise ModelRetry(f"{exc.message}; {exc.hint}") from None
            if pending is not None:
                raise ApprovalRequired(metadata={
                    "policy": pending.policy, "identity": pending.identity,
                    "mount": pending.mount, "subagent": self.subagent})
        loop = asyncio.get_running_loop()
        self.started(name, tool_args)
        progress = self._progress(name, loop)
        try:
            with interacting(ask=self._ask, loop=loop if self._ask is not None else None,
                             ask_ways=self._ask_ways):
                result = await self.agent.acall_tool(name, tool_args, subagent=self.subagent,
                                                     approver=approver, on_progress=progress)
        except ToolNotFoundError as exc:  # gone since the tools were listed (a reload)
            raise ModelRetry(f"{exc.message}; {exc.hint}") from None
        await self.ended(name, tool_args, result)
        return derive_model_answer(result, getattr(ctx.model, "profile", None))

    def _progress(self, name: str, loop: asyncio.AbstractEventLoop) -> Callable[[str], None]:
        def progress(text: str) -> None:  # on a worker thread for sync tools
            loop.call_soon_threadsafe(self.progressed, name, text)

        return progress
