"""User code that blocks its event loop is cut off at its budget on every surface, and the
host keeps answering (issue 26, item 8): a real `eve serve` whose async channel calls
`time.sleep` (health answers, the request gets its timeout, SIGTERM stops the server),
and a real `eve mcp` whose async tool does (a ping is answered, stdin EOF ends it)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import httpx
import pytest

from eve_build.consumer.build import build_agent
from tests.reliability.served import LiveServer
from tests.runtime.apps import make_app

FOREVER = """\
import time
from pydantic import BaseModel
from eve_build.sdk import define_channel, define_tool


class In(BaseModel):
    pass
"""
FILES = {
    "channels/forever.py": FOREVER + """

async def handle(request, ctx):
    time.sleep(3600)  # sync sleep inside async def: its event loop is held
    return {"slept": True}


channel = define_channel(route="/forever", handle=handle, method="POST")
""",
    "tools/forever.py": FOREVER + """

async def execute(input, ctx):
    time.sleep(3600)  # sync sleep inside async def: its event loop is held
    return {"slept": True}


tool = define_tool(description="Blocks its event loop.", input=In, execute=execute)
""",
    "tools/fine.py": FOREVER + """

async def execute(input, ctx):
    return {"ok": True}


tool = define_tool(description="Answers.", input=In, execute=execute)
""",
}
TIMEOUT = 60.0


@pytest.fixture(scope="module")
def blocking_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("user-loop") / "app"
    root.mkdir()
    make_app(root, [], FILES)
    build_agent(root)
    return root


def test_serve_answers_while_a_channel_blocks_its_loop_and_stops_on_sigterm(
    blocking_root: Path, tmp_path: Path,
) -> None:
    running = LiveServer(blocking_root, tmp_path / "home", "--channel-timeout", "1")
    answers: dict[str, httpx.Response] = {}
    try:
        url = running.wait_ready()

        def call() -> None:
            answers["forever"] = httpx.post(f"{url}/forever", timeout=TIMEOUT)

        caller = threading.Thread(target=call)
        caller.start()
        running.wait_for_log("the event loop is blocked: channel `forever`")
        health = httpx.get(f"{url}/.eve/health", timeout=TIMEOUT)  # while it blocks
        caller.join(timeout=TIMEOUT)
        again = httpx.post(f"{url}/forever", timeout=TIMEOUT)  # the next one is cut off too
    finally:
        code, log = running.stop()

    assert health.status_code == 200
    assert health.json()["loop"]["blocked"] is True
    assert health.json()["loop"]["lastBlock"]["handler"] == "channel `forever`"
    for answer in (answers["forever"], again):
        assert answer.status_code == 500
        assert answer.json()["error"]["code"] == "serve/channel-timeout"
    assert "did not answer within 1 s" in log
    assert code == 0  # SIGTERM stopped it, though a user thread still sleeps
    assert "Traceback" not in log


def _mcp_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}


def _wait_for(path: Path, text: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while text not in path.read_text():
        assert time.monotonic() < deadline, f"{text!r} never appeared:\n{path.read_text()}"
        time.sleep(0.05)


@pytest.mark.filterwarnings("ignore:ping is removed")  # the SDK keeps it for legacy mode
def test_mcp_answers_a_ping_while_a_tool_blocks_its_loop(blocking_root: Path,
                                                          tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, env=_mcp_env(tmp_path), args=[
        "-m", "eve_build", "mcp", "--path", str(blocking_root)])
    errlog_path = tmp_path / "stderr.txt"

    async def main() -> Any:
        with errlog_path.open("w") as errlog:
            async with asyncio.timeout(TIMEOUT * 2), Client(
                    stdio_client(params, errlog=errlog), read_timeout_seconds=TIMEOUT,
                    mode="legacy") as client:  # ping is a legacy-mode request
                call = asyncio.ensure_future(client.call_tool("forever", {}))
                await asyncio.to_thread(_wait_for, errlog_path,
                                        "the event loop is blocked: tool `forever`")
                assert not call.done()
                pong = await client.send_ping()  # answered while the tool holds its loop
                fine = await client.call_tool("fine", {})
                call.cancel()
                with contextlib.suppress(BaseException):
                    await call
                return pong, fine

    pong, fine = asyncio.run(main())
    assert pong is not None
    assert not fine.is_error and fine.structured_content == {"ok": True}


def _send(stdin: IO[str], message: dict[str, Any]) -> None:
    stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    stdin.flush()


def test_mcp_ends_at_stdin_eof_while_a_tool_blocks_its_loop(blocking_root: Path,
                                                            tmp_path: Path) -> None:
    errlog_path = tmp_path / "stderr.txt"
    with errlog_path.open("w") as errlog:
        process = subprocess.Popen([sys.executable, "-m", "eve_build", "mcp", "--path",
                                    str(blocking_root)], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=errlog, text=True,
                                   env=_mcp_env(tmp_path))
        try:
            assert process.stdin is not None and process.stdout is not None
            _send(process.stdin, {"id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}})
            assert json.loads(process.stdout.readline())["id"] == 1
            _send(process.stdin, {"method": "notifications/initialized"})
            _send(process.stdin, {"id": 2, "method": "tools/call",
                                  "params": {"name": "forever", "arguments": {}}})
            _wait_for(errlog_path, "the event loop is blocked: tool `forever`")
            process.stdin.close()  # EOF: the client is gone
            code = process.wait(timeout=TIMEOUT)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=TIMEOUT)
    assert code == 0, errlog_path.read_text()
    assert "Traceback" not in errlog_path.read_text()
