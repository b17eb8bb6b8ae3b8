"""Nodes inside a loaded agent: origin `node`, the rules of section 7, and faults."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from eve_build.node.lifecycle import StartReport, add_node, start_node
from eve_build.node.liveness import is_alive
from eve_build.node.registry import NodeEntry
from eve_build.runtime import load_agent
from tests.node.fake import describing, fake_node

Run = Callable[[str, str], StartReport]
def test_a_node_joins_the_agent_with_origin_node(app: Path, run_node: Run) -> None:
    run_node("echo-node", "echo")
    with load_agent(app) as agent:
        [record] = [r for r in agent.local_extensions if r.name == "echo"]
        assert (record.origin, record.status, record.running) == ("node", "loaded", True)
        assert agent.tools() == ["echo", "gizmo__spin", "ping", "sleep", "wait"]
        result = agent.call_tool("echo", {"text": "hi"})
        assert (result.status, result.value, result.progress) == (
            "ok", {"echo": "hi", "via": "echo-node"}, ("echoing hi",))  # action.result too
        answered = agent.fire("message.received", text="echo?")
        assert (answered.outcome, answered.value) == ("handled", "echo-node is here")
        shouted = agent.fire("message.received", text="shout: hi")
        assert (shouted.outcome, shouted.value) == ("transform", "SHOUT: HI")
        blocked = agent.call_tool("ping", {"text": "forbidden"})  # the node hooks every tool
        assert blocked.status == "blocked"
        assert "echo-node does not echo that" in (blocked.error or "")
        reply = agent.run_command("seen", "now")
        assert reply.ok and reply.text.startswith("seen now:")
        wrong = agent.run_command("count")
        assert not wrong.ok
        assert "the command `count` returned int, not a str" in wrong.text
        named = agent.run_command("greet", "name=Ada")  # the node parses `key=value`
        unnamed = agent.run_command("greet", "here=x")
        assert (named.ok, named.text) == (True, "hello Ada")
        assert not unnamed.ok and "unknown argument `here`" in unnamed.text
        assert [g.text for g in agent.guidelines()] == ["Echo only what the user said."]
        notices, _ = agent.local.request.session.drain()  # type: ignore[union-attr]
        assert [(n.extension, n.text) for n in notices][-1][0] == "echo"


def test_a_node_killed_mid_call_fails_that_call_only(app: Path, home: Path,
                                                     run_node: Run) -> None:
    report = run_node("echo-node", "echo")
    with load_agent(app) as agent:
        result = agent.call_tool("wait", {"seconds": 30},
                                 on_progress=lambda _: os.kill(report.pid, signal.SIGKILL))
        assert result.status == "failed"
        assert "node `echo` closed the connection" in (result.error or "")
        again = agent.call_tool("echo", {"text": "x"})
        assert again.status == "failed" and "node `echo` was dropped" in (again.error or "")
        [record] = [r for r in agent.local_extensions if r.name == "echo"]
        assert [d.code for d in record.diagnostics] == ["node/dropped"]
        # its action.call hook steps aside: the agent's own tool works as before
        assert agent.call_tool("ping", {}).value == {"pong": "ping"}
    while is_alive(report.pid):  # the kernel finishes the kill after the socket closed
        time.sleep(0.01)
    with load_agent(app) as agent:  # the next load: the node is stopped, the agent fine
        [record] = [r for r in agent.local_extensions if r.name == "echo"]
        assert (record.status, record.running) == ("stopped", False), record.diagnostics
        assert agent.call_tool("ping", {}).value == {"pong": "ping"}
        start_node(home, "echo", python=Path(sys.executable), timeout=60.0)  # it comes back
        agent.reload_extensions()  # what `eve dev` does when `run/` changes
        assert agent.call_tool("echo", {"text": "back"}).value["echo"] == "back"
    with load_agent(app) as agent:  # and every later load has it
        assert agent.call_tool("echo", {"text": "again"}).value["echo"] == "again"


def test_two_nodes_with_one_tool_name(app: Path, run_node: Run) -> None:
    run_node("echo-node", "alpha")
    run_node("echo-node", "beta")
    with load_agent(app) as agent:
        beta = next(r for r in agent.local_extensions if r.name == "beta")
        assert beta.tools == {}
        messages = [d.message for d in beta.diagnostics]
        assert any("the tool `echo` of local extension `beta` (node" in m
                   and "local extension `alpha` (node) already has it" in m for m in messages)
        assert agent.call_tool("echo", {"text": "a"}).value["echo"] == "a"


def test_a_hook_hanging_past_the_budget_blocks_the_call(app: Path, home: Path) -> None:
    add_node(home, NodeEntry("slow", home))
    with fake_node(home, "slow", describing(lambda request: None)), \
            load_agent(app, hook_budget=0.3) as agent:
        result = agent.call_tool("ping", {})
    assert result.status == "blocked"
    assert "slow" in (result.error or "") and "0.3" in (result.error or "")


def test_a_refused_socket_leaves_the_agent_working(app: Path, home: Path) -> None:
    add_node(home, NodeEntry("open", home))
    with fake_node(home, "open", describing(lambda request: None)) as socket:
        socket.chmod(0o666)
        with load_agent(app) as agent:
            [record] = [r for r in agent.local_extensions if r.name == "open"]
            assert record.status == "dropped"
            assert [d.code for d in record.diagnostics] == ["node/socket-unsafe"]
            assert agent.call_tool("ping", {}).value == {"pong": "ping"}


def test_eve_extensions_list_shows_nodes_running_or_not(
        app: Path, home: Path, run_node: Run, register: Callable[[str, str], Path]) -> None:
    from eve_build.local.listing import derive_extension_rows
    from eve_build.runtime.loader import read_compiled_agent

    run_node("echo-node", "echo")
    register("humanize-node", "sizes")
    rows = {row["name"]: row for row in derive_extension_rows(app, read_compiled_agent(app))}
    assert {k: rows["echo"][k] for k in ("origin", "status", "running", "tools", "commands")} == {
        "origin": "node", "status": "loaded", "running": True,
        "tools": ["echo", "sleep", "wait"], "commands": ["count", "greet", "seen"]}
    assert {k: rows["sizes"][k] for k in ("origin", "status", "running", "toolCount")} == {
        "origin": "node", "status": "stopped", "running": False, "toolCount": 0}
