"""The tools of an agent's MCP connections, as tools of the loaded agent.

The tool `search` of the connection `crm__api` (the connection `api` of the mount
`crm`) is the agent's tool `crm__api__search`: `<connection as the agent sees it>__<tool>`.
Connections open lazily, once per agent: when a listing (or a call of a name no other
tool has) first needs them, all at once, through the hub (hub.py); `Agent.close()`
closes them. A connection that does not open is a warning (logged, and kept in
`diagnostics`) and its tools are absent; the agent goes on. A name the agent already
has (its own tools, mounts', local ones) wins over a connection's tool.

Each tool is an ordinary `Tool`, so calls go through the hook pipeline, approvals,
budgets and timeouts like any other; its input model carries the server's JSON Schema
and passes the arguments on as given (the server validates them).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import importlib.util
import re
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, create_model

from eve_build.connections.client import describe_failure
from eve_build.connections.hub import ConnectionHub, HeldClient
from eve_build.connections.remote import (
    ConnectedTools,
    RemoteInput,
    derive_remote_value,
    is_http_url,
)
from eve_build.connections.resolve import ResolvedConnection, discover_connections
from eve_build.diagnostics import Diagnostic, Severity, warning
from eve_build.install_hint import derive_extra_hint
from eve_build.runtime import events
from eve_build.runtime.surface import Surface
from eve_build.runtime.tools import ToolCallError, ToolEntry
from eve_build.runtime.trace import logger
from eve_build.sdk.binding import ToolContext, host_side
from eve_build.sdk.definitions import Tool
from eve_build.settings import read_setting

if TYPE_CHECKING:
    from mcp import types

    from eve_build.runtime.agent import Agent

OPEN_TIMEOUT = 10.0
"""Seconds resolving the connections, and then opening each, may take."""
TIMEOUT_VARIABLE = "EVE_CONNECTION_TIMEOUT"
CLOSE_WAIT = 10.0
"""Seconds `close()` gives the `mcp.disconnected` observers before the hub stops."""
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""What model providers accept as a tool name."""


