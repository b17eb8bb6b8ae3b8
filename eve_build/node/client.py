"""The host's side of one running node: its description, and a Spec of proxies.

`NodeClient.spec()` gives the node's tools, commands, guidelines, hooks and event
observers as an ordinary `Spec` (DESIGN.md section 7), so the host adds them like a
script's with origin `node`. Each proxy sends one request; the host's clock decides:
a tool waits at most its timeout, a hook is cut off by the pipeline's 5 s budget.
A node that closes its socket or sends garbage is dropped: the call in flight and
every later call of its tools and commands fail with a NodeError naming the node;
its hooks and observers step aside (proceed), so nothing else changes.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, create_model

from eve_build.diagnostics import Diagnostic, warning
from eve_build.node import protocol
from eve_build.node.connection import NodeConnection, NodeError, run_sync
from eve_build.runtime.content import ContentError, content_to_json
from eve_build.sdk.binding import ToolContext, host_side
from eve_build.sdk.definitions import Tool
from eve_build.sdk.hooks import Event, block, handled, rewrite, transform
from eve_build.sdk.local import Command, Spec
from eve_build.sdk.results import ResultOverride, ToolResult

TOOL_TIMEOUT = 60.0
"""Seconds a node's tool may take when its `define_tool(timeout=)` is None."""
CONNECT_TIMEOUT = 2.0
logger = logging.getLogger("eve_build.runtime")


class NodeInput(BaseModel):
    """Arguments for a node's tool: the node validates them against its real model."""

    model_config = ConfigDict(extra="allow")
    node_schema: ClassVar[dict[str, Any]] = {}

    @classmethod
    def model_json_schema(cls, *_args: Any, **_kwargs: Any) -> dict[str, Any]:
        return dict(cls.node_schema)


