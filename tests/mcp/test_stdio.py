"""`eve mcp` as a subprocess, driven by the MCP SDK's own stdio client."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from typer.testing import CliRunner

from eve_build.cli import app as cli
from tests.conftest import FIXTURES
from tests.mcp.conftest import eve_command, text_of

Scenario = Callable[[Client], Awaitable[Any]]
TRIAGE = FIXTURES / "extensions/acme-crm/extension/skills/triage"


def run_session(app: Path, env: dict[str, str], stderr: Path, scenario: Scenario,
                *flags: str) -> Any:
    """Start `eve mcp --path APP FLAGS`, run the scenario against it, stop it."""
    command = eve_command("mcp", "--path", str(app), *flags)
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    unreadable: list[Exception] = []

    async def watch(message: Any) -> None:  # a stdout line that is not protocol lands here
        if isinstance(message, Exception):
            unreadable.append(message)

    async def main() -> Any:
        with stderr.open("w") as errlog:
            async with asyncio.timeout(90), Client(
                    stdio_client(params, errlog=errlog), read_timeout_seconds=60,
                    message_handler=watch) as client:
                return await scenario(client)

    result = asyncio.run(main())
    assert unreadable == []
    return result


def test_tools_of_both_mounts_have_the_schemas_eve_info_shows(mcp_app: Path, eve_env: Any,
                                                              tmp_path: Path) -> None:
    async def scenario(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = {t.name: t for t in run_session(mcp_app, eve_env(), tmp_path / "err", scenario)}
    shown = CliRunner().invoke(cli, ["info", "--json", "--path", str(mcp_app)])
    info = json.loads(shown.stdout)

    assert sorted(tools) == sorted(info["tools"])
    assert {"crm__search", "company__search", "explode", "noisy"} <= set(tools)
    for name, schema in info["toolInputSchemas"]["root"].items():
        assert tools[name].input_schema == schema, name
    assert tools["company__search"].description.startswith("Search CRM contacts")
    search_output = tools["crm__search"].output_schema
    assert search_output is not None and "results" in search_output["properties"]
    assert tools["company__search"].output_schema == search_output
    assert tools["explode"].output_schema is None


def test_calls_go_through_the_host(mcp_app: Path, eve_env: Any, tmp_path: Path) -> None:
    progress: list[tuple[float, str | None]] = []

    async def on_progress(step: float, total: float | None, message: str | None) -> None:
        progress.append((step, message))

    async def scenario(client: Client) -> dict[str, Any]:
        return {
            "crm": await client.call_tool("crm__search", {"query": "ada", "limit": 5},
                                          progress_callback=on_progress),
            "company": await client.call_tool("company__search", {"query": "ada", "limit": 5}),
            "blocked": await client.call_tool("crm__search", {"query": "a forbidden word"}),
            "raising": await client.call_tool("explode", {"why": "as planned"}),
            "invalid": await client.call_tool("crm__search", {"limit": "many"}),
            "refused": await client.call_tool("crm__create_contact",
                                              {"name": "Ada", "email": "ada@example.com"}),
            "noisy": await client.call_tool("noisy", {}),
            "after": await client.call_tool("company__search", {"query": "bob"}),
        }

    stderr = tmp_path / "stderr.txt"
    got = run_session(mcp_app, eve_env(), stderr, scenario)

    crm, company = got["crm"], got["company"]
    assert not crm.is_error and crm.structured_content["region"] == "eu"
    assert crm.structured_content["limit"] == 5
    assert json.loads(text_of(crm)) == crm.structured_content
    assert company.structured_content["region"] == "us"
    assert company.structured_content["limit"] == 3  # this mount's max_results
    assert progress == [(1.0, "searching eu for 'ada'")]
    assert got["blocked"].is_error
    assert "`forbidden` is not allowed here" in text_of(got["blocked"])
    assert "blocked" in text_of(got["blocked"])
    assert got["raising"].is_error
    assert "exploded as planned" in text_of(got["raising"])
    assert got["invalid"].is_error and "`query`" in text_of(got["invalid"])
    assert got["refused"].is_error and "--approve" in text_of(got["refused"])
    assert got["noisy"].structured_content == {"printed": True}
    assert got["after"].structured_content["query"] == "bob"
    logs = stderr.read_text()
    assert "a stray print that must not reach the protocol stream" in logs
    assert "a child writing to fd 1" in logs
    for result in got.values():
        assert "Traceback" not in text_of(result)
    assert "Traceback" not in logs
    assert "crm-key-value" not in logs


def test_approve_lets_approval_tools_run(mcp_app: Path, eve_env: Any, tmp_path: Path) -> None:
    async def scenario(client: Client) -> Any:
        return await client.call_tool("crm__create_contact",
                                      {"name": "Ada", "email": "ada@example.com"})

    result = run_session(mcp_app, eve_env(), tmp_path / "err", scenario, "--approve")

    assert not result.is_error
    assert result.structured_content["created"] is True
    assert result.structured_content["region"] == "eu"


def test_skills_are_resources_with_their_assets(mcp_app: Path, eve_env: Any,
                                                tmp_path: Path) -> None:
    async def scenario(client: Client) -> Any:
        listed = (await client.list_resources()).resources
        main = await client.read_resource("skill://company__triage")
        asset = await client.read_resource("skill://crm__triage/templates/reply.txt")
        own = await client.read_resource("skill://onboarding/steps.md")
        return listed, main.contents[0], asset.contents[0], own.contents[0]

    listed, main, asset, own = run_session(mcp_app, eve_env(), tmp_path / "err", scenario)

    uris = {str(r.uri) for r in listed}
    assert {"skill://crm__triage", "skill://crm__summarize", "skill://company__triage",
            "skill://crm__triage/checklist.md", "skill://crm__triage/templates/reply.txt",
            "skill://onboarding", "skill://onboarding/steps.md"} <= uris
    triage = next(r for r in listed if str(r.uri) == "skill://crm__triage")
    assert triage.description.startswith("Triage an incoming CRM ticket")
    assert main.text == (TRIAGE / "SKILL.md").read_text()
    assert main.mime_type == "text/markdown"
    assert asset.text == (TRIAGE / "templates/reply.txt").read_text()
    assert own.text == "1. Create the account.\n"  # the agent's own skill, from its folder


def test_an_unknown_subagent_is_an_error_on_stderr(mcp_app: Path, eve_env: Any) -> None:
    done = subprocess.run(eve_command("mcp", "--path", str(mcp_app), "--subagent", "nope"),
                          env=eve_env(), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)

    assert done.returncode == 1
    assert done.stdout == ""
    assert "the agent has no subagent `nope`" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_mount_missing_its_env_fails_only_its_own_tools(mcp_app: Path, eve_env: Any,
                                                          tmp_path: Path) -> None:
    env = eve_env()
    del env["COMPANY_CRM_KEY"]

    async def scenario(client: Client) -> dict[str, Any]:
        return {
            "crm": await client.call_tool("crm__search", {"query": "ada", "limit": 5}),
            "company": await client.call_tool("company__search", {"query": "ada", "limit": 5}),
        }

    calls = run_session(mcp_app, env, tmp_path / "err", scenario)

    assert not calls["crm"].is_error  # the other mount keeps working (DESIGN section 10)
    assert calls["company"].is_error
    assert "COMPANY_CRM_KEY" in text_of(calls["company"])
    assert "Traceback" not in (tmp_path / "err").read_text()


def test_local_extensions_give_tools_and_prompts(mcp_app: Path, eve_env: Any,
                                                 tmp_path: Path) -> None:
    async def scenario(client: Client) -> Any:
        tools = [t.name for t in (await client.list_tools()).tools]
        noted = await client.call_tool("note", {"text": "call Ada"})
        prompts = (await client.list_prompts()).prompts
        shown = await client.get_prompt("notes", {"args": "today"})
        return tools, noted, prompts, shown

    tools, noted, prompts, shown = run_session(
        mcp_app, eve_env(), tmp_path / "err", scenario,
        "-e", str(FIXTURES / "local/notes.py"))

    assert "note" in tools and "crm__search" in tools
    assert noted.structured_content == {"noted": "call Ada", "count": 1, "extension": "notes"}
    assert [(p.name, p.description) for p in prompts] == [("notes", "Show the notes.")]
    assert shown.messages[0].content.text == "1 notes (today)\n- call Ada"
