"""A blocked event loop is named while it blocks and reported by health afterwards (issue 23,
item 9): a real `eve serve` whose async channel calls `time.sleep`, and a real `eve mcp`
whose async tool does."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.reliability.served import ENVIRON, LiveServer, make_hostile_app


@pytest.fixture(scope="module")
def blocking_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_hostile_app(tmp_path_factory.mktemp("blocking") / "app")


def test_serve_names_the_blocking_channel_and_health_reports_it_after(
    blocking_root: Path, tmp_path: Path,
) -> None:
    running = LiveServer(blocking_root, tmp_path / "home")
    try:
        url = running.wait_ready()
        before = httpx.get(f"{url}/.eve/health", timeout=30).json()
        answers: dict[str, Any] = {}

        def call(name: str, method: str, path: str) -> None:
            answers[name] = httpx.request(method, f"{url}{path}", timeout=60)

        blocker = threading.Thread(target=call, args=("blocker", "POST", "/blocker"))
        blocker.start()
        log = running.wait_for_log("the event loop is blocked")
        health = threading.Thread(target=call, args=("health", "GET", "/.eve/health"))
        health.start()  # asked while the loop is held: answered once it runs again
        blocker.join(timeout=60)
        health.join(timeout=60)
        log = running.wait_for_log("the event loop runs again")
        after = httpx.get(f"{url}/.eve/health", timeout=30).json()
    finally:
        code, log = running.stop()

    assert before["loop"] == {"blocked": False, "blocks": 0, "lastBlock": None}
    assert answers["blocker"].json() == {"slept": True}
    assert answers["health"].status_code == 200
    assert after["status"] == "ok"
    assert after["loop"]["blocked"] is False and after["loop"]["blocks"] == 1
    last = after["loop"]["lastBlock"]
    assert last["handler"] == "channel `blocker`"
    assert "agent/channels/blocker.py:" in last["where"] and last["where"].endswith(
        "in handle)")
    assert last["seconds"] > 0 and last["endedAt"].endswith("Z")
    blocked = [line for line in log.splitlines() if "the event loop is blocked" in line]
    assert len(blocked) == 1
    assert blocked[0].startswith("WARNING: the event loop is blocked: channel `blocker` has "
                                 "held it for ")
    assert "blocker.py:" in blocked[0] and "in handle)" in blocked[0]
    assert "Traceback" not in log
    assert code == 0


def test_mcp_names_the_blocking_tool_on_stderr(blocking_root: Path, tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**os.environ, **ENVIRON, "EVE_HOME": str(tmp_path / "home")}
    params = StdioServerParameters(command=sys.executable, env=env, args=[
        "-m", "eve_build", "mcp", "--path", str(blocking_root)])
    errlog_path = tmp_path / "stderr.txt"

    async def main() -> Any:
        with errlog_path.open("w") as errlog:
            async with asyncio.timeout(90), Client(stdio_client(params, errlog=errlog),
                                                   read_timeout_seconds=60) as client:
                result = await client.call_tool("stall", {})
                await client.list_tools()  # answered again once the tool let go
                return result

    result = asyncio.run(main())
    log = errlog_path.read_text()
    assert not result.is_error
    assert "the event loop is blocked: tool `stall` has held it for " in log
    assert "agent/tools/stall.py:" in log and "in execute)" in log
    assert "the event loop runs again: tool `stall` held it for " in log
