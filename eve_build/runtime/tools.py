"""One tool as the host runs it: resolve, validate arguments, execute, shape the value."""

from __future__ import annotations

import asyncio
import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from eve_build.errors import describe_exception, describe_message
from eve_build.runtime.content import ContentError, check_content, content_text, derive_content
from eve_build.runtime.handlers import HandlerRun, run_bound
from eve_build.runtime.workers import WorkerPool
from eve_build.sdk.binding import Binding, ToolContext
from eve_build.sdk.definitions import Dynamic, Tool
from eve_build.sdk.results import ToolResult
from eve_build.settings import NUMERIC_SETTINGS, read_setting

TOOL_TIMEOUT = 300.0
"""Seconds a tool may run when its define_tool() sets no `timeout` (docs/reliability.md)."""
TIMEOUT_VARIABLE = "EVE_TOOL_TIMEOUT"
"""Overrides TOOL_TIMEOUT for every tool without a timeout of its own."""
OWN_TIMEOUT_MAX = NUMERIC_SETTINGS["define_tool(timeout=...)"].high
"""A tool's own timeout is clamped to this (it is code, not input: no diagnostic)."""


class ToolCallError(Exception):
    """A step of a call failed; the message is what the caller (or the model) sees."""


def derive_timeout(tool: Tool | None, environ: Mapping[str, str] = os.environ) -> float:
    """The seconds `tool` may run: its own timeout, else EVE_TOOL_TIMEOUT, else TOOL_TIMEOUT."""
    own = tool.timeout if tool is not None else None
    if isinstance(own, int | float) and not isinstance(own, bool) and 0 < own < math.inf:
        return min(float(own), OWN_TIMEOUT_MAX)  # past it a timer bounds nothing or overflows
    return read_setting(TIMEOUT_VARIABLE, environ, TOOL_TIMEOUT)


@dataclass(frozen=True)
class ToolEntry:
    """A tool of an agent tree, bound to the mount it came from."""

    name: str  # as the agent sees it: "crm__search"
    local_name: str  # "search"
    mount: str | None  # namespace; None for the agent's own tools
    definition: Tool | Dynamic
    identity: str
    binding: Binding
    file: str
    make_context: Callable[[ToolContext], Any] | None = None  # a richer ctx (local tools)

    @property
    def dynamic(self) -> bool:
        return isinstance(self.definition, Dynamic)


async def resolve_tool(entry: ToolEntry, pool: WorkerPool) -> list[Tool]:
    """The Tools to run: the definition itself, or what a dynamic resolve(ctx) returns now.

    A dynamic resolve may return one definition or a list of them; a list holds
    alternatives under the tool's one name (names come from paths), tried in order by
    `select_tool`.
    """
    definition = entry.definition
    if isinstance(definition, Tool):
        return [definition]
    if definition.resolve is None:
        raise ToolCallError(f"`{entry.name}` is a dynamic tool without a resolve function")
    context = ToolContext(name=entry.name, namespace=entry.mount)
    budget = derive_timeout(None)
    done = await run_bound(definition.resolve, (context,), binding=entry.binding, pool=pool,
                           budget=budget)
    if done.ending == "timeout":
        raise ToolCallError(f"resolving the dynamic tool `{entry.name}` did not finish within "
                            f"{budget:g} s ({TIMEOUT_VARIABLE})")
    if done.ending == "raised":
        raise ToolCallError(f"resolving the dynamic tool `{entry.name}` raised "
                            f"{describe_exception(_error(done))}")
    value = done.value
    found = list(value) if isinstance(value, list | tuple) else [value]
    wrong = [type(v).__name__ for v in found if not isinstance(v, Tool)]
    if wrong or not found:
        what = ", ".join(wrong) if wrong else "an empty list"
        raise ToolCallError(f"the dynamic tool `{entry.name}` resolved to {what}, not "
                            "define_tool() definitions")
    return [v for v in found if isinstance(v, Tool)]


def select_tool(tools: list[Tool], name: str, arguments: Any) -> tuple[Tool, BaseModel]:
    """The first of `tools` whose input model accepts `arguments`, with the validated input;
    when none does, the error names what each one rejected."""
    problems: list[str] = []
    for tool in tools:
        try:
            return tool, validate_arguments(tool, name, arguments)
        except ToolCallError as exc:
            problems.append(str(exc))
    if len(problems) == 1:
        raise ToolCallError(problems[0])
    raise ToolCallError("no definition of the dynamic tool accepts the arguments: " + " | ".join(
        f"definition {i + 1}: {p}" for i, p in enumerate(problems)))


