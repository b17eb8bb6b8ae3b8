"""Running one local command: its arguments in, its reply out (DESIGN.md section 7).

A command takes the text after its name (`run(args: str, ctx)`), or, declared with
`define_command(input=Model)`, named arguments: `key=value` words on a command line
(`/greet name=Ada "greeting=good morning"`, quoted as a shell would) or a mapping (the
arguments of an MCP prompt), validated into `Model`. Its reply is a `str`, a content
part, a list of parts or a `ToolResult`; `CommandOutcome` holds the reply's text (what
a terminal shows) and its parts (what an MCP prompt carries). Scripts (`local`) and
project nodes (`node`, which sends the text) share it, so it lives here.
"""

from __future__ import annotations

import inspect
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eve_build.sdk.local import Command
from eve_build.sdk.results import (
    AudioPart,
    ContentPart,
    ImagePart,
    ResourcePart,
    TextPart,
    ToolResult,
)

PARTS = (TextPart, ImagePart, AudioPart, ResourcePart)
COMPLETION_LIMIT = 100
"""MCP sends at most 100 completion values; the rest is `hasMore`."""


class CommandArgumentsError(ValueError):
    """The arguments do not fit the command's input model (the message says how)."""


@dataclass(frozen=True)
class CommandArgument:
    """One named argument of a command, as listings and MCP prompts show it."""

    name: str
    description: str
    required: bool


@dataclass(frozen=True)
class CommandOutcome:
    text: str
    content: tuple[ContentPart, ...]


def derive_arguments(command: Command) -> tuple[CommandArgument, ...]:
    """The fields of the command's input model, in declaration order (none without one)."""
    if command.input is None:
        return ()
    return tuple(CommandArgument(name, field.description or field.title or name,
                                 field.is_required())
                 for name, field in command.input.model_fields.items())


def parse_arguments(command: Command, args: str | Mapping[str, Any]) -> Any:
    """What `run` receives: the text as is, or the input model validated from `key=value`
    words or a mapping. Raises CommandArgumentsError with a readable reason."""
    from pydantic import ValidationError

    if command.input is None:
        if isinstance(args, str):
            return args
        return str(args.get("args", ""))
    fields = list(command.input.model_fields)
    values = dict(args) if not isinstance(args, str) else _split_words(args, fields)
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise CommandArgumentsError(
            f"unknown argument{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(f'`{u}`' for u in unknown)}; the arguments are "
            + (", ".join(f"`{f}`" for f in fields) or "none"))
    try:
        return command.input.model_validate(values)
    except ValidationError as exc:
        reasons = "; ".join(f"`{'.'.join(str(p) for p in e['loc']) or 'arguments'}`: "
                            f"{e['msg']}" for e in exc.errors())
        raise CommandArgumentsError(reasons) from None


def _split_words(text: str, fields: list[str]) -> dict[str, str]:
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise CommandArgumentsError(f"the arguments do not parse: {exc}") from None
    if words and not any("=" in w for w in words) and len(fields) == 1:
        return {fields[0]: " ".join(words)}  # one argument: the whole text is its value
    values: dict[str, str] = {}
    for word in words:
        key, equals, value = word.partition("=")
        if not equals or not key:
            raise CommandArgumentsError(
                f"`{word}` is not `key=value`; the arguments are "
                + (", ".join(f"`{f}=...`" for f in fields) or "none"))
        values[key] = value
    return values


def derive_outcome(value: Any) -> CommandOutcome | None:
    """The reply of a command's return value; None for a value that is no reply."""
    if isinstance(value, str):
        return CommandOutcome(value, (TextPart(value),))
    if isinstance(value, ToolResult):
        parts: Sequence[Any] = value.content
    elif isinstance(value, PARTS):
        parts = [value]
    elif isinstance(value, (list, tuple)) and value:
        parts = value
    else:
        return None
    if not all(isinstance(p, PARTS) for p in parts):
        return None
    content = tuple(parts)
    return CommandOutcome("\n".join(describe_part(p) for p in content), content)


def describe_part(part: ContentPart) -> str:
    """A part as a line of text: its text, or a stand-in naming it."""
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, ResourcePart):
        return part.text if part.text is not None else f"[resource {part.uri}]"
    return f"[{part.kind} {part.mime_type}, {len(part.data)} bytes]"


async def complete_argument(command: Command, argument: str, value: str) -> list[str]:
    """The completions of `argument` for the partial `value` (none when not declared):
    a declared list is filtered by prefix; a function gets the partial value."""
    completer = command.complete.get(argument)
    if completer is None:
        return []
    if callable(completer):
        found = completer(value)
        if inspect.isawaitable(found):
            found = await found
        values = [str(v) for v in found or ()]
    else:
        values = [str(v) for v in completer if str(v).startswith(value)]
    return values
