"""The node's side of its project: load `extension.py`, call `setup(ctx)`, describe the Spec."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eve_build.errors import EveBuildError
from eve_build.node import protocol
from eve_build.node.context import NodeContext
from eve_build.sdk.hooks import (
    ALL_EVENTS,
    CLASSED_EVENTS,
    EVENT_CLASSES,
    INTERCEPTING_EVENTS,
    OBSERVED_EVENTS,
)
from eve_build.sdk.local import Spec

EXTENSION_FILE = "extension.py"
MODULE_NAME = "eve_node_extension"
OBSERVABLE = tuple(dict.fromkeys((*CLASSED_EVENTS, *OBSERVED_EVENTS)))
"""What `*` in `Spec.events` stands for: every observed event."""


async def load_spec(project: Path, context: NodeContext) -> Spec:
    """Import `<project>/extension.py` and return what its `setup(ctx)` returns
    (awaited when `setup` is async, as for a script)."""
    file = project / EXTENSION_FILE
    if not file.is_file():
        raise EveBuildError(f"`{file}` does not exist",
                            "a project extension defines `setup(ctx) -> Spec` in extension.py")
    sys.path.insert(0, str(project))  # sibling modules import as in a script folder
    spec = importlib.util.spec_from_file_location(MODULE_NAME, file)
    if spec is None or spec.loader is None:
        raise EveBuildError(f"`{file}` cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE_NAME] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # user code may raise anything
        raise EveBuildError(f"importing `{file}` raised {type(exc).__name__}: {exc}") from exc
    setup = getattr(module, "setup", None)
    if not callable(setup):
        raise EveBuildError(f"`{file}` defines no `setup(ctx)` function",
                            "add `def setup(ctx): return Spec(...)`")
    try:
        result = setup(context)
        if inspect.isawaitable(result):
            result = await result
    except Exception as exc:  # user code may raise anything
        raise EveBuildError(f"`setup` in `{file}` raised {type(exc).__name__}: {exc}") from exc
    if not isinstance(result, Spec):
        raise EveBuildError(f"`setup` in `{file}` returned {type(result).__name__}, not a Spec",
                            "return `Spec(tools=..., commands=...)` from setup")
    return result


def describe_spec(name: str, spec: Spec) -> dict[str, Any]:
    """The `describe` result: every contribution with what a host needs to proxy it."""
    tools = []
    for tool_name, tool in sorted(spec.tools.items()):
        schema = tool.input.model_json_schema() if tool.input is not None else {}
        tools.append({"name": tool_name, "description": tool.description or "",
                      "inputSchema": schema, "timeout": tool.timeout})
    commands = [{"name": command_name, "description": command.description or "",
                 "argHint": command.arg_hint}
                for command_name, command in sorted(spec.commands.items())]
    return {"protocol": protocol.PROTOCOL_VERSION, "name": name, "tools": tools,
            "commands": commands, "guidelines": [str(line) for line in spec.guidelines],
            "hooks": sorted(event for event in spec.hooks if event in INTERCEPTING_EVENTS),
            "events": sorted(expand_events(spec))}


def expand_events(spec: Spec) -> dict[str, list[Callable[..., Any]]]:
    """Observed event name -> its handlers; a class (`tools`) stands for each of its events."""
    handlers: dict[str, list[Callable[..., Any]]] = {}
    for key, handler in spec.events.items():
        names = OBSERVABLE if key == ALL_EVENTS else EVENT_CLASSES.get(key, (key,))
        for event in names:
            handlers.setdefault(event, []).append(handler)
    return handlers
