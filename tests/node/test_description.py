"""A node's `describe` is checked against the protocol; a bad one drops only that node
(issue 23 item 19)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.node.lifecycle import StartReport, add_node, list_nodes, start_node
from eve_build.node.liveness import read_pid
from eve_build.node.paths import NodePaths
from eve_build.node.process import spawn_node, wait_until_answering
from eve_build.node.registry import NodeEntry
from eve_build.runtime import load_agent
from tests.node.fake import DESCRIPTION, fake_node, reply

Run = Callable[[str, str], StartReport]
TOOL = DESCRIPTION["tools"][0]
BAD = [  # (what the node sends, where the diagnostic says the problem is)
    ({**DESCRIPTION, "tools": [{**TOOL, "inputSchema": True}]}, "`tools[0].inputSchema`"),
    ({**DESCRIPTION, "tools": [{**TOOL, "inputSchema": [1]}]}, "`tools[0].inputSchema`"),
    ({**DESCRIPTION, "tools": [{**TOOL, "name": 7}]}, "`tools[0].name`"),
    ({**DESCRIPTION, "tools": [{"description": "x"}]}, "no `tools[0].name`"),
    ({**DESCRIPTION, "tools": [{**TOOL, "timeout": "5"}]}, "`tools[0].timeout`"),
    ({**DESCRIPTION, "tools": [{**TOOL, "timeout": -1}]}, "`tools[0].timeout`"),
    ({**DESCRIPTION, "tools": [{**TOOL, "timeout": 1e308}]}, "`tools[0].timeout`"),
    ({**DESCRIPTION, "tools": [{**TOOL, "description": None}]}, "`tools[0].description`"),
    ({**DESCRIPTION, "tools": {"echo": TOOL}}, "`tools`"),
    ({**DESCRIPTION, "commands": [{"name": "c", "argHint": 3}]}, "`commands[0].argHint`"),
    ({**DESCRIPTION, "guidelines": "be nice"}, "`guidelines`"),
    ({**DESCRIPTION, "hooks": [None]}, "`hooks[0]`"),
    ({**DESCRIPTION, "events": None}, "`events`"),
    ({**DESCRIPTION, "protocol": 2}, "protocol 2; this host speaks 1"),
    ([DESCRIPTION], "list, not an object"),
]


def _describing(description: Any) -> Callable[[dict[str, Any]], bytes | None]:
    return lambda request: reply(request, description)


@pytest.mark.parametrize(("description", "where"), BAD)
def test_a_malformed_description_drops_only_that_node(
        app: Path, home: Path, run_node: Run, description: Any, where: str) -> None:
    run_node("echo-node", "echo")
    add_node(home, NodeEntry("bad", home))
    with fake_node(home, "bad", _describing(description)), load_agent(app) as agent:
        records = {r.name: r for r in agent.local_extensions}
        assert records["bad"].status == "dropped"
        [diagnostic] = records["bad"].diagnostics
        assert diagnostic.code == "node/describe-failed"
        assert diagnostic.message.startswith("node `bad` answered `describe` with ")
        assert where in diagnostic.message and diagnostic.message.endswith("it is left out")
        assert "eve node start bad" in diagnostic.hint
        # the agent, its mount and the other node are untouched
        assert agent.call_tool("ping", {}).value == {"pong": "ping"}
        assert agent.call_tool("gizmo__spin", {}).status == "ok"
        assert agent.call_tool("echo", {"text": "hi"}).value["echo"] == "hi"


def test_start_refuses_a_node_whose_description_does_not_fit(
        home: Path, register: Callable[[str, str], Path]) -> None:
    register("bad-schema-node", "odd")
    with pytest.raises(DiagnosticsError) as info:
        start_node(home, "odd", python=Path(sys.executable), timeout=60.0)
    [diagnostic] = info.value.diagnostics
    assert diagnostic.code == "node/start-failed"
    assert diagnostic.message == ("node `odd` did not start: it answered `describe` with "
                                  "`tools[0].inputSchema`: Input should be a valid dictionary")
    assert read_pid(NodePaths(home, "odd")) is None  # it was stopped again
    assert list_nodes(home)[0]["running"] is False


def test_a_real_node_sending_a_boolean_schema_breaks_no_call(
        app: Path, home: Path, run_node: Run, register: Callable[[str, str], Path]) -> None:
    run_node("echo-node", "echo")
    # started by hand (as an older eve-build would have started it): `eve ext start` refuses
    project = register("bad-schema-node", "odd")
    child = spawn_node(Path(sys.executable), NodePaths(home, "odd"), project)
    try:
        assert isinstance(wait_until_answering(child, NodePaths(home, "odd"), 60.0), dict)
        _call_through_the_cli(app, home)
    finally:
        child.kill()
        child.wait()


def _call_through_the_cli(app: Path, home: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "eve_build", "call", "ping", "{}", "--path",
                           str(app), "--json"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "EVE_HOME": str(home)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["value"] == {"pong": "ping"}
    assert "internal/unexpected" not in done.stderr and "Traceback" not in done.stderr
    assert ("node `odd` answered `describe` with `tools[0].inputSchema`: Input should be a "
            "valid dictionary; it is left out") in done.stderr
    with load_agent(app) as agent:
        assert "odd" not in agent.tools() and "echo" in agent.tools()
