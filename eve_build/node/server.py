"""The node: serve one project's Spec as JSON-RPC 2.0 on `$EVE_HOME/run/<name>.sock`.

Each request runs as a task of its own, so a slow tool never holds a `describe` or a
hook; sync user code runs on a thread. The socket is created under umask 0177 (so
it is 0600 from its first moment) in a 0700 folder, and removed on a clean stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import signal
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from eve_build.errors import EveBuildError
from eve_build.node import protocol
from eve_build.node.context import CURRENT_SENDER, NodeContext, make_sender
from eve_build.node.liveness import write_pid_file
from eve_build.node.paths import SOCKET_MODE, NodePaths, ensure_run_dir
from eve_build.node.project import describe_spec, expand_events, load_spec
from eve_build.runtime.commands import CommandArgumentsError, derive_outcome, parse_arguments
from eve_build.runtime.content import ContentError, check_content, content_to_json
from eve_build.sdk.binding import ToolContext
from eve_build.sdk.hooks import Block, Event, Handled, Rewrite, Transform
from eve_build.sdk.interaction import interacting
from eve_build.sdk.local import Spec
from eve_build.sdk.results import ResultOverride, ToolResult

logger = logging.getLogger("eve_build.node")

NODE_WAYS = ("a project node's tools cannot ask the person, a model or a subagent yet: take "
             "the value as an input of the tool, or move the tool into the agent's `tools/` "
             "or a package extension (docs/project-extensions.md)")
"""What `ctx.ask`, `ctx.sample` and `ctx.run_subagent` say in a node (the host's ways to
answer do not reach it)."""


class HandlerError(Exception):
    """A request that fails with a JSON-RPC error code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class NodeServer:
    """Answers the methods of docs/protocol.md for one loaded Spec."""

    def __init__(self, name: str, spec: Spec, context: NodeContext) -> None:
        self.name = name
        self.spec = spec
        self.context = context
        self.events = expand_events(spec)
        self.stopping = asyncio.Event()
        self._methods: dict[str, Callable[[dict[str, Any]], Any]] = {
            protocol.DESCRIBE: self.describe, protocol.TOOL_CALL: self.call_tool,
            protocol.HOOK_RUN: self.run_hook, protocol.EVENT_DELIVER: self.deliver_event,
            protocol.COMMAND_RUN: self.run_command, protocol.SHUTDOWN: self.shutdown}

    async def handle_connection(self, reader: asyncio.StreamReader,
                                writer: asyncio.StreamWriter) -> None:
        tasks: set[asyncio.Task[None]] = set()
        try:
            while line := await reader.readline():
                try:
                    message = protocol.decode_message(line)
                except protocol.ProtocolError as exc:
                    writer.write(protocol.encode_error(None, protocol.PARSE_ERROR, str(exc)))
                    continue
                if message.method is None:
                    continue  # a host never replies to us: ignore stray replies
                task = asyncio.ensure_future(self._answer(message, writer))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        except (OSError, ValueError):
            pass  # the host went away or sent an over-long line: drop this connection
        finally:
            for task in tasks:
                task.cancel()
            writer.close()

    async def _answer(self, message: protocol.Message, writer: asyncio.StreamWriter) -> None:
        method = self._methods.get(message.method or "")
        CURRENT_SENDER.set(make_sender(asyncio.get_running_loop(), writer, message.id))
        try:
            if method is None:
                raise HandlerError(protocol.METHOD_NOT_FOUND,
                                   f"unknown method `{message.method}`")
            with interacting(ask_ways=NODE_WAYS, sample_ways=NODE_WAYS,
                             subagent_ways=NODE_WAYS):
                reply = protocol.encode_result(message.id, await method(message.params))
        except HandlerError as exc:
            reply = protocol.encode_error(message.id, exc.code, str(exc))
        except Exception as exc:  # user code may raise anything
            reply = protocol.encode_error(message.id, protocol.HANDLER_FAILED,
                                          f"{type(exc).__name__}: {exc}")
        if message.id is not None and not writer.is_closing():
            writer.write(reply)
            with contextlib.suppress(OSError):
                await writer.drain()

    async def describe(self, _params: dict[str, Any]) -> dict[str, Any]:
        return describe_spec(self.name, self.spec)

    async def call_tool(self, params: dict[str, Any]) -> dict[str, Any]:
        name = str(params.get("name"))
        tool = self.spec.tools.get(name)
        if tool is None or tool.input is None or tool.execute is None:
            raise HandlerError(protocol.UNKNOWN_NAME, f"no tool `{name}`")
        try:
            model = tool.input.model_validate(params.get("arguments") or {})
        except ValidationError as exc:
            raise HandlerError(protocol.INVALID_PARAMS,
                               f"invalid arguments: {describe_errors(exc)}") from None
        sender = CURRENT_SENDER.get()
        context = ToolContext(name=name, progress=lambda text: sender and sender(
            protocol.PROGRESS, {"text": str(text)}))
        value = await _call(tool.execute, model, context)
        if isinstance(value, ToolResult):
            return encode_tool_result(name, tool.output, value)
        return {"value": _dump(tool.output, name, value)}

    async def run_hook(self, params: dict[str, Any]) -> dict[str, Any]:
        event = _event(params)
        handler = self.spec.hooks.get(event.name)
        if handler is None:
            raise HandlerError(protocol.UNKNOWN_NAME, f"no hook for `{event.name}`")
        value = await _call(handler, event, self.context)
        return encode_verdict(event.name, value, tool=str(event.tool or ""))

    async def deliver_event(self, params: dict[str, Any]) -> dict[str, Any]:
        event = _event(params)
        handlers = self.events.get(event.name, [])
        for handler in handlers:  # observers: their failures change nothing
            try:
                await _call(handler, event, self.context)
            except Exception:
                logger.exception("the `%s` observer raised", event.name)
        return {"delivered": len(handlers)}

    async def run_command(self, params: dict[str, Any]) -> dict[str, Any]:
        name = str(params.get("name"))
        command = self.spec.commands.get(name)
        if command is None or command.run is None:
            raise HandlerError(protocol.UNKNOWN_NAME, f"no command `{name}`")
        try:  # named arguments (`input=Model`) are parsed here, from the `key=value` text
            args = parse_arguments(command, str(params.get("args", "")))
        except CommandArgumentsError as exc:
            raise HandlerError(protocol.HANDLER_FAILED, f"the command `{name}`: {exc}") from None
        reply = await _call(command.run, args, self.context)
        outcome = derive_outcome(reply)  # content parts travel as their text
        if outcome is None:
            raise HandlerError(protocol.HANDLER_FAILED, f"the command `{name}` returned "
                               f"{type(reply).__name__}, not a str")
        return {"reply": outcome.text}

    async def shutdown(self, _params: dict[str, Any]) -> dict[str, Any]:
        asyncio.get_running_loop().call_later(0.01, self.stopping.set)
        return {}


