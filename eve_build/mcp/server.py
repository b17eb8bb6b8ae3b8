"""One MCP server for one loaded agent (or one of its subagents), built on the SDK's
low-level `Server`: tools, skill resources and command prompts, each handler a call
into its own module. The transports (stdio.py, http.py) only run it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from eve_build._version import __version__
from eve_build.errors import EveBuildError
from eve_build.mcp.interaction import (
    McpCall,
    Parked,
    client_can_elicit,
    connection_approvals,
    interactive,
    set_logging_level,
)
from eve_build.mcp.prompts import (
    AgentCommands,
    CommandSource,
    complete_mcp_prompt,
    derive_mcp_prompts,
    get_mcp_prompt,
)
from eve_build.mcp.resources import (
    SkillSubscriptions,
    complete_skill_names,
    derive_client,
    derive_mcp_resources,
    derive_mcp_templates,
    find_skill_files,
    read_skill_resource,
)
from eve_build.mcp.tools import call_mcp_tool, derive_mcp_tools
from eve_build.runtime.agent import Agent
from eve_build.runtime.approval import ApprovalRequest, Approver

SERVER_NAME = "eve"


def create_mcp_server(agent: Agent | Callable[[], Agent], app_root: Path, *,
                      subagent: str | None = None, approve: bool = False,
                      commands: CommandSource | None = None,
                      subscriptions: SkillSubscriptions | None = None) -> Server[Any]:
    """The agent as an MCP server; `approve` says yes to every approval request.

    `agent` may be a callable giving the current agent (`eve serve` swaps generations):
    every request then asks it; whoever swaps calls `subscriptions.changed()`.
    """
    if isinstance(agent, Agent):
        agent.surface(subagent)  # an unknown subagent fails now, not at the first request
    provider: Callable[[], Agent] = agent if callable(agent) else lambda: agent

    def current() -> Agent:  # no agent to serve (yet) is an MCP error with the reason
        try:
            return provider()
        except EveBuildError as exc:
            hint = f" ({exc.hint})" if exc.hint else ""
            raise MCPError(types.INTERNAL_ERROR, f"{exc.message}{hint}") from None

    approver: Approver | None = _approve_all if approve else None
    commands = commands if commands is not None else AgentCommands(current)
    parked = Parked()  # calls waiting for a client's answer (interaction.py)
    subscriptions = subscriptions if subscriptions is not None else SkillSubscriptions()
    subscriptions.watch(lambda: find_skill_files(current(), app_root, subagent))

    async def list_tools(_ctx: ServerRequestContext[Any],
                         _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=await derive_mcp_tools(current(), subagent))

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams,
                        ) -> types.CallToolResult | types.InputRequiredResult:
        async def work(call: McpCall) -> types.CallToolResult:  # the client answers (asks)
            asking = approver is None and client_can_elicit(ctx)  # its user approves
            return await call_mcp_tool(
                current(), subagent, params.name, params.arguments,
                approver=call.approve if asking else approver,
                approvals=connection_approvals(ctx) if asking else None,
                progress=call.send_text_progress)

        return await interactive(ctx, params, parked, params.name, work)

    async def list_resources(_ctx: ServerRequestContext[Any],
                             _params: types.PaginatedRequestParams | None,
                             ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=derive_mcp_resources(
            find_skill_files(current(), app_root, subagent)))

    async def list_resource_templates(_ctx: ServerRequestContext[Any],
                                      _params: types.PaginatedRequestParams | None,
                                      ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=derive_mcp_templates())

    async def read_resource(_ctx: ServerRequestContext[Any],
                            params: types.ReadResourceRequestParams,
                            ) -> types.ReadResourceResult:
        try:
            skills = find_skill_files(current(), app_root, subagent)
            return read_skill_resource(skills, str(params.uri))
        except (LookupError, OSError) as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None

    async def subscribe(ctx: ServerRequestContext[Any],
                        params: types.SubscribeRequestParams) -> types.EmptyResult:
        subscriptions.subscribe(derive_client(ctx.session, ctx.request), ctx.session,
                                str(params.uri))
        return types.EmptyResult()

    async def unsubscribe(ctx: ServerRequestContext[Any],
                          params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        subscriptions.unsubscribe(derive_client(ctx.session, ctx.request), str(params.uri))
        return types.EmptyResult()

    async def list_prompts(_ctx: ServerRequestContext[Any],
                           _params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=derive_mcp_prompts(commands.list_commands()))

    async def get_prompt(ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams,
                         ) -> types.GetPromptResult | types.InputRequiredResult:
        async def work(_call: McpCall) -> types.GetPromptResult:  # a command may ask too
            try:
                return await get_mcp_prompt(commands, params.name, params.arguments)
            except LookupError as exc:
                raise MCPError(types.INVALID_PARAMS, str(exc)) from None
            except Exception as exc:  # a command raising is its error reply
                raise MCPError(types.INTERNAL_ERROR, str(exc) or type(exc).__name__) from None

        return await interactive(ctx, params, parked, params.name, work)

    async def complete(_ctx: ServerRequestContext[Any],
                       params: types.CompleteRequestParams) -> types.CompleteResult:
        if not isinstance(params.ref, types.PromptReference):  # a template: `skill://{name}`
            return types.CompleteResult(completion=types.Completion(values=complete_skill_names(
                find_skill_files(current(), app_root, subagent), params.ref.uri,
                params.argument.value)))
        try:
            return await complete_mcp_prompt(commands, params.ref.name, params.argument.name,
                                             params.argument.value)
        except LookupError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        except Exception as exc:  # a completer raising
            raise MCPError(types.INTERNAL_ERROR, str(exc) or type(exc).__name__) from None

    server: Server[Any] = Server(
        SERVER_NAME, version=__version__,
        instructions=f"Tools, skills and commands of the eve agent in `{app_root.name}`"
                     + (f" (subagent `{subagent}`)" if subagent else ""),
        on_list_tools=list_tools, on_call_tool=call_tool,
        on_list_resources=list_resources, on_read_resource=read_resource,
        on_list_resource_templates=list_resource_templates,
        on_list_prompts=list_prompts, on_get_prompt=get_prompt,
        on_subscribe_resource=subscribe, on_unsubscribe_resource=unsubscribe,
        on_completion=complete,
    )
    # added, not passed: the constructor warns that logging is deprecated at 2026-07-28
    server.add_request_handler("logging/setLevel", types.SetLevelRequestParams,
                               set_logging_level)
    return server


def _approve_all(_request: ApprovalRequest) -> bool:
    return True
