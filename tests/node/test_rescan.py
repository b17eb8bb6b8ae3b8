"""`Agent.rescan_nodes()`: a long-running host picks up node changes between turns."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.node.lifecycle import StartReport, start_node, stop_node
from eve_build.node.liveness import is_alive
from eve_build.runtime import ToolNotFoundError, load_agent

Run = Callable[[str, str], StartReport]
SCRIPT = '''\
from pathlib import Path

from eve_build.sdk import Spec


def setup(ctx):
    with (Path(ctx.extension_dir) / "setups.txt").open("a") as out:
        out.write("setup\\n")
    return Spec(guidelines=["a script"])
'''


def _missing(agent: object, tool: str) -> ToolNotFoundError:
    with pytest.raises(ToolNotFoundError) as info:
        agent.call_tool(tool, {"text": "x"})  # type: ignore[attr-defined]
    return info.value


def test_a_node_stopped_and_started_between_turns(
        app: Path, home: Path, run_node: Run, tmp_path: Path) -> None:
    first = run_node("echo-node", "echo")
    script = tmp_path / "script" / "counted.py"
    script.parent.mkdir()
    script.write_text(SCRIPT)
    with load_agent(app, extensions=[script]) as agent:
        assert agent.call_tool("echo", {"text": "one"}).value["echo"] == "one"
        surface = agent.surface()
        assert agent.rescan_nodes() == [] and agent.surface() is surface  # nothing changed
        stop_node(home, "echo")
        assert agent.rescan_nodes() == []  # stopped cleanly: no diagnostic, but rescanned
        assert agent.surface() is not surface and "echo" not in agent.tools()
        error = _missing(agent, "echo")
        assert error.message == ("the agent has no tool `echo` now: it is a tool of node "
                                 "`echo`, which is not running")
        assert error.hint.startswith("start the node with `eve node start echo`")
        assert agent.call_tool("ping", {}).value == {"pong": "ping"}  # the rest works
        second = start_node(home, "echo", python=Path(sys.executable), timeout=60.0)
        assert second.pid != first.pid
        assert agent.rescan_nodes() == []
        assert agent.call_tool("echo", {"text": "two"}).value["echo"] == "two"  # picked up
        os.kill(second.pid, signal.SIGKILL)  # dies without cleaning up
        while is_alive(second.pid):
            time.sleep(0.01)
        found = agent.rescan_nodes()
        assert [d.code for d in found] == ["node/stale"]
        assert "eve node start echo" in found[0].hint
        assert "eve node start echo" in _missing(agent, "echo").hint
        assert agent.call_tool("ping", {}).value == {"pong": "ping"}
        assert agent.rescan_nodes() == []  # and nothing changed since
        assert (script.parent / "setups.txt").read_text() == "setup\n"  # scripts not reloaded
        assert [g.text for g in agent.guidelines()] == ["a script"]


def test_a_node_dropped_during_a_turn_is_rescanned(app: Path, home: Path, run_node: Run) -> None:
    report = run_node("echo-node", "echo")
    with load_agent(app) as agent:
        result = agent.call_tool("wait", {"seconds": 30},
                                 on_progress=lambda _: os.kill(report.pid, signal.SIGKILL))
        assert result.status == "failed" and "node `echo`" in (result.error or "")
        while is_alive(report.pid):
            time.sleep(0.01)
        agent.rescan_nodes()
        assert "echo" not in agent.tools()
        assert "which is not running" in _missing(agent, "echo").message
        start_node(home, "echo", python=Path(sys.executable), timeout=60.0)
        agent.rescan_nodes()
        assert agent.call_tool("echo", {"text": "back"}).value["echo"] == "back"
