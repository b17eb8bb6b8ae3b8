"""Local commands (DESIGN.md section 7) as MCP prompts: `/notes ARGS` -> prompt `notes`.

A command with one `args: str` is a prompt with one optional argument `args`; one
declared with `define_command(input=Model)` is a prompt whose arguments are the model's
fields. The reply becomes the prompt's messages: a `str` one text message, content
parts (`text()`, `image()`, `audio()`, `resource()`) one message each.
`completion/complete` for a prompt's argument asks the command's `complete`.

The seam: the server asks a CommandSource for the commands and runs one through it;
AgentCommands is the one for a loaded agent (its local extensions' commands).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from mcp import types

from eve_build.runtime.agent import Agent
from eve_build.runtime.commands import COMPLETION_LIMIT, CommandArgument
from eve_build.sdk.results import AudioPart, ContentPart, ImagePart, ResourcePart, TextPart

ARGS = "args"
"""The one argument of a command without an input model: the text after its name."""


@dataclass(frozen=True)
class CommandPrompt:
    name: str
    description: str
    arg_hint: str | None = None
    arguments: tuple[CommandArgument, ...] = ()
    named: bool = False  # declared with an input model: `arguments` are its fields


class CommandSource(Protocol):
    """Where commands come from and how one runs (its reply, or an exception)."""

    def list_commands(self) -> list[CommandPrompt]: ...

    async def run_command(self, name: str, args: str | Mapping[str, str]
                          ) -> str | Sequence[ContentPart]: ...


class AgentCommands:
    """The commands of the current agent's local extensions; an error reply raises."""

    def __init__(self, current: Callable[[], Agent]) -> None:
        self._current = current

    def list_commands(self) -> list[CommandPrompt]:
        return [CommandPrompt(c.name, c.description, c.arg_hint, c.arguments, c.named)
                for c in self._current().commands()]

    async def run_command(self, name: str, args: str | Mapping[str, str]
                          ) -> str | Sequence[ContentPart]:
        reply = await self._current().arun_command(name, args)
        if not reply.ok:
            raise RuntimeError(reply.text)
        return reply.content or reply.text

    async def complete_command(self, name: str, argument: str, value: str) -> list[str]:
        return await self._current().acomplete_command(name, argument, value)


def derive_mcp_prompts(commands: list[CommandPrompt]) -> list[types.Prompt]:
    return [types.Prompt(name=c.name, description=c.description, arguments=_arguments(c))
            for c in commands]


def _arguments(command: CommandPrompt) -> list[types.PromptArgument]:
    if not command.named:
        return [types.PromptArgument(name=ARGS, required=False,
                                     description=command.arg_hint or "the command's arguments")]
    return [types.PromptArgument(name=a.name, description=a.description, required=a.required)
            for a in command.arguments]


async def get_mcp_prompt(source: CommandSource, name: str,
                         arguments: dict[str, str] | None) -> types.GetPromptResult:
    """Run the command; its reply is the prompt's messages (raises for an unknown name)."""
    known = {c.name: c for c in source.list_commands()}
    if name not in known:
        raise LookupError(f"no prompt `{name}`")
    given = arguments or {}
    reply = await source.run_command(name, given if known[name].named else given.get(ARGS, ""))
    parts: Sequence[ContentPart] = [TextPart(reply)] if isinstance(reply, str) else reply
    return types.GetPromptResult(description=known[name].description, messages=[
        types.PromptMessage(role="user", content=derive_prompt_block(p)) for p in parts])


def derive_prompt_block(part: ContentPart) -> types.TextContent | types.ImageContent | \
        types.AudioContent | types.EmbeddedResource:
    """One content part as the MCP content block of a prompt message."""
    if isinstance(part, TextPart):
        return types.TextContent(type="text", text=part.text)
    if isinstance(part, ImagePart):
        return types.ImageContent(type="image", data=_b64(part.data), mime_type=part.mime_type)
    if isinstance(part, AudioPart):
        return types.AudioContent(type="audio", data=_b64(part.data), mime_type=part.mime_type)
    assert isinstance(part, ResourcePart)
    contents: types.TextResourceContents | types.BlobResourceContents = (
        types.TextResourceContents(uri=part.uri, mime_type=part.mime_type, text=part.text)
        if part.text is not None else
        types.BlobResourceContents(uri=part.uri, mime_type=part.mime_type,
                                   blob=_b64(part.data or b"")))
    return types.EmbeddedResource(type="resource", resource=contents)


async def complete_mcp_prompt(source: CommandSource, name: str, argument: str,
                              value: str) -> types.CompleteResult:
    """`completion/complete` for a prompt's argument: what the command declares (at most
    100 values, `hasMore` beyond); no completions for a source that offers none."""
    if name not in {c.name for c in source.list_commands()}:
        raise LookupError(f"no prompt `{name}`")
    complete = getattr(source, "complete_command", None)
    values: list[str] = await complete(name, argument, value) if complete is not None else []
    return types.CompleteResult(completion=types.Completion(
        values=values[:COMPLETION_LIMIT], total=len(values),
        has_more=len(values) > COMPLETION_LIMIT))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