class NodeClient:
    """One running node as the host sees it (a connection per event loop)."""

    def __init__(self, name: str, socket: Path, description: dict[str, Any],
                 on_notice: Callable[[str, str, dict[str, Any]], None] | None = None) -> None:
        self.name = name
        self.socket = socket
        self.description = description
        self.dropped: str | None = None
        self.diagnostics: list[Diagnostic] = []  # `node/dropped` once it is dropped
        self._on_notice = on_notice
        self._connections: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop,
                                                     NodeConnection] = (
            weakref.WeakKeyDictionary())

    async def request(self, method: str, params: dict[str, Any], *, timeout: float | None,
                      on_notice: Callable[[str, dict[str, Any]], None] | None = None) -> Any:
        """Send one request on this loop's connection; NodeError when the node fails."""
        if self.dropped is not None:
            raise NodeError(self.name, f"was dropped: it {self.dropped}; start it again with "
                            f"`eve node start {self.name}`",
                            f"restart it with `eve node start {self.name}`")
        loop = asyncio.get_running_loop()
        connection = self._connections.get(loop)
        if connection is None or connection.broken is not None:
            try:
                connection = await NodeConnection.open(self.name, self.socket,
                                                       timeout=CONNECT_TIMEOUT)
            except NodeError as exc:  # it was stopped or died since the host loaded it
                self.drop(exc.message.removeprefix(f"node `{self.name}` "))
                raise
            self._connections[loop] = connection

        def notice(kind: str, data: dict[str, Any]) -> None:
            if on_notice is not None:
                on_notice(kind, data)
            if self._on_notice is not None:
                self._on_notice(self.name, kind, data)

        try:
            return await connection.request(method, params, timeout=timeout, on_notice=notice)
        except NodeError:
            if connection.broken is not None:
                self.drop(connection.broken)
            raise

    def close(self) -> None:
        """Close every connection this client opened (on the loop that owns it)."""
        for loop, connection in list(self._connections.items()):
            if not loop.is_closed():
                loop.call_soon_threadsafe(connection.abort)
        self._connections.clear()

    @property
    def is_dropped(self) -> bool:
        return self.dropped is not None

    def drop(self, reason: str) -> None:
        if self.dropped is None:
            self.dropped = reason
            logger.warning("node `%s` dropped: it %s", self.name, reason)
            self.diagnostics.append(warning(
                "node/dropped", str(self.socket), f"node `{self.name}` was dropped: it {reason}",
                f"see its log; `eve node start {self.name}` and the next load picks it up"))

    def spec(self) -> Spec:
        """The node's contributions as a Spec whose callables are proxies to the node."""
        tools = {str(item["name"]): self._tool(item) for item in self.description["tools"]}
        commands = {str(item["name"]): Command(description=item.get("description") or None,
                                               run=self._command(str(item["name"])),
                                               arg_hint=item.get("argHint"))
                    for item in self.description["commands"]}
        hooks = {str(event): self._hook(str(event)) for event in self.description["hooks"]}
        events = {str(event): self._observer() for event in self.description["events"]}
        return Spec(tools=tools, guidelines=list(self.description["guidelines"]),
                    commands=commands, hooks=hooks, events=events)

    def _tool(self, item: dict[str, Any]) -> Tool:
        name = str(item["name"])
        model = create_model(f"NodeInput_{name}", __base__=NodeInput)
        model.node_schema = dict(item.get("inputSchema") or {})
        timeout = item.get("timeout")
        limit = float(timeout) if isinstance(timeout, int | float) else TOOL_TIMEOUT

        @host_side
        async def execute(arguments: BaseModel, ctx: ToolContext) -> Any:
            def progress(kind: str, data: dict[str, Any]) -> None:
                if kind == protocol.PROGRESS:
                    ctx.report_progress(str(data.get("text", "")))

            result = await self._call(protocol.TOOL_CALL,
                                      {"name": name, "arguments": arguments.model_dump()},
                                      timeout=limit, on_notice=progress)
            return decode_tool_result(self.name, name, result)

        return Tool(description=str(item.get("description") or ""), input=model,
                    execute=execute, timeout=limit, identity=f"node:{self.name}:{name}")

    def _hook(self, event_name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
        @host_side
        async def hook(event: Event, _ctx: object = None) -> Any:
            if self.dropped is not None:  # a dropped node is out of the pipeline: proceed
                return None
            # no timeout here: the pipeline's budget cancels this task, measured by the host
            try:
                verdict = await self._call(protocol.HOOK_RUN, encode_event(event), timeout=None)
            except NodeError:
                if self.is_dropped:  # it died just now: out of the pipeline, as above
                    return None
                raise  # alive, and its hook failed: that counts as the hook's verdict
            return decode_verdict(self.name, event_name, verdict)

        return hook

    def _observer(self) -> Callable[..., Coroutine[Any, Any, None]]:
        @host_side
        async def observe(event: Event, _ctx: object = None) -> None:
            if self.dropped is None:
                await self._call(protocol.EVENT_DELIVER, encode_event(event), timeout=TOOL_TIMEOUT)

        return observe

    def _command(self, name: str) -> Callable[..., str]:
        def run(args: str, _ctx: object = None) -> str:
            result = run_sync(self._call(protocol.COMMAND_RUN, {"name": name, "args": args},
                                         timeout=TOOL_TIMEOUT))
            return str(result.get("reply", "")) if isinstance(result, dict) else str(result)

        return run

    async def _call(self, method: str, params: dict[str, Any], *, timeout: float | None,
                    on_notice: Callable[[str, dict[str, Any]], None] | None = None) -> Any:
        try:
            return await self.request(method, params, timeout=timeout, on_notice=on_notice)
        except protocol.RemoteError as exc:
            if exc.code == protocol.CONTENT_INVALID:  # as a local tool's bad part reads
                raise ContentError(exc.message) from None
            raise NodeError(self.name, f"answered `{method}` with an error: {exc.message}"
                            ) from None


def decode_tool_result(node: str, tool: str, result: Any) -> Any:
    """A `tool.call` result as what a local tool returns: a plain value (`value`), or
    a `ToolResult` when the node sent `content` (the tool returned parts)."""
    if not isinstance(result, dict):
        return result
    if "content" not in result:
        return result.get("value")
    return _rebuild_result(node, f"`tool.call` for `{tool}`", result, result.get("value"))


def _decode_result(node: str, verdict: dict[str, Any]) -> Any:
    """An `action.result` verdict's value: plain, a ToolResult (`content`), and either
    wrapped in `result(value, is_error=...)` (`override`)."""
    value = verdict.get("result")
    if "content" in verdict:
        value = _rebuild_result(node, "the `action.result` hook", verdict, value)
    if verdict.get("override") is True:
        return ResultOverride(value, is_error=verdict.get("isError") is True)
    return value


def _rebuild_result(node: str, answered: str, sent: dict[str, Any], details: Any
                    ) -> ToolResult:
    """The ToolResult whose parts (`content`) and `isError` a node sent for `answered`."""
    try:
        content = protocol.decode_content(sent["content"])
    except protocol.ProtocolError as exc:
        raise NodeError(node, f"answered {answered} with content that is not parts: {exc}"
                        ) from None
    return ToolResult(content=content, details=details, is_error=sent.get("isError") is True)


def encode_event(event: Event) -> dict[str, Any]:
    """An event as `hook.run` / `event.deliver` params. A ToolResult in `result` (the
    tool returned parts) travels as its details in `result` and its parts in
    `resultContent`; `error` and `isError` say whether the call failed."""
    params = {"event": event.name, "tool": event.tool, "arguments": event.arguments,
              "result": event.result, "text": event.text, "data": event.data,
              "error": event.error, "isError": event.is_error}
    if isinstance(event.result, ToolResult):
        params["result"] = event.result.details
        params["resultContent"] = content_to_json(event.result.content)
    return params


def decode_verdict(node: str, event: str, verdict: Any) -> Any:
    """A `hook.run` result as the SDK value the pipeline expects (section 6 shapes)."""
    outcome = verdict.get("outcome") if isinstance(verdict, dict) else None
    if outcome == "proceed":
        return None
    if outcome == "block" and isinstance(verdict.get("reason"), str):
        return block(verdict["reason"])
    if outcome == "rewrite" and isinstance(verdict.get("arguments"), dict):
        return rewrite(verdict["arguments"])
    if outcome == "transform" and isinstance(verdict.get("text"), str):
        return transform(verdict["text"])
    if outcome == "handled" and isinstance(verdict.get("reply"), str):
        return handled(verdict["reply"])
    if outcome == "result" and event == "action.result":
        return _decode_result(node, verdict)
    raise NodeError(node, f"answered the `{event}` hook with {verdict!r}, which is no verdict")
