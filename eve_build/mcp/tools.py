"""The agent's tools as MCP tools: listing (names, schemas, descriptions) and calls.

A call goes through `Agent.acall_tool`, the same host as `eve call`: the hook
pipeline, approval, budgets and the mount's own config. Whatever stops a call
(`blocked`, `refused`, `failed`) becomes an MCP error result whose text is the
reason; the client never sees a traceback.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import types

from eve_build.errors import EveBuildError
from eve_build.runtime.agent import Agent
from eve_build.runtime.approval import ApprovalSession, Approver
from eve_build.runtime.content import content_to_json, is_plain
from eve_build.runtime.tools import ToolCallError
from eve_build.runtime.trace import logger
from eve_build.sdk.results import ToolResult

Progress = Callable[[float, str], Awaitable[None]]
"""Sends one progress notification: (step number, message)."""

APPROVAL_REFUSED_HINT = ("this tool needs approval and this MCP client cannot be asked (it "
                         "did not declare the `elicitation` capability): use a client that "
                         "supports elicitation, or start the server with `--approve` to allow "
                         "it (`eve mcp --approve`, `eve serve --approve`)")
APPROVAL_META = "eve/approval"
"""The `_meta` key of a listed tool that needs approval: `always` or `once`."""


async def derive_mcp_tools(agent: Agent, subagent: str | None) -> list[types.Tool]:
    """One MCP tool per agent tool, sorted; a dynamic tool that cannot resolve is left out."""
    listed: list[types.Tool] = []
    await agent.asurface(subagent)  # the connections' tools open without blocking the loop
    for name in agent.tools(subagent):
        try:
            tool = await agent.aresolve_tool(name, subagent=subagent)
        except (ToolCallError, EveBuildError) as exc:
            logger.warning("`%s` is not listed: %s", name, agent.redactor.redact(str(exc)))
            continue
        if tool.input is None:
            logger.warning("`%s` is not listed: it has no input model", name)
            continue
        output = tool.output.model_json_schema() if tool.output is not None else None
        policy = tool.approval.policy if tool.approval is not None else "never"
        listed.append(types.Tool(name=name, description=tool.description or "",
                                 input_schema=tool.input.model_json_schema(),
                                 output_schema=output, **_approval_marks(policy)))
    return listed


def _approval_marks(policy: str) -> dict[str, Any]:
    """What tells a client that a tool asks for approval: `_meta["eve/approval"]` with the
    policy, and the hints MCP clients confirm before a call (not read-only, destructive)."""
    if policy == "never":
        return {}
    return {"meta": {APPROVAL_META: policy},
            "annotations": types.ToolAnnotations(read_only_hint=False, destructive_hint=True)}


async def call_mcp_tool(agent: Agent, subagent: str | None, name: str,
                        arguments: dict[str, Any] | None, *, approver: Approver | None,
                        progress: Progress | None = None,
                        approvals: ApprovalSession | None = None) -> types.CallToolResult:
    """Call one tool through the host; progress texts are sent in order before the result."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    loop = asyncio.get_running_loop()
    sender = asyncio.create_task(_send_progress(queue, progress))

    def report(text: str) -> None:  # sync tools report from a worker thread: hand it over
        loop.call_soon_threadsafe(queue.put_nowait, text)

    try:
        result = await agent.acall_tool(name, arguments or {}, subagent=subagent,
                                        approver=approver, on_progress=report,
                                        approvals=approvals)
    except EveBuildError as exc:  # an unknown tool or subagent
        return error_result(exc.message + (f" ({exc.hint})" if exc.hint else ""))
    finally:
        await asyncio.sleep(0)  # let texts queued by the worker thread land first
        await queue.join()
        sender.cancel()
    if not result.ok:
        reason = f"`{name}` {result.status}: {result.error}"
        if result.status == "refused" and approver is None:
            reason += f"\nhint: {APPROVAL_REFUSED_HINT}"
        return error_result(reason)
    return derive_result(result)


def derive_result(value: Any) -> types.CallToolResult:
    """The host's ToolResult or a plain value as an MCP result.

    Content parts (a tool that returned `ToolResult(content=...)`) become content blocks:
    text, image, audio and embedded resources (text or blob), with the details as
    `structuredContent` when they are an object. A plain value: a `str` as that text; an
    object as `structuredContent` with its JSON text beside it (what MCP asks of tools
    with an output schema, whose values are objects); anything else (numbers, lists,
    None) as its JSON text."""
    if isinstance(value, ToolResult):
        if not is_plain(value.content, value.value):
            return types.CallToolResult(
                content=[_block(part) for part in content_to_json(value.content)],
                structured_content=value.value if isinstance(value.value, dict) else None)
        value = value.value
    if isinstance(value, str):
        return types.CallToolResult(content=[types.TextContent(type="text", text=value)])
    text = json.dumps(value, default=str, ensure_ascii=False)
    content = [types.TextContent(type="text", text=text)]
    if isinstance(value, dict):
        return types.CallToolResult(content=content, structured_content=value)
    return types.CallToolResult(content=content)


def _block(part: dict[str, Any]) -> types.ContentBlock:
    """One content part (runtime/content.py's JSON) as an MCP content block."""
    if part["type"] == "text":
        return types.TextContent(type="text", text=part["text"])
    if part["type"] == "image":
        return types.ImageContent(type="image", data=part["data"], mime_type=part["mimeType"])
    if part["type"] == "audio":
        return types.AudioContent(type="audio", data=part["data"], mime_type=part["mimeType"])
    contents: types.TextResourceContents | types.BlobResourceContents = (
        types.TextResourceContents(uri=part["uri"], mime_type=part["mimeType"],
                                   text=part["text"]) if "text" in part else
        types.BlobResourceContents(uri=part["uri"], mime_type=part["mimeType"],
                                   blob=part["data"]))
    return types.EmbeddedResource(type="resource", resource=contents)


def error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)],
                                is_error=True)


async def _send_progress(queue: asyncio.Queue[str], progress: Progress | None) -> None:
    step = 0
    while True:
        text = await queue.get()
        step += 1
        try:
            if progress is not None:
                await progress(step, text)
        except Exception as exc:  # a gone client must not fail the call
            logger.warning("progress was not sent: %s", exc)
        finally:
            queue.task_done()
