"""The MCP server in process (the SDK's client against `create_mcp_server`): subagents,
the command-prompt seam, and the error for a missing SDK."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from eve_build.connections.sdk import require_sdk
from eve_build.errors import DiagnosticsError
from eve_build.mcp.prompts import CommandPrompt
from eve_build.mcp.server import create_mcp_server
from eve_build.runtime import Agent, ToolNotFoundError, load_agent
from tests.mcp.conftest import SECRETS, text_of


@pytest.fixture
def agent(mcp_app: Path) -> Iterator[Agent]:
    with load_agent(mcp_app, environ=SECRETS) as loaded:
        yield loaded


class Commands:
    """A stand-in CommandSource: what the local-extension host is to provide."""

    def list_commands(self) -> list[CommandPrompt]:
        return [CommandPrompt("notes", "Show the notes.", "[filter]")]

    async def run_command(self, name: str, args: str) -> str:
        if args == "boom":
            raise RuntimeError("the notes are gone")
        return f"{name}: notes matching {args!r}"


def talk(server: Any, scenario: Any) -> Any:
    async def main() -> Any:
        async with asyncio.timeout(30), Client(server, mode="legacy") as client:
            return await scenario(client)

    return asyncio.run(main())


def test_a_subagent_is_served_with_its_own_tools(agent: Agent, mcp_app: Path) -> None:
    server = create_mcp_server(agent, mcp_app, subagent="crm__reviewer")

    async def scenario(client: Client) -> Any:
        tools = [t.name for t in (await client.list_tools()).tools]
        return tools, await client.call_tool("crm__search", {"query": "x"})

    tools, outside = talk(server, scenario)

    assert tools == agent.tools("crm__reviewer")
    assert "crm__search" not in tools
    assert outside.is_error and "no tool `crm__search`" in text_of(outside)


def test_an_unknown_subagent_fails_before_serving(agent: Agent, mcp_app: Path) -> None:
    with pytest.raises(ToolNotFoundError, match="no subagent `nope`"):
        create_mcp_server(agent, mcp_app, subagent="nope")


def test_commands_become_prompts(agent: Agent, mcp_app: Path) -> None:
    server = create_mcp_server(agent, mcp_app, commands=Commands())

    async def scenario(client: Client) -> Any:
        prompts = (await client.list_prompts()).prompts
        got = await client.get_prompt("notes", {"args": "todo"})
        with pytest.raises(MCPError, match="the notes are gone"):
            await client.get_prompt("notes", {"args": "boom"})
        with pytest.raises(MCPError, match="no prompt `other`") as unknown:
            await client.get_prompt("other", {})
        assert unknown.value.code == types.INVALID_PARAMS
        return prompts, got

    prompts, got = talk(server, scenario)

    assert [(p.name, p.description) for p in prompts] == [("notes", "Show the notes.")]
    assert prompts[0].arguments[0].name == "args"
    assert got.messages[0].content.text == "notes: notes matching 'todo'"


def test_without_commands_there_are_no_prompts(agent: Agent, mcp_app: Path) -> None:
    async def scenario(client: Client) -> Any:
        return (await client.list_prompts()).prompts

    assert talk(create_mcp_server(agent, mcp_app), scenario) == []


def test_an_unknown_resource_is_a_protocol_error(agent: Agent, mcp_app: Path) -> None:
    async def scenario(client: Client) -> None:
        with pytest.raises(MCPError, match="no resource `skill://crm__nothing`"):
            await client.read_resource("skill://crm__nothing")

    talk(create_mcp_server(agent, mcp_app), scenario)


def test_a_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # what an install without the extra sees

    with pytest.raises(DiagnosticsError) as caught:
        require_sdk("`eve mcp`")

    [problem] = caught.value.diagnostics
    assert problem.code == "mcp/sdk-missing"
    assert "eve-build[mcp]" in problem.hint


def test_eve_mcp_without_the_sdk_says_which_extra(monkeypatch: pytest.MonkeyPatch,
                                                  mcp_app: Path) -> None:
    from typer.testing import CliRunner

    from eve_build.cli import app as cli

    monkeypatch.setitem(sys.modules, "mcp", None)
    result = CliRunner().invoke(cli, ["mcp", "--path", str(mcp_app)])

    assert result.exit_code == 1
    assert "pyproject.toml: error mcp/sdk-missing:" in result.stderr
    assert "-m pip install 'mcp<3,>=2.3'" in result.stderr
    assert "Traceback" not in result.output


def test_the_cli_imports_no_mcp_sdk_until_a_command_needs_it() -> None:
    import subprocess

    code = "import sys, eve_build.cli; print(sorted(m for m in sys.modules if m == 'mcp' " \
           "or m.startswith(('mcp.', 'starlette', 'httpx2'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"
