"""The agent's MCP server at `/mcp` of the served app, over real HTTP with the SDK's
streamable HTTP client."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mcp import Client

from eve_build.mcp.http import create_app_with_mcp
from tests.mcp.conftest import SECRETS, text_of
from tests.mcp.servers import serving


def test_the_served_app_answers_mcp_at_slash_mcp(mcp_app: Path) -> None:
    app = create_app_with_mcp(mcp_app, environ=SECRETS, schedules=False)
    progress: list[str | None] = []

    async def on_progress(_step: float, _total: float | None, message: str | None) -> None:
        progress.append(message)

    async def scenario(url: str) -> dict[str, Any]:
        async with asyncio.timeout(60), Client(f"{url}/mcp", read_timeout_seconds=30) as client:
            return {
                "tools": [t.name for t in (await client.list_tools()).tools],
                "search": await client.call_tool("company__search", {"query": "ada"},
                                                 progress_callback=on_progress),
                "blocked": await client.call_tool("crm__search", {"query": "forbidden"}),
                "skill": await client.read_resource("skill://crm__summarize"),
            }

    with serving(app) as url:
        got = asyncio.run(scenario(url))

    assert {"crm__search", "company__search", "explode"} <= set(got["tools"])
    assert got["search"].structured_content["region"] == "us"
    assert progress == ["searching us for 'ada'"]
    assert got["blocked"].is_error and "is not allowed here" in text_of(got["blocked"])
    assert "five bullet points" in got["skill"].contents[0].text


def test_a_foreign_host_header_is_refused(mcp_app: Path) -> None:
    import httpx

    app = create_app_with_mcp(mcp_app, environ=SECRETS, schedules=False)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    with serving(app) as url:
        response = httpx.post(f"{url}/mcp", json=body, timeout=30,
                              headers={"Host": "evil.example.com",
                                       "Accept": "application/json, text/event-stream"})
        health = httpx.get(f"{url}/.eve/health", timeout=30)

    assert response.status_code in (400, 403, 421)
    assert health.status_code == 200  # the rest of the app is unchanged


def test_eve_serve_mounts_the_mcp_server(mcp_app: Path, eve_env: Any) -> None:
    import queue
    import signal
    import subprocess
    import threading

    from tests.mcp.conftest import eve_command

    process = subprocess.Popen(eve_command("serve", "--path", str(mcp_app), "--port", "0"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=eve_env(NO_COLOR="1"))
    try:
        assert process.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        out = process.stdout
        threading.Thread(target=lambda: [lines.put(text) for text in out], daemon=True).start()
        line = lines.get(timeout=60)  # `serving on URL` once the app has started
        assert line.startswith("serving on http://127.0.0.1:"), line
        port = int(line.split()[2].rsplit(":", 1)[1])  # the port the kernel picked

        async def scenario() -> Any:
            async with asyncio.timeout(60), Client(f"http://127.0.0.1:{port}/mcp",
                                                   read_timeout_seconds=30) as client:
                return await client.call_tool("crm__search", {"query": "ada"})

        result = asyncio.run(scenario())
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            stderr = process.communicate(timeout=60)[1]
        except subprocess.TimeoutExpired:
            process.kill()
            stderr = process.communicate(timeout=60)[1]

    assert result.structured_content["region"] == "eu"
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr


def test_before_a_good_build_mcp_answers_with_the_reason(mcp_app: Path) -> None:
    from mcp.shared.exceptions import MCPError

    from eve_build.serve.generation import Host

    app = create_app_with_mcp(mcp_app, host=Host(None), schedules=False)  # `eve dev`, failing

    async def scenario(url: str) -> str:
        async with asyncio.timeout(60), Client(f"{url}/mcp", read_timeout_seconds=30) as client:
            try:
                await client.list_tools()
            except MCPError as exc:
                return exc.message
        return "no error"

    with serving(app) as url:
        message = asyncio.run(scenario(url))

    assert message.startswith("the agent has no good build yet")
