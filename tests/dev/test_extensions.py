"""Bundled development extensions: `eve dev` loads them, production never does.

`eve dev` serves the agent with the bundled `eve_dev` extension: its `dev_status`
tool, called over `/mcp` with the official MCP SDK client, shows the generation
being served, the last rebuild and the surface; `--no-default-extensions` leaves it
out; `eve build`'s compiled agent and `eve serve` never have it.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from mcp import Client

from eve_build.dev.extensions import locate_bundled_extensions
from eve_build.dev.loop import DevSession
from eve_build.runtime.loader import load_agent
from tests.runtime.apps import compile_app, make_app, mount_file
from tests.waiting import stop_process


def _app(tmp_path: Path) -> Path:
    return make_app(tmp_path / "app", ["gizmo"], {"extensions/gizmo.py": mount_file("gizmo")})


def _dev_tools(root: Path, tmp_path: Path, *flags: str) -> tuple[list[str], Any]:
    """Run `eve dev`, list its tools over /mcp and call `dev_status` if it is there."""
    env = {**os.environ, "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "eve_build", "dev", "--json", "--port", "0", "--path", str(root),
         *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        out = process.stdout
        threading.Thread(target=lambda: [lines.put(text) for text in out], daemon=True).start()
        events = [json.loads(lines.get(timeout=60)) for _ in range(2)]
        url = next(e["url"] for e in events if e["status"] == "serving")
        assert any(e["status"] == "ready" for e in events), events

        async def scenario() -> tuple[list[str], Any]:
            async with asyncio.timeout(60), Client(f"{url}/mcp",
                                                   read_timeout_seconds=30) as client:
                names = [t.name for t in (await client.list_tools()).tools]
                called = (await client.call_tool("dev_status", {})
                          if "dev_status" in names else None)
                return names, called

        return asyncio.run(scenario())
    finally:
        stop_process(process, signal.SIGTERM)


def test_eve_dev_serves_dev_status_and_the_flag_leaves_it_out(tmp_path: Path) -> None:
    root = _app(tmp_path)

    names, called = _dev_tools(root, tmp_path)
    assert "dev_status" in names and "gizmo__spin" in names
    assert {"agent_files", "agent_read", "agent_write"} <= set(names)  # eve_self
    status = called.structured_content
    assert (status["generation"], status["status"], status["serving"]) == (1, "ready", 1)
    assert status["rebuilt"] == ["gizmo"]
    assert status["surface"]["tools"] == ["gizmo__spin"]
    assert status["surface"]["mounts"] == [
        {"namespace": "gizmo", "package": "gizmo", "version": "1.0.0"}]

    compiled = (root / ".eve" / "compile" / "compiled-agent.json").read_text()
    assert "dev_status" not in compiled and "eve_dev" not in compiled  # never built in

    without, _ = _dev_tools(root, tmp_path, "--no-default-extensions")
    assert "gizmo__spin" in without and "dev_status" not in without
    assert not {"agent_files", "agent_read", "agent_write"} & set(without)


def test_a_failed_rebuild_shows_in_dev_status_with_the_generation_kept(tmp_path: Path) -> None:
    root = _app(tmp_path)
    session = DevSession(root, bundled=locate_bundled_extensions())
    session.build()
    (root / "agent" / "tools").mkdir()
    broken = root / "agent" / "tools" / "broken.py"
    broken.write_text("tool = define_tool(\n")
    session.build([broken])

    with load_agent(root, extensions=session.loaded_extensions) as agent:
        result = agent.call_tool("dev_status", {})
        reply = agent.run_command("dev-status")
    status = result.value
    assert (status["generation"], status["status"], status["lastGood"]) == (2, "failed", 1)
    assert status["changed"] == ["agent/tools/broken.py"]
    [problem] = [d for d in status["diagnostics"] if d["severity"] == "error"]
    assert problem["file"] == "agent/tools/broken.py" and problem["line"] == 1
    assert status["surface"]["tools"] == ["gizmo__spin"]  # generation 1's, still built
    assert reply.ok and reply.text.splitlines()[0] == "generation 2: failed"
    assert "agent/tools/broken.py:1: error" in reply.text


def test_production_loads_never_include_the_bundled_extension(tmp_path: Path) -> None:
    root = _app(tmp_path)
    compile_app(root)

    with load_agent(root) as agent:  # what `eve serve` and `eve call` load
        tools = list(agent.tools())
    assert "gizmo__spin" in tools and "dev_status" not in tools
    assert not {"agent_files", "agent_read", "agent_write"} & set(tools)
