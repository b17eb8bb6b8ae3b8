"""Check what `setup(ctx)` returned and keep the parts that are fine.

A bad part (a tool that is no `define_tool()`, a hook for an unknown event, a
command without `run`...) is left out with a warning that names the extension's
file; the rest of the extension still loads. Hook and event names are checked
against the table in `eve_build.sdk.hooks`, with a did-you-mean.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any

from eve_build.diagnostics import Diagnostic, warning
from eve_build.load.checks import Where, check_tool
from eve_build.local.record import LocalExtension
from eve_build.naming import (
    TOOL_NAME_LIMIT,
    derive_shown_name,
    find_tool_name_problems,
    suggest_segment,
)
from eve_build.sdk.definitions import Tool, derive_kind
from eve_build.sdk.hooks import (
    ALL_EVENTS,
    CLASSED_EVENTS,
    EVENT_CLASSES,
    INTERCEPTING_EVENTS,
    KNOWN_EVENTS,
    OBSERVED_EVENTS,
)
from eve_build.sdk.local import Command, Spec

OBSERVABLE = tuple(dict.fromkeys((*CLASSED_EVENTS, *OBSERVED_EVENTS)))


def derive_contributions(record: LocalExtension, spec: Spec) -> None:
    """Fill the record's tools, commands, guidelines, hooks and events from `spec`."""
    record.tools = _named(record, "tools", spec.tools, _tool_problem)
    record.commands = _named(record, "commands", spec.commands, _command_problem)
    record.guidelines = _guidelines(record, spec.guidelines)
    record.hooks = _handlers(record, "hooks", spec.hooks, INTERCEPTING_EVENTS,
                             "an intercepting event", OBSERVABLE)
    events = _handlers(record, "events", spec.events, (*OBSERVABLE, *EVENT_CLASSES, ALL_EVENTS),
                       "an observed event or class", INTERCEPTING_EVENTS)
    record.events = expand_events(events)


