"""The authoring SDK: what extension and agent code imports.

    from eve_build.sdk import define_extension, define_tool, env
    from eve_build.sdk.approval import always, once, never

Each `define_*` returns a plain immutable value; `eve extension build` checks it and
the host runs it. Arguments are checked at build time, where every problem is
reported together with its file and line, rather than here.

Layer 1 (foundation): may import only the other foundation modules.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from eve_build.sdk.approval import Approval
from eve_build.sdk.binding import ToolContext
from eve_build.sdk.definitions import (
    Agent,
    Channel,
    Connection,
    DisabledTool,
    Dynamic,
    Extension,
    Hook,
    Instructions,
    Schedule,
    State,
    Tool,
)
from eve_build.sdk.env import Env, env
from eve_build.sdk.hooks import (
    Block,
    Event,
    Handled,
    Rewrite,
    Transform,
    block,
    handled,
    rewrite,
    transform,
)
from eve_build.sdk.interaction import LOG_LEVELS, Cancelled, Declined
from eve_build.sdk.local import Command, LocalContext, Spec, define_command
from eve_build.sdk.mount import Mount, tool_result_from
from eve_build.sdk.results import (
    AudioPart,
    ImagePart,
    ResourcePart,
    ResultOverride,
    TextPart,
    ToolResult,
    audio,
    image,
    resource,
    result,
    text,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = [
    "LOG_LEVELS",
    "Agent",
    "Approval",
    "AudioPart",
    "Block",
    "Cancelled",
    "Channel",
    "Command",
    "Connection",
    "Declined",
    "DisabledTool",
    "Dynamic",
    "Env",
    "Event",
    "Extension",
    "Handled",
    "Hook",
    "ImagePart",
    "Instructions",
    "LocalContext",
    "Mount",
    "ResourcePart",
    "ResultOverride",
    "Rewrite",
    "Schedule",
    "Spec",
    "State",
    "TextPart",
    "Tool",
    "ToolContext",
    "ToolResult",
    "Transform",
    "audio",
    "block",
    "define_agent",
    "define_channel",
    "define_command",
    "define_connection",
    "define_dynamic",
    "define_extension",
    "define_hook",
    "define_instructions",
    "define_schedule",
    "define_state",
    "define_tool",
    "disable_tool",
    "env",
    "handled",
    "image",
    "resource",
    "result",
    "rewrite",
    "text",
    "tool_result_from",
    "transform",
]


def _caller_identity() -> str:
    """`acme_crm:tools/search.py` for a definition made in `acme_crm.extension.tools.search`.

    Builds and the host stamp the same identity from the slot path; this default
    makes a plain import of a built package carry it too.
    """
    module = str(sys._getframe(2).f_globals.get("__name__", ""))
    top, sep, rest = module.partition(".extension.")
    if not sep:
        return ""
    return f"{top}:{rest.replace('.', '/')}.py"


def define_extension(config: type[BaseModel] | None = None) -> Extension:
    """Declare the extension; `config` is a pydantic model of its mount options."""
    return Extension(config_model=config)


def define_tool(
    *,
    description: str | None = None,
    input: type[BaseModel] | None = None,
    execute: Callable[..., Any] | None = None,
    output: type[BaseModel] | None = None,
    approval: Approval | None = None,
    deferred: bool = False,
    available_in_subagents: bool = True,
    timeout: float | None = None,
    prompt_snippet: str | None = None,
    prompt_guidelines: Sequence[str] = (),
) -> Tool:
    """A tool: `execute(input, ctx)` gets a validated `input` model; sync or async.

    `prompt_snippet` is the tool's one line in the system prompt (default: its
    description); `prompt_guidelines` are lines added to the prompt's guidelines while
    the tool is available."""
    return Tool(
        description=description, input=input, execute=execute, output=output,
        approval=approval, deferred=deferred, available_in_subagents=available_in_subagents,
        timeout=timeout, prompt_snippet=prompt_snippet,
        prompt_guidelines=tuple(prompt_guidelines) if isinstance(
            prompt_guidelines, list | tuple) else prompt_guidelines,  # type: ignore[arg-type]
        identity=_caller_identity(),
    )


def disable_tool() -> DisabledTool:
    """In an override slot: remove the mounted tool of this name."""
    return DisabledTool()


def define_dynamic(*, resolve: Callable[..., Any] | None = None) -> Dynamic:
    """Definitions resolved at run time: `resolve(ctx)` returns one or a list."""
    return Dynamic(resolve=resolve, identity=_caller_identity())


def define_channel(
    *, route: str | None = None, handle: Callable[..., Any] | None = None, method: str = "POST"
) -> Channel:
    return Channel(route=route, handle=handle, method=method, identity=_caller_identity())


def define_connection(
    *, url: Any = None, kind: str = "mcp", headers: Mapping[str, Any] | None = None
) -> Connection:
    return Connection(url=url, kind=kind, headers=headers, identity=_caller_identity())


def define_schedule(
    *, cron: str | None = None, run: Callable[..., Any] | None = None, markdown: str | None = None
) -> Schedule:
    """A schedule: a 5-field cron and exactly one of `run(ctx)` or `markdown`."""
    return Schedule(cron=cron, run=run, markdown=markdown, identity=_caller_identity())


def define_agent(*, description: str | None = None, model: str | None = None) -> Agent:
    return Agent(description=description, model=model)


def define_hook(*, events: Mapping[str, Callable[..., Any]] | None = None) -> Hook:
    """Hook events by name (`"action.call"`, ... or `"*"`) to `handler(event, ctx)`."""
    return Hook(events=dict(events or {}), identity=_caller_identity())


def define_instructions(*, render: Callable[..., Any] | None = None) -> Instructions:
    return Instructions(render=render)


def define_state(name: str, initial: Callable[[], Any]) -> State:
    """A durable per-mount value, keyed by the mount path and `name`."""
    frame = sys._getframe(1)
    caller = frame.f_globals.get("__name__", "")
    return State(name=name, initial=initial, module=str(caller), line=frame.f_lineno)