def encode_verdict(event: str, value: Any, *, tool: str = "") -> dict[str, Any]:
    """A hook's return value as JSON (the shapes of DESIGN.md section 6)."""
    if value is None:
        return {"outcome": "proceed"}
    if isinstance(value, Block):
        return {"outcome": "block", "reason": value.reason}
    if isinstance(value, Rewrite):
        return {"outcome": "rewrite", "arguments": value.arguments}
    if isinstance(value, Transform):
        return {"outcome": "transform", "text": value.text}
    if isinstance(value, Handled):
        return {"outcome": "handled", "reply": value.reply}
    if event == "action.result":
        return {"outcome": "result", **_encode_result(tool, value)}
    raise HandlerError(protocol.HANDLER_FAILED,
                       f"the `{event}` hook returned {type(value).__name__}")


def encode_tool_result(name: str, output: type[BaseModel] | None,
                       value: ToolResult) -> dict[str, Any]:
    """A returned `ToolResult` as `{"value": details, "content": [parts], "isError"}`.

    The parts are checked here with the host's own checks (runtime/content.py), so a
    bad part fails the call with the message a local tool's would get; the details
    are dumped and checked against the output model as a plain value is.
    """
    details = value.details
    if details is not None:
        details = _dump(output, name, details)
    return {"value": details, **_encode_parts(name, value, protocol.CONTENT_INVALID, "")}