def validate_arguments(tool: Tool, name: str, arguments: Any) -> BaseModel:
    """The validated input model instance; the error names every wrong field."""
    if tool.input is None:
        raise ToolCallError(f"`{name}` has no input model")
    if not isinstance(arguments, Mapping) or not all(isinstance(k, str) for k in arguments):
        raise ToolCallError("invalid arguments: they must be a JSON object with string keys")
    try:
        return tool.input.model_validate(dict(arguments))
    except ValidationError as exc:
        raise ToolCallError(f"invalid arguments: {describe_errors(exc)}") from None


def describe_errors(exc: ValidationError, whole: str = "(arguments)") -> str:
    """`field`: message; ... for each error, without repeating the value given. An error
    about the whole input is labelled `whole` (`(the returned value)` for an output)."""
    parts = []
    for item in exc.errors(include_input=False, include_url=False):
        where = ".".join(str(part) for part in item["loc"]) or whole
        parts.append(f"`{where}`: {item['msg']}")
    return "; ".join(parts)


async def execute_tool(tool: Tool, entry: ToolEntry, model: BaseModel, context: Any,
                       pool: WorkerPool) -> ToolResult:
    """Run execute(input, ctx) bound to the mount; sync tools run on a worker thread.

    The answer is the tool's content (checked) and details; a plain value is both (its
    content derived). `is_error` is True when the tool returned `ToolResult(is_error=True)`.
    """
    if tool.execute is None:
        raise ToolCallError(f"`{entry.name}` has no execute function")
    budget = derive_timeout(tool)
    done = await run_bound(tool.execute, (model, context), binding=entry.binding, pool=pool,
                           budget=budget)
    if done.ending == "timeout":  # the variable is named when it set the budget
        via = f"{TIMEOUT_VARIABLE}; " if tool.timeout is None else ""
        raise ToolCallError(f"`{entry.name}` did not finish within its {budget:g} s timeout "
                            f"({via}set `define_tool(timeout=...)` to allow more)")
    if done.ending == "raised":
        error = _error(done)
        if isinstance(error, asyncio.CancelledError):
            raise ToolCallError(f"`{entry.name}` was cancelled (it raised CancelledError)")
        raise ToolCallError(describe_message(error))  # an InteractionError's says who could answer
    return derive_result(tool, entry.name, done.value)


def derive_result(tool: Tool | None, name: str, value: Any) -> ToolResult:
    """What the tool returned as content and details, checked: the details are JSON (and
    match the tool's output model), the parts are parts (runtime/content.py)."""
    if not isinstance(value, ToolResult):
        details = check_json_value(name, derive_value(tool, name, value) if tool else value)
        return ToolResult(content=derive_content(details), details=details)
    try:
        content = check_content(name, value.content)
    except ContentError as exc:
        raise ToolCallError(str(exc)) from None
    details = value.details
    if details is not None and tool is not None:
        details = derive_value(tool, name, details)
    details = check_json_value(name, details)
    is_error = value.is_error is True
    return ToolResult(content=content, details=details, is_error=is_error,
                      error=(content_text(content) or f"`{name}` returned an error")
                      if is_error else None)


def check_json_value(name: str, value: Any) -> Any:
    """`value` when it is plain JSON; NaN, sets, bytes, objects and cycles are errors."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ToolCallError(f"`{name}` returned a value that is not JSON: "
                            f"{describe_message(exc, 200)}") from None
    return value


def _error(done: HandlerRun) -> BaseException:
    return done.error if done.error is not None else RuntimeError("unknown failure")


OUTPUT_WHOLE = "(the returned value)"


def derive_value(tool: Tool, name: str, value: Any) -> Any:
    """A JSON-able value: models are dumped; a declared output model is checked."""
    if tool.output is not None and not isinstance(value, tool.output):
        try:
            value = tool.output.model_validate(value)
        except ValidationError as exc:
            raise ToolCallError(f"`{name}` returned a value that does not match its output "
                                f"model: {describe_errors(exc, OUTPUT_WHOLE)}") from None
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value