def expand_events(events: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """Event classes and `*` become the event names they stand for (a name wins)."""
    expanded: dict[str, Callable[..., Any]] = {}
    if ALL_EVENTS in events:
        expanded.update(dict.fromkeys(OBSERVABLE, events[ALL_EVENTS]))
    for key, handler in events.items():
        if key in EVENT_CLASSES:
            expanded.update(dict.fromkeys(EVENT_CLASSES[key], handler))
    expanded.update({k: h for k, h in events.items() if k in OBSERVABLE})
    return expanded


def _warn(record: LocalExtension, code: str, message: str, hint: str) -> None:
    record.diagnostics.append(warning(code, record.path, f"`{record.name}`: {message}", hint))


def _named(record: LocalExtension, field: str, values: object,
           problem: Callable[[str, object, LocalExtension], Diagnostic | None]) -> dict[str, Any]:
    if not isinstance(values, Mapping):
        _warn(record, "local/spec-invalid", f"`{field}` is a {type(values).__name__}, not a dict",
              f"pass `{field}={{name: ...}}` to Spec")
        return {}
    kept: dict[str, Any] = {}
    for name, value in values.items():
        problems = (find_tool_name_problems(name) if isinstance(name, str)
                    else [f"it is a {type(name).__name__}, not a str"])
        if problems:
            shown = derive_shown_name(name if isinstance(name, str) else repr(name))
            suggestion = suggest_segment(name if isinstance(name, str) else "")
            _warn(record, "local/name-invalid",
                  f"the name `{shown}` in `{field}` is left out: {'; '.join(problems)}",
                  f"use 1 to {TOOL_NAME_LIMIT} lower-case letters, digits, `_` and `-`, "
                  f"starting with a letter or digit, without `__` (for example "
                  f"`{suggestion[:TOOL_NAME_LIMIT]}`)")
            continue
        diagnostic = problem(name, value, record)
        if diagnostic is not None:
            record.diagnostics.append(diagnostic)
            continue
        kept[name] = value
    return kept


def _tool_problem(name: str, value: object, record: LocalExtension) -> Diagnostic | None:
    where = Where(record.path, None)
    if not isinstance(value, Tool):
        return warning("local/tool-invalid", record.path,
                       f"`{record.name}`: the tool `{name}` is {derive_kind(value)}, not a "
                       "define_tool() definition; it is left out",
                       "pass `tools={name: define_tool(description=..., input=..., "
                       "execute=...)}`")
    _, problems = check_tool(value, where)
    if not problems:
        return None
    first = problems[0]
    return warning("local/tool-invalid", record.path,
                   f"`{record.name}`: the tool `{name}` is left out: {first.message}", first.hint)


def _command_problem(name: str, value: object, record: LocalExtension) -> Diagnostic | None:
    if isinstance(value, Command) and callable(value.run):
        problem = _command_shape_problem(value)
        if problem is None:
            return None
        return warning("local/command-invalid", record.path,
                       f"`{record.name}`: the command `{name}` {problem}; it is left out",
                       "pass `define_command(input=Model, run=fn, complete={\"field\": "
                       "[\"value\", ...] or fn})` where `def fn(args: Model, ctx)` and each "
                       "completed name is a field of Model")
    what = "has no callable `run`" if isinstance(value, Command) else (
        f"is {derive_kind(value)}, not a define_command() definition")
    return warning("local/command-invalid", record.path,
                   f"`{record.name}`: the command `{name}` {what}; it is left out",
                   "pass `commands={name: define_command(description=..., run=fn)}` where "
                   "`def fn(args: str, ctx) -> str`")


def _command_shape_problem(command: Command) -> str | None:
    """What is wrong with a command's `input` or `complete`, if anything."""
    from pydantic import BaseModel

    model = command.input
    if model is not None and not (isinstance(model, type) and issubclass(model, BaseModel)):
        return f"has an `input` that is {derive_kind(model)}, not a pydantic model class"
    names = list(model.model_fields) if model is not None else ["args"]
    for argument, completer in command.complete.items():
        if argument not in names:
            return (f"completes `{argument}`, which is not one of its arguments "
                    f"({', '.join(f'`{n}`' for n in names)})")
        if not callable(completer) and (isinstance(completer, str) or not all(
                isinstance(v, str) for v in completer)):
            return (f"completes `{argument}` with {derive_kind(completer)}, not strings or "
                    "a function")
    return None


def _guidelines(record: LocalExtension, values: object) -> list[str]:
    if isinstance(values, str) or not isinstance(values, (list, tuple)):
        _warn(record, "local/spec-invalid",
              f"`guidelines` is a {type(values).__name__}, not a list of strings",
              'pass `guidelines=["one line", ...]`')
        return []
    kept = [v.strip() for v in values if isinstance(v, str) and v.strip()]
    if len(kept) != len(values):
        _warn(record, "local/spec-invalid", "`guidelines` holds items that are not text; "
              "they are left out", 'pass `guidelines=["one line", ...]`')
    return kept


def _handlers(record: LocalExtension, field: str, values: object, allowed: tuple[str, ...],
              what: str, elsewhere: tuple[str, ...]) -> dict[str, Callable[..., Any]]:
    if not isinstance(values, Mapping):
        _warn(record, "local/spec-invalid", f"`{field}` is a {type(values).__name__}, not a dict",
              f"pass `{field}={{event: handler}}` to Spec")
        return {}
    kept: dict[str, Callable[..., Any]] = {}
    for key, handler in values.items():
        name = key if isinstance(key, str) else repr(key)
        if name not in allowed:
            other = "events" if field == "hooks" else "hooks"
            hint = (f"`{name}` belongs in `{other}`" if name in elsewhere
                    else _did_you_mean(name, allowed) + f" `{field}` takes {what}")
            _warn(record, "local/event-unknown", f"`{field}` names `{name}`, which is not "
                  f"{what}; its handler is left out", hint)
        elif not callable(handler):
            _warn(record, "local/spec-invalid", f"the handler for `{name}` is not callable",
                  "pass a function `handler(event, ctx)`")
        else:
            kept[name] = handler
    return kept


def _did_you_mean(name: str, allowed: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(name, [*allowed, *KNOWN_EVENTS], n=1)
    return f"did you mean `{close[0]}`?" if close else "known events: " + ", ".join(allowed) + "."