def _encode_result(tool: str, value: Any) -> dict[str, Any]:
    """An `action.result` handler's value: `result` (the value or the details), the
    parts in `content` for a ToolResult, `override` for `result(value, is_error=)`."""
    if isinstance(value, ResultOverride):
        inner = _encode_result(tool, value.value)
        return {**inner, "override": True,
                "isError": value.is_error is True or inner.get("isError") is True}
    if isinstance(value, ToolResult):
        return {"result": value.details, **_encode_parts(
            tool or "the tool", value, protocol.HANDLER_FAILED, "the `action.result` hook: ")}
    return {"result": value}


def _encode_parts(tool: str, value: ToolResult, code: int, said: str) -> dict[str, Any]:
    """`content` and `isError` of a ToolResult, its parts checked with the host's own
    checks (runtime/content.py); a bad part is a HandlerError `code`."""
    try:
        parts = check_content(tool, value.content)
    except ContentError as exc:
        raise HandlerError(code, f"{said}{exc}") from None
    return {"content": content_to_json(parts), "isError": value.is_error is True}


def describe_errors(exc: ValidationError, whole: str = "(arguments)") -> str:
    """`field`: message; ... (the form the host's own argument errors take)."""
    return "; ".join(f"`{'.'.join(str(p) for p in item['loc']) or whole}`: {item['msg']}"
                     for item in exc.errors(include_input=False, include_url=False))


def _dump(output: type[BaseModel] | None, name: str, value: Any) -> Any:
    """A JSON-able value: a declared output model is checked, models are dumped.

    The node imports no `eve_build.runtime` (it would load the whole host for two
    helpers), so this mirrors `eve_build.runtime.tools.derive_value`.
    """
    if output is not None and not isinstance(value, output):
        try:
            value = output.model_validate(value)
        except ValidationError as exc:
            problems = describe_errors(exc, "(the returned value)")
            raise HandlerError(protocol.HANDLER_FAILED, f"`{name}` returned a value that does "
                               f"not match its output model: {problems}") from None
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def _event(params: dict[str, Any]) -> Event:
    data = params.get("data")
    result = params.get("result")
    tool = params.get("tool")
    if "resultContent" in params:  # the tool returned parts: its ToolResult, rebuilt
        try:
            content = protocol.decode_content(params["resultContent"])
        except protocol.ProtocolError as exc:
            raise HandlerError(protocol.INVALID_PARAMS, f"`resultContent`: {exc}") from None
        result = ToolResult(content=content, details=result, name=str(tool or ""))
    error = params.get("error")
    return Event(str(params.get("event")), tool=tool,
                 arguments=params.get("arguments"), result=result,
                 text=params.get("text"), data=data if isinstance(data, dict) else {},
                 error=error if isinstance(error, str) else None,
                 is_error=params.get("isError") is True)


async def _call(function: Callable[..., Any], *args: Any) -> Any:
    """Await an async callable; run a sync one on a thread (the context follows it)."""
    if inspect.iscoroutinefunction(function):
        return await function(*args)
    value = await asyncio.to_thread(function, *args)
    return await value if inspect.isawaitable(value) else value


def _answers(path: Path) -> bool:
    """Whether something listens on the Unix socket `path`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


async def serve_node(name: str, project: Path, home: Path) -> None:
    """Load the project, listen on its socket until SIGTERM, SIGINT or `shutdown`."""
    paths = NodePaths(home, name)
    if _answers(paths.socket):
        raise EveBuildError(f"node `{name}` is already running on `{paths.socket}`",
                            f"stop it first with `eve node stop {name}`")
    context = NodeContext(name, project)
    server = NodeServer(name, await load_spec(project, context), context)
    ensure_run_dir(home)
    paths.socket.unlink(missing_ok=True)  # a stale socket of a node that was killed
    previous = os.umask(0o177)
    try:
        listener = await asyncio.start_unix_server(server.handle_connection, str(paths.socket),
                                                   limit=protocol.LINE_LIMIT)
    finally:
        os.umask(previous)
    paths.socket.chmod(SOCKET_MODE)
    write_pid_file(paths)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, server.stopping.set)
    logger.info("node `%s` listening on %s", name, paths.socket)
    try:
        await server.stopping.wait()
    finally:
        listener.close()
        paths.socket.unlink(missing_ok=True)
        paths.pid_file.unlink(missing_ok=True)
        logger.info("node `%s` stopped", name)