class ConnectionTools:
    """The connection tools of one agent, by surface key ("" for the root agent)."""

    def __init__(self, agent: Agent, environ: Mapping[str, str]) -> None:
        self._agent = agent
        self._environ = environ
        self.timeout = read_setting(TIMEOUT_VARIABLE, environ, OPEN_TIMEOUT)
        self._hub = ConnectionHub()
        self._lock = threading.Lock()
        self._opened: concurrent.futures.Future[None] | None = None
        self.entries: dict[str, dict[str, ToolEntry]] = {}
        self.diagnostics: list[Diagnostic] = []
        self._failed: dict[str, Diagnostic] = {}  # by connection name
        self._names: dict[int, str] = {}  # id of a HeldClient -> its connection's name

    def extend(self, base: Surface, key: str) -> Surface:
        """`base` with this tree's connection tools behind it, opened on first need."""
        return Surface(base.path, ConnectedTools(base.tools, lambda: self._tools_for(key)),
                       base.pipeline)

    def open(self) -> None:
        """Open every connection (once; later calls return at once)."""
        future = self._start()
        try:
            future.result(self.timeout * 2 + 5)
        except concurrent.futures.TimeoutError:
            logger.warning("the MCP connections did not open within %g s", self.timeout * 2)

    async def aopen(self) -> None:
        """`open` for code in an event loop: waits without blocking it."""
        await asyncio.shield(asyncio.wrap_future(self._start()))

    def failure_for(self, name: str) -> Diagnostic | None:
        """The diagnostic of the connection `name` would come from, when it did not open
        (a warning: the agent went on without its tools).

        That connection is the one `name` was registered from when it opened, else the
        longest connection name `name` starts with (followed by `__`): with `crm` and
        `crm__api`, `crm__api__search` is `crm__api`'s, whichever of the two failed."""
        if any(name in entries for entries in self.entries.values()):
            return None
        known = set(self._names.values()) | set(self._failed)
        matching = [c for c in known if name.startswith(f"{c}__")]
        if not matching:
            return None
        return self._failed.get(max(matching, key=len))

    def close(self) -> None:
        held = [h for h in self._hub.held if h.client is not None]
        if held:  # observers hear of each open connection ending, while the hub still runs
            async def tell() -> None:
                for h in held:
                    await self._emit("mcp.disconnected", h, reason="closed by the agent")

            with contextlib.suppress(Exception):
                self._hub.submit(tell()).result(CLOSE_WAIT)
        self._hub.close()

    async def _emit(self, name: str, held: HeldClient, **data: Any) -> None:
        """One event of the `mcp` class (`mcp.connected`, `mcp.disconnected`,
        `mcp.failed`) with the connection's name and URL; observers cannot fail it."""
        try:
            pipeline = self._agent.surface(connections=False).pipeline
            await events.emit(pipeline, name, data={
                "connection": self._names.get(id(held), ""), "url": held.url, **data})
        except Exception as exc:
            logger.warning("the `%s` event was not delivered: %s", name, exc)

    def _tools_for(self, key: str) -> dict[str, ToolEntry]:
        self.open()
        return self.entries.get(key, {})

    def _start(self) -> concurrent.futures.Future[None]:
        with self._lock:
            if self._opened is None:
                self._opened = self._hub.submit(self._open_all())
            return self._opened

    async def _open_all(self) -> None:
        if importlib.util.find_spec("mcp") is None:
            self._warn(warning("mcp/sdk-missing", "pyproject.toml",
                               "the agent's MCP connections need the MCP SDK (`mcp`), which is "
                               "not installed: their tools are left out",
                               derive_extra_hint("mcp")))
            return
        try:
            async with asyncio.timeout(self.timeout):
                resolved, found = await discover_connections(self._agent, self._environ)
        except TimeoutError:
            logger.warning("resolving the MCP connections took over %g s: their tools are "
                           "left out", self.timeout)
            return
        files = {c.file for c in resolved if c.kind != "openapi"}
        for problem in (p for p in found if p.file in files):
            self._warn(Diagnostic(file=problem.file, line=problem.line, code=problem.code,
                                  message=problem.message + ": its tools are left out",
                                  hint=problem.hint, severity=Severity.WARNING))
        targets = [c for c in resolved if c.kind == "mcp" and c.url and is_http_url(c.url)]
        held = [HeldClient(c.url or "", dict(c.headers)) for c in targets]
        self._names.update((id(h), c.name) for c, h in zip(targets, held, strict=True))
        self._hub.held.extend(held)
        outcomes = await asyncio.gather(*(h.open(self.timeout) for h in held),
                                        return_exceptions=True)
        root = self._agent.compiled.root.path
        for connection, client, outcome in zip(targets, held, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                failure = None if isinstance(outcome, TimeoutError) else outcome
                problem = describe_failure(
                    connection.name, connection.file, client.url, connection.headers, failure,
                    client.statuses, timeout=self.timeout, severity=Severity.WARNING,
                    timeout_setting=TIMEOUT_VARIABLE)
                self._failed[connection.name] = problem
                self._warn(Diagnostic(file=problem.file, line=None, code=problem.code,
                                      message=f"{problem.message}: its tools are left out",
                                      hint=problem.hint, severity=Severity.WARNING))
                await self._emit("mcp.failed", client, reason=problem.message)
                continue
            key = "" if connection.subagent == root else connection.subagent
            self._add(key, connection, client)
            await self._emit("mcp.connected", client, transport=client.transport,
                             tools=len(client.tools))

    def _add(self, key: str, connection: ResolvedConnection, client: HeldClient) -> None:
        taken = self._agent.surface(key or None, connections=False).tools
        entries = self.entries.setdefault(key, {})
        for remote in client.tools:
            name = f"{connection.name}__{remote.name}"
            why = ("is not a name model providers accept (letters, digits, `_`, `-`; at most "
                   "64)" if not TOOL_NAME.match(name) else
                   "is taken by another tool of the agent" if name in taken or name in entries
                   else None)
            if why is not None:
                self._warn(warning("connection/tool-skipped", connection.file,
                                   f"the tool `{remote.name}` of the MCP connection "
                                   f"`{connection.name}` is left out: `{name}` {why}",
                                   "rename the tool on the server, or the connection"))
                continue
            entries[name] = self._entry(name, connection, client, remote)

    def _entry(self, name: str, connection: ResolvedConnection, client: HeldClient,
               remote: types.Tool) -> ToolEntry:
        model = create_model(f"McpInput_{name}", __base__=RemoteInput)
        model.remote_schema = dict(remote.input_schema or {"type": "object"})

        @host_side
        async def execute(arguments: BaseModel, ctx: ToolContext) -> Any:
            future = self._hub.submit(self._call(connection.name, client, remote.name,
                                                 arguments.model_dump(), ctx))
            return await asyncio.wrap_future(future)

        tool = Tool(description=remote.description or remote.title or "", input=model,
                    execute=execute, identity=f"mcp:{connection.name}:{remote.name}")
        binding = self._agent.resolver.agent if self._agent.resolver is not None else None
        assert binding is not None
        mount = connection.name.rpartition("__")[0] or None
        return ToolEntry(name, remote.name, mount, tool, tool.identity, binding, connection.file)

    async def _call(self, connection: str, held: HeldClient, tool: str,
                    arguments: dict[str, Any], ctx: ToolContext) -> Any:
        """One `tools/call` on the hub's loop; the value, or ToolCallError with the reason."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED

        async with held.reopening:  # it closed since: open it again, once for every caller
            if held.client is None:
                try:
                    await held.open(self.timeout)
                except Exception as exc:  # any failure to reconnect is the same answer
                    await self._emit("mcp.failed", held, reason=f"cannot be opened again "
                                     f"({type(exc).__name__})")
                    raise ToolCallError(f"the MCP connection `{connection}` closed "
                                        f"({held.closed}) and cannot be opened again now"
                                        ) from None
                await self._emit("mcp.connected", held, transport=held.transport,
                                 tools=len(held.tools))
        if held.client is None:
            raise ToolCallError(f"the MCP connection `{connection}` closed ({held.closed})")

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            step = progress
            ctx.report_progress(message or (f"{step:g}/{total:g}" if total else f"{step:g}"))

        try:
            result = await held.client.call_tool(tool, arguments, progress_callback=progress)
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                raise ToolCallError(f"the MCP server of `{connection}` answered: {exc.message}"
                                    ) from None
            failure = "closed"
        except Exception as exc:  # the transport failed: say so without its text
            failure = type(exc).__name__
        else:
            return derive_remote_value(result)
        await held.stop(f"failed ({failure})")  # the next call opens it again
        await self._emit("mcp.disconnected", held, reason=f"failed ({failure})")
        raise ToolCallError(f"the MCP connection `{connection}` failed during the call "
                            f"({failure})")

    def _warn(self, problem: Diagnostic) -> None:
        """Keep the warning, and log it with its file and hint on one line (what `eve
        serve` and `eve mcp` show of it)."""
        self.diagnostics.append(problem)
        where = f"{problem.location()}: " if problem.location() else ""
        hint = f" (hint: {problem.hint})" if problem.hint else ""
        logger.warning("%s%s%s", where, problem.message, hint)
