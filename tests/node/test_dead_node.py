"""A dead node fails only its own tools, and says how to bring it back (issue 19 item 13)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from eve_build.node.lifecycle import StartReport, start_node
from eve_build.node.liveness import is_alive
from eve_build.node.registry import read_registry
from eve_build.runtime import ToolNotFoundError, load_agent

Run = Callable[[str, str], StartReport]


def _kill(report: StartReport) -> None:
    os.kill(report.pid, signal.SIGKILL)
    while is_alive(report.pid):
        time.sleep(0.01)


def _eve(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eve_build", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "EVE_HOME": str(home),
                                                       "NO_COLOR": "1"})


def test_a_hooking_node_killed_between_calls_does_not_block_an_unrelated_tool(
        app: Path, home: Path, register: Callable[[str, str], Path]) -> None:
    project = register("echo-node", "echo")
    source = (project / "extension.py").read_text()
    # hooks only: no observer that would notice the death before the hook runs
    (project / "extension.py").write_text(source.replace('events={"tools": observe}',
                                                         "events={}"))
    report = start_node(home, "echo", python=Path(sys.executable), timeout=60.0)
    try:
        with load_agent(app) as agent:
            assert agent.call_tool("ping", {"text": "forbidden"}).status == "blocked"  # hooked
            _kill(report)
            first = agent.call_tool("ping", {})
            assert (first.status, first.value) == ("ok", {"pong": "ping"}), first.error
            own = agent.call_tool("echo", {"text": "x"})
            assert own.status == "failed"
            # which of the two a host sees first depends on timing; both name the node
            assert own.error in (
                "node `echo` was dropped: it does not accept connections on "
                f"`{report.socket}`: Connection refused; start it again with "
                "`eve node start echo`",
                "node `echo` was dropped: it closed the connection (did it stop or crash?); "
                "start it again with `eve node start echo`")
    finally:
        if is_alive(report.pid):
            os.kill(report.pid, signal.SIGKILL)


def test_a_killed_node_s_tool_names_the_node_and_how_to_start_it(
        app: Path, home: Path, run_node: Run) -> None:
    report = run_node("echo-node", "echo")
    assert read_registry(home)["echo"].tools == ("echo", "sleep", "wait")  # recorded at start
    _kill(report)
    done = _eve(home, "call", "echo", '{"text": "x"}', "--path", str(app))
    assert done.returncode == 1
    assert ("error: the agent has no tool `echo` now: it is a tool of node `echo`, which is "
            "not running") in done.stderr
    assert "hint: start the node with `eve node start echo`" in done.stderr
    assert "Traceback" not in done.stderr
    as_json = _eve(home, "call", "echo", "{}", "--path", str(app), "--json")
    assert json.loads(as_json.stdout)["error"]["hint"].startswith(
        "start the node with `eve node start echo`")
    with load_agent(app) as agent:
        assert agent.call_tool("ping", {}).value == {"pong": "ping"}  # the rest works
        try:
            agent.call_tool("nope", {})
        except ToolNotFoundError as exc:  # a name no node had: the usual message
            assert exc.message == "the agent has no tool `nope`"
        else:
            raise AssertionError("no ToolNotFoundError")
    stopped = _eve(home, "ext", "stop", "echo")
    assert stopped.returncode == 0 and "is not running; nothing to stop" in stopped.stderr
