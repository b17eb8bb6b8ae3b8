"""The tools of an agent's MCP connections are tools of the loaded agent
(`<connection>__<tool>`), reached with the SDK's client: listed with their schemas,
called through the hook pipeline, absent (with a warning) when the server is down."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from eve_build.diagnostics import Diagnostic
from eve_build.runtime.agent import Agent, ToolNotFoundError
from eve_build.runtime.loader import load_agent
from eve_build.runtime.surface import Surface
from eve_build.sdk.mount import ToolResult
from tests.connections.conftest import TOKEN, start_server, wait_for_port
from tests.mcp.conftest import eve_command
from tests.mcp.servers import free_port

REMOTE_TOOLS = {"add", "count", "echo", "refuse", "wait"}


def hub_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "eve-mcp-connections"]


def test_connection_tools_are_listed_with_their_schemas(connected_app: Path,
                                                        connected_env: dict[str, str]) -> None:
    with load_agent(connected_app, environ=connected_env, local=False) as agent:
        names = set(agent.tools())
        surface = agent.surface()
        add = surface.tools["remote__add"].definition
        problems = agent.connections.diagnostics if agent.connections else []

    for connection in ("remote", "legacy", "crm__api"):  # static, dynamic over SSE, mounted
        assert {f"{connection}__{t}" for t in REMOTE_TOOLS} <= names, connection
    assert "crm__search" in names  # the mount's own tools are still there
    assert not any(name.startswith("inner__") for name in names)  # the subagent's
    assert not any(name.startswith("down__") for name in names)
    assert add.description == "Add two numbers."
    assert add.input is not None
    schema = add.input.model_json_schema()
    assert set(schema["properties"]) == {"a", "b"} and schema["required"] == ["a", "b"]
    assert not any("get.version" in name for name in names)
    by_code: dict[str, list[Diagnostic]] = {}
    for problem in problems:
        by_code.setdefault(problem.code, []).append(problem)
    [down] = by_code.pop("connection/unreachable")
    assert (down.severity.value, down.file) == ("warning", "agent/connections/down.py")
    assert "its tools are left out" in down.message
    skipped = by_code.pop("connection/tool-skipped")  # one per connection serving it
    assert {p.file for p in skipped} == {"agent/connections/remote.py",
                                         "agent/connections/legacy.py",
                                         "acme_crm/extension/connections/api.py",
                                         "agent/subagents/helper/connections/inner.py"}
    assert any("`remote__get.version` is not a name model providers accept" in p.message
               for p in skipped)
    assert by_code == {}
    assert all(TOKEN not in p.message + p.hint for p in problems)
    assert hub_threads() == []  # closed with the agent


def test_calls_go_through_the_hooks_and_shape_the_results(connected_app: Path,
                                                          connected_env: dict[str, str]) -> None:
    with load_agent(connected_app, environ=connected_env, local=False) as agent:
        added = agent.call_tool("remote__add", {"a": 2, "b": 3})
        echoed = agent.call_tool("legacy__echo", {"text": "plain text"})  # over SSE
        mounted = agent.call_tool("crm__api__add", {"a": 1, "b": 1})
        refused = agent.call_tool("remote__refuse", {"why": "as planned"})
        blocked = agent.call_tool("remote__echo", {"text": "a forbidden word"})
        counted = agent.call_tool("remote__count", {"steps": 2})
        invalid = agent.call_tool("remote__add", {"a": "many"})

    assert (added.status, added.value) == ("ok", {"total": 5})  # structured content
    assert (echoed.status, echoed.value) == ("ok", "plain text")  # one text: a str
    assert mounted.value == {"total": 2}
    assert refused.status == "failed" and "refused: as planned" in (refused.error or "")
    assert blocked.status == "blocked" and "`forbidden` is not allowed here" in (
        blocked.error or "")
    assert counted.value == {"result": "counted 2"} and counted.progress == ("step 1", "step 2")
    assert invalid.status == "failed" and "validation" in (invalid.error or "").lower()


def test_a_listing_opens_nothing_for_a_call_of_the_agents_own_tool(
        connected_app: Path, connected_env: dict[str, str]) -> None:
    with load_agent(connected_app, environ=connected_env, local=False) as agent:
        result = agent.call_tool("crm__search", {"query": "ada"})
        started = hub_threads()

    assert result.status == "ok"
    assert started == []


def test_eve_call_reaches_a_connection_tool(connected_app: Path, connected_env: dict[str, str],
                                            tmp_path: Path) -> None:
    env = {**connected_env, "EVE_HOME": str(tmp_path / "home"),
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run(eve_command("call", "remote__add", '{"a": 20, "b": 22}', "--path",
                                      str(connected_app)),
                          capture_output=True, text=True, env=env, timeout=120)
    missing = subprocess.run(eve_command("call", "down__add", "{}", "--path",
                                         str(connected_app)),
                             capture_output=True, text=True, env=env, timeout=120)

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"total": 42}
    assert missing.returncode == 1
    assert "the agent has no tool `down__add`" in missing.stderr
    assert ("agent/connections/down.py: error connection/unreachable: the MCP connection "
            "`down` cannot be reached at") in missing.stderr
    assert "hint: check that the server runs" in missing.stderr
    for run in (done, missing):
        assert TOKEN not in run.stdout + run.stderr
        assert "Traceback" not in run.stderr


def test_a_call_past_the_tool_timeout_fails_and_the_connection_goes_on(
        connected_app: Path, connected_env: dict[str, str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVE_TOOL_TIMEOUT", "1")
    with load_agent(connected_app, environ=connected_env, local=False) as agent:
        late = agent.call_tool("remote__wait", {"seconds": 30})
        # read at each call: the call that must succeed gets a budget no busy machine misses
        monkeypatch.setenv("EVE_TOOL_TIMEOUT", "120")
        after = agent.call_tool("remote__add", {"a": 1, "b": 2})

    assert late.status == "failed"
    assert "did not finish within its 1 s timeout" in (late.error or "")
    assert after.value == {"total": 3}


def test_async_code_opens_the_connections_without_blocking_its_loop(
        connected_app: Path, connected_env: dict[str, str]) -> None:
    ticks: list[int] = []
    while_opening: list[int] = []  # the ticks counted when `asurface()` returned

    async def session(agent: Agent) -> tuple[Surface, ToolResult]:
        async def tick() -> None:  # runs only while the loop is free
            while True:
                ticks.append(1)
                await asyncio.sleep(0.001)

        ticker = asyncio.ensure_future(tick())  # first runs when this task yields the loop
        try:
            surface = await agent.asurface()
            while_opening.append(len(ticks))  # before the tool call lets it run any more
            return surface, await agent.acall_tool("remote__echo", {"text": "from a loop"})
        finally:
            ticker.cancel()

    with load_agent(connected_app, environ=connected_env, local=False) as agent:
        assert agent.connections is not None and not agent.connections.entries, \
            "nothing opened yet: asurface() opens the connections"
        surface, result = asyncio.run(session(agent))

    assert "remote__echo" in surface.tools
    assert result.value == "from a loop"
    # the loop went on while the connections opened: an asurface() that blocked it would
    # return before the ticker ever ran (0), or having let it run once at most
    assert while_opening[0] > 1, while_opening


def test_a_server_that_restarts_is_reached_again(connected_app: Path,
                                                 connected_env: dict[str, str]) -> None:
    port = free_port()
    env = {**connected_env, "REMOTE_MCP_URL": f"http://127.0.0.1:{port}/mcp"}
    server = start_server(port, "streamable-http")
    try:
        wait_for_port(port)
        with load_agent(connected_app, environ=env, local=False) as agent:
            first = agent.call_tool("remote__add", {"a": 1, "b": 1})
            server.terminate()
            server.wait(30)
            gone = agent.call_tool("remote__add", {"a": 1, "b": 2})
            server = start_server(port, "streamable-http")
            wait_for_port(port)
            back = agent.call_tool("remote__add", {"a": 2, "b": 2})
    finally:
        server.terminate()
        server.wait(30)

    assert first.value == {"total": 2}
    assert gone.status == "failed" and "the MCP connection `remote`" in (gone.error or "")
    assert back.value == {"total": 4}


def test_the_agents_mcp_server_serves_its_connection_tools(
        connected_app: Path, connected_env: dict[str, str]) -> None:
    from mcp import Client

    from eve_build.serve import create_app
    from tests.mcp.servers import serving

    async def scenario(url: str) -> dict[str, Any]:
        async with asyncio.timeout(60), Client(url, read_timeout_seconds=30) as client:
            return {"tools": {t.name: t for t in (await client.list_tools()).tools},
                    "echo": await client.call_tool("crm__api__echo", {"text": "hi there"})}

    app = create_app(connected_app, mcp=True, environ=connected_env, schedules=False)
    with serving(app) as url:
        got = asyncio.run(scenario(f"{url}/mcp"))

    add = got["tools"]["remote__add"]
    assert add.description == "Add two numbers."
    assert set(add.input_schema["properties"]) == {"a", "b"}
    assert [(b.type, b.text) for b in got["echo"].content] == [("text", "hi there")]


def test_no_log_line_carries_a_header_value(connected_app: Path, connected_env: dict[str, str],
                                            caplog: pytest.LogCaptureFixture) -> None:
    env = {**connected_env, "LEGACY_MCP_URL": connected_env["DOWN_MCP_URL"]}
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="httpx2")  # `eve connections` quiets it
    with load_agent(connected_app, environ=env, local=False) as agent:
        agent.call_tool("remote__add", {"a": 1, "b": 2})
        with pytest.raises(ToolNotFoundError):  # down: logged as a warning
            agent.call_tool("legacy__add", {"a": 1, "b": 2})

    assert "the MCP connection `legacy` cannot be reached" in caplog.text
    assert "HTTP Request: POST" in caplog.text  # the HTTP client did log at DEBUG
    assert TOKEN not in caplog.text


def test_a_subagents_connection_gives_tools_to_that_subagent(
        connected_app: Path, connected_env: dict[str, str]) -> None:
    with load_agent(connected_app, environ=connected_env, local=False) as agent:
        names = agent.tools("helper")
        result = agent.call_tool("inner__add", {"a": 3, "b": 4}, subagent="helper")

    assert {f"inner__{t}" for t in REMOTE_TOOLS} <= set(names)
    assert result.value == {"total": 7}
