"""The loaded agent: call its tools through the hook pipeline, fire events, keep state.

    with load_agent(Path("my-agent")) as agent:
        result = agent.call_tool("crm__search", {"query": "ada"})

`acall_tool` is the same call for code that runs in an event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable, Coroutine, Mapping, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from eve_build.diagnostics import Diagnostic
from eve_build.errors import EveBuildError
from eve_build.formats.compiled import CompiledAgent, walk_trees
from eve_build.runtime import calls, events
from eve_build.runtime.approval import (
    ApprovalRequest,
    ApprovalSession,
    Approver,
    derive_approval_key,
)
from eve_build.runtime.calls import ToolNotFoundError as ToolNotFoundError  # re-exported
from eve_build.runtime.local_methods import LocalMethods
from eve_build.runtime.loopwatch import label_task
from eve_build.runtime.migration import migrate_snapshot
from eve_build.runtime.modules import ModuleScope
from eve_build.runtime.redaction import Redactor
from eve_build.runtime.snapshot import SNAPSHOT_FORMAT_VERSION
from eve_build.runtime.surface import Resolver, Surface
from eve_build.runtime.tools import ToolCallError, resolve_tool, select_tool
from eve_build.runtime.trace import logger
from eve_build.runtime.workers import WorkerPool
from eve_build.sdk.definitions import Tool
from eve_build.sdk.hooks import Event
from eve_build.sdk.mount import ToolResult

if TYPE_CHECKING:
    from eve_build.connections.tools import ConnectionTools
    from eve_build.local.layer import LocalLayer
    from eve_build.runtime.toolset import EveToolset
    from eve_build.sdk.interaction import Ask

T = TypeVar("T")


@dataclass(frozen=True)
class EventOutcome:
    """What firing one event came to.

    `outcome` is `blocked`, `rewrite` or `proceed` for `action.call` (`value`: the
    arguments); `transform` or `proceed` for `action.result` (`value`: the result)
    and for `message.received` (`value`: the text), or `handled` (`value`: the
    reply); `observed` for every other event.
    """

    event: str
    outcome: str
    value: Any
    reason: str | None
    trace: tuple[dict[str, Any], ...]


class Agent(LocalMethods):
    """A compiled agent, loaded: mounts bound, definitions imported, state in memory."""

    resolver: Resolver | None = None
    """How the loader bound definitions to mounts; the serve host binds channels and
    schedules with it (set by `open_agent`)."""
    connections: ConnectionTools | None = None
    """The tools of the agent's MCP connections (`<connection>__<tool>`), opened on first
    need (set by `open_agent` when the agent has connections; see docs/mcp.md)."""
    redactor: Redactor = Redactor()
    """Redacts the env values of this agent's mounts from errors, traces and logs (set by
    `open_agent`); every result `acall_tool` returns has passed it."""
    environ: Mapping[str, str] = {}
    """The environment the agent was loaded with: the process's over the project's
    `.env.local` and `.env` (eve_build.project.envfiles); sessions read the model's
    variables from it (set by `open_agent`)."""

    def __init__(self, compiled: CompiledAgent, surfaces: dict[str, Surface],
                 states: MutableMapping[str, Any], pool: WorkerPool, scope: ModuleScope,
                 local: LocalLayer | None = None) -> None:
        self.compiled = compiled
        self._surfaces = surfaces
        self._local = local
        if local is not None:
            surfaces[""] = local.apply(surfaces[""])
        self._states = states  # shared by every binding: keys carry the mount path
        self._approvals = ApprovalSession()
        self._pool = pool
        self._scope = scope
        self._thread = threading.local()
        self._running = 0  # calls and commands in progress (a reload waits for none)
        self._running_lock = threading.Lock()
        self._loops: list[asyncio.AbstractEventLoop] = []
        self._closed = False

    def tools(self, subagent: str | None = None) -> list[str]:
        """The tool names of the agent (or of the subagent at that path), sorted."""
        return sorted(self.surface(subagent).tools)

    def surface(self, subagent: str | None = None, *, connections: bool = True) -> Surface:
        """The tree's tools and hooks; its connections' tools come with `connections`
        (opened, blocking, the first time the tools are listed or a name is missing)."""
        key = subagent or ""
        if key not in self._surfaces:
            known = ", ".join(f"`{p}`" for p in sorted(self._surfaces) if p) or "none"
            raise ToolNotFoundError(f"the agent has no subagent `{key}`",
                                    f"subagents: {known}")
        if connections and self.connections is not None:
            return self.connections.extend(self._surfaces[key], key)
        return self._surfaces[key]

    async def asurface(self, subagent: str | None = None) -> Surface:
        """`surface` for code in an event loop: the connections open without blocking it."""
        if self.connections is not None:
            await self.connections.aopen()
        return self.surface(subagent)

    async def aresolve_tool(self, name: str, *, subagent: str | None = None) -> Tool:
        """The definition a call of `name` would run now (a dynamic tool is resolved; of a
        dynamic tool resolving to several definitions, the first).

        A dynamic tool that resolves to a list of alternatives gives the first one.
        Raises ToolNotFoundError, or ToolCallError when a dynamic tool cannot resolve.
        """
        surface = await self._surface_with(name, subagent)
        entry = surface.tools.get(name)
        if entry is None:
            raise self._not_found(name, surface, subagent)
        return (await resolve_tool(entry, self._pool))[0]

    async def aapproval_pending(self, name: str, arguments: Mapping[str, Any] | None = None,
                                *, subagent: str | None = None) -> ApprovalRequest | None:
        """The request a call of `name` with `arguments` would put to an approver now, or
        None when it would not ask (`never`, a `once` already answered, a call that fails
        before approval: the call itself says why)."""
        surface = await self._surface_with(name, subagent)
        entry = surface.tools.get(name)
        if entry is None or entry.binding.unavailable:
            return None
        given = {} if arguments is None else dict(arguments)
        try:
            tool, _ = select_tool(await resolve_tool(entry, self._pool), name, given)
        except ToolCallError:
            return None
        if tool.approval is None or not self._approvals.asks(
                tool, key=derive_approval_key(surface.path, name)):
            return None
        return ApprovalRequest(name, given, tool.approval.policy, entry.identity, entry.mount)

    def toolset(self, subagent: str | None = None, *, approver: Approver | None = None,
                ask: Ask | None = None) -> EveToolset:
        """The agent's tools as a pydantic-ai toolset: `pydantic_ai.Agent(toolsets=[...])`.

        Every call goes through `acall_tool` (hooks, approvals, budgets, timeouts). A call
        that needs approval is deferred (pydantic-ai's `ApprovalRequired`) unless
        `approver` decides it; `ask` answers `ctx.ask` (else it fails with its reason).
        Imports pydantic-ai (the `agent` extra) only here. See docs/frameworks.md.
        """
        try:
            from eve_build.runtime.toolset import EveToolset
        except ImportError as exc:
            if not (exc.name or "").startswith("pydantic_ai"):
                raise
            from eve_build.install_hint import derive_install_hint

            raise EveBuildError("`toolset()` needs pydantic-ai, which is not installed",
                                f"install it: {derive_install_hint('eve-build[agent]')}"
                                ) from None
        return EveToolset(self, subagent, approver=approver, ask=ask)

    async def acall_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, *,
        subagent: str | None = None, approver: Approver | None = None,
        on_progress: Callable[[str], None] | None = None,
        approvals: ApprovalSession | None = None,
    ) -> ToolResult:
        """Call one tool through the hooks; raises ToolNotFoundError for an unknown name.

        `approvals` keeps `once()` answers for a session of the caller's own (an MCP
        connection); by default the agent's."""
        surface = await self._surface_with(name, subagent)
        entry = surface.tools.get(name)
        if entry is None:
            raise self._not_found(name, surface, subagent)
        pipeline, given = surface.pipeline, {} if arguments is None else dict(arguments)
        loop, updates = asyncio.get_running_loop(), []

        def progress(text: str) -> None:  # on a worker thread for sync tools
            text = self.redactor.redact(text)
            if on_progress is not None:
                on_progress(text)
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody listens now
                loop.call_soon_threadsafe(lambda: updates.append(asyncio.ensure_future(
                    events.emit(pipeline, "tool.update", tool=name, text=text))))

        call = calls.ToolCall(surface, entry, approvals or self._approvals, self._pool,
                              approver, progress)
        with self._counted(), label_task(f"tool `{name}`"):
            await events.emit(pipeline, "tool.start", tool=name, arguments=given)
            result = self.redactor.redact_result(await call.run(given))
            await asyncio.gather(*updates)
            await events.emit(pipeline, "tool.end", tool=name, arguments=given,
                              result=result.value, status=result.status, error=result.error)
        return result

    async def _surface_with(self, name: str, subagent: str | None) -> Surface:
        """The surface to find `name` in: connections open only for a name not found."""
        own = self.surface(subagent, connections=False)
        return own if name in own.tools else await self.asurface(subagent)

    def _not_found(self, name: str, surface: Surface, subagent: str | None) -> EveBuildError:
        """A connection that is down says so; a stopped node's tool names the node."""
        problem = self.connections.failure_for(name) if self.connections is not None else None
        if problem is not None:
            from eve_build.naming import derive_shown_name

            return calls.ConnectionToolMissingError(
                f"the agent has no tool `{derive_shown_name(name)}`: its MCP connection did "
                "not open", f"{problem.message}, so it has no tools: {problem.hint}", problem)
        return self._missing_tool(name, surface, subagent)

    def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, *,
        subagent: str | None = None, approver: Approver | None = None,
        on_progress: Callable[[str], None] | None = None,
    ) -> ToolResult:
        """`acall_tool` for code without an event loop (each thread gets its own loop)."""
        return self._run(self.acall_tool(name, arguments, subagent=subagent, approver=approver,
                                        on_progress=on_progress))

    async def afire(self, name: str, *, subagent: str | None = None,
                    **fields: Any) -> EventOutcome:
        """Run the hooks of one event with its semantics (see EventOutcome)."""
        pipeline = self.surface(subagent).pipeline
        event = Event(name, tool=fields.pop("tool", None), arguments=fields.pop("arguments", None),
                      result=fields.pop("result", None), text=fields.pop("text", None),
                      data=dict(fields.pop("data", {}), **fields))
        if name == "action.call":
            verdict = await pipeline.on_call(event.tool or "", dict(event.arguments or {}))
            outcome = ("blocked" if verdict.blocked else
                       "rewrite" if verdict.rewritten_by else "proceed")
            return EventOutcome(name, outcome, verdict.arguments, verdict.blocked,
                                tuple(verdict.trace))
        if name == "action.result":
            result, steps = await pipeline.on_result(event.tool or "", dict(event.arguments or {}),
                                                     event.result)
            changed = any(step["outcome"] == "transform" for step in steps)
            return EventOutcome(name, "transform" if changed else "proceed", result, None,
                                tuple(steps))
        if name == "message.received":
            message = await pipeline.on_message(event.text or "", event.data)
            if message.reply is not None:
                return EventOutcome(name, "handled", message.reply, None, tuple(message.trace))
            changed = message.text != event.text
            return EventOutcome(name, "transform" if changed else "proceed", message.text,
                                None, tuple(message.trace))
        return EventOutcome(name, "observed", None, None, tuple(await pipeline.observe(event)))

    def fire(self, name: str, *, subagent: str | None = None, **fields: Any) -> EventOutcome:
        return self._run(self.afire(name, subagent=subagent, **fields))

    def snapshot(self) -> dict[str, Any]:
        """The session as JSON-able data: state by key and remembered approvals."""
        data = {"formatVersion": SNAPSHOT_FORMAT_VERSION, "state": dict(self._states),
                "approvals": self._approvals.snapshot()}
        if self._local is not None and (entries := self._local.request.session.snapshot()):
            data["local"] = entries
        try:
            copied: dict[str, Any] = json.loads(json.dumps(data))
        except (TypeError, ValueError) as exc:
            raise EveBuildError(f"the session state cannot be saved as JSON: {exc}",
                                "keep state values to JSON types (dict, list, str, "
                                "numbers, bools, None)") from None
        return copied

    def load_snapshot(self, snapshot: Mapping[str, Any], *, file: str = "") -> list[Diagnostic]:
        """Replace the session with `snapshot`, migrating old keys (warnings are also logged).

        Raises DiagnosticsError, changing nothing, when an old key is ambiguous.
        """
        mounts = [m for tree in walk_trees(self.compiled.root) for m in tree.mounts]
        states = [s for tree in walk_trees(self.compiled.root) for s in tree.states]
        migrated, warnings = migrate_snapshot(snapshot, mounts, states, file=file)
        for warning in warnings:
            logger.warning("%s", warning.message)
        self._states.clear()
        self._states.update(migrated["state"])
        self._approvals.restore(migrated["approvals"])
        if self._local is not None:
            self._local.request.session.restore(snapshot.get("local", {}))
        return warnings

    def state(self, key: str) -> Any:
        """The current value under a state key (`extensions/crm:requests`), or None."""
        return self._states.get(key)

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine to its end on this thread's loop of this agent."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            coroutine.close()
            raise EveBuildError("a sync call of the agent was made inside a running event loop",
                                "await the async form instead (`acall_tool`, `afire`)")
        loop: asyncio.AbstractEventLoop | None = getattr(self._thread, "loop", None)
        if loop is None or loop.is_closed():
            loop = asyncio.new_event_loop()
            self._thread.loop = loop
            self._loops.append(loop)
        return loop.run_until_complete(coroutine)

    def close(self) -> None:
        """Stop the loops this agent made and give back sys.path and the agent package."""
        if not self._closed:
            self._closed = True
            events.emit_blocking(self.surface().pipeline, "agent.end")
        for loop in self._loops:
            if loop.is_running() or loop.is_closed():
                continue
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:  # abandoned handlers get a moment to stop; they cannot hold us
                loop.run_until_complete(asyncio.wait(pending, timeout=0.1))
            loop.close()
        self._loops.clear()
        if self.connections is not None:
            self.connections.close()
        self._scope.close()
        if self._local is not None:
            self._local.close()

    def start(self) -> None:
        """Emit `agent.start` (the loader does, once the agent has loaded)."""
        events.emit_blocking(self.surface().pipeline, "agent.start")

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
