"""Local commands (DESIGN.md section 7) as MCP prompts: `/notes ARGS` -> prompt `notes`.

The seam: the server asks a CommandSource for the commands and runs one through it;
AgentCommands is the one for a loaded agent (its local extensions' commands).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from mcp import types

from eve_build.runtime.agent import Agent

ARGS = "args"
"""The one prompt argument: the text after the command's name."""


@dataclass(frozen=True)
class CommandPrompt:
    name: str
    description: str
    arg_hint: str | None = None


class CommandSource(Protocol):
    """Where commands come from and how one runs (its reply text, or an exception)."""

    def list_commands(self) -> list[CommandPrompt]: ...

    async def run_command(self, name: str, args: str) -> str: ...


class AgentCommands:
    """The commands of the current agent's local extensions; an error reply raises."""

    def __init__(self, current: Callable[[], Agent]) -> None:
        self._current = current

    def list_commands(self) -> list[CommandPrompt]:
        return [CommandPrompt(c.name, c.description, c.arg_hint)
                for c in self._current().commands()]

    async def run_command(self, name: str, args: str) -> str:
        reply = await self._current().arun_command(name, args)
        if not reply.ok:
            raise RuntimeError(reply.text)
        return reply.text


def derive_mcp_prompts(commands: list[CommandPrompt]) -> list[types.Prompt]:
    return [types.Prompt(name=c.name, description=c.description, arguments=[
        types.PromptArgument(name=ARGS, description=c.arg_hint or "the command's arguments",
                             required=False)]) for c in commands]


async def get_mcp_prompt(source: CommandSource, name: str,
                         arguments: dict[str, str] | None) -> types.GetPromptResult:
    """Run the command; its reply is the prompt's one message (raises for an unknown name)."""
    known = {c.name: c for c in source.list_commands()}
    if name not in known:
        raise LookupError(f"no prompt `{name}`")
    reply = await source.run_command(name, (arguments or {}).get(ARGS, ""))
    return types.GetPromptResult(description=known[name].description, messages=[
        types.PromptMessage(role="user", content=types.TextContent(type="text", text=reply))])
