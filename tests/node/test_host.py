"""The host's side: scanning `run/`, proxies to a node's contributions, and each fault."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from eve_build.node.client import NodeClient
from eve_build.node.connection import NodeError
from eve_build.node.lifecycle import StartReport, add_node, plan_add
from eve_build.node.liveness import is_alive
from eve_build.node.registry import NodeEntry
from eve_build.node.scan import ScannedNode, scan_nodes
from eve_build.sdk.binding import ToolContext
from eve_build.sdk.hooks import Block, Event, Rewrite
from eve_build.sdk.local import Spec
from tests.node.fake import describing, fake_node

Run = Callable[[str, str], StartReport]


def _scan(home: Path, budget: float = 5.0) -> dict[str, ScannedNode]:
    nodes, problems = scan_nodes(home, budget=budget)
    assert problems == []
    return {node.name: node for node in nodes}


def _spec(node: ScannedNode) -> Spec:
    assert node.client is not None, node.diagnostics
    return node.client.spec()


async def _call(spec: Spec, tool: str, arguments: dict[str, Any],
                progress: list[str] | None = None) -> Any:
    definition = spec.tools[tool]
    assert definition.input is not None and definition.execute is not None
    context = ToolContext(name=tool, progress=None if progress is None else progress.append)
    return await definition.execute(definition.input.model_validate(arguments), context)


class _Calls(list[str]):
    """A progress list that calls its callbacks on each report."""

    def __init__(self, callbacks: list[Callable[[str], None]]) -> None:
        super().__init__()
        self.callbacks = callbacks

    def append(self, text: str) -> None:
        super().append(text)
        for callback in self.callbacks:
            callback(text)


def test_a_running_node_contributes_everything_as_a_spec(home: Path, run_node: Run) -> None:
    run_node("echo-node", "echo")
    node = _scan(home)["echo"]
    assert node.status == "loaded" and node.running
    spec = _spec(node)
    assert sorted(spec.tools) == ["echo", "sleep", "wait"]
    assert list(spec.guidelines) == ["Echo only what the user said."]
    assert list(spec.commands) == ["count", "greet", "seen"]
    assert sorted(spec.hooks) == ["action.call", "action.result", "message.received"]
    assert sorted(spec.events) == ["tool.end", "tool.start", "tool.update"]
    schema = spec.tools["echo"].input.model_json_schema()  # type: ignore[union-attr]
    assert schema["required"] == ["text"]
    assert spec.tools["sleep"].timeout == 1.0


def test_tools_hooks_events_and_commands_go_through_the_node(home: Path, run_node: Run) -> None:
    run_node("echo-node", "echo")
    spec = _spec(_scan(home)["echo"])
    progress: list[str] = []

    async def go() -> list[Any]:
        hook = spec.hooks["action.call"]
        return [await _call(spec, "echo", {"text": "hi"}, progress),
                await hook(Event("action.call", tool="echo", arguments={"text": "forbidden"})),
                await hook(Event("action.call", tool="echo", arguments={"text": "shout"})),
                await hook(Event("action.call", tool="echo", arguments={"text": "fine"})),
                await spec.events["tool.start"](Event("tool.start", tool="echo"))]

    value, blocked, rewritten, proceed, observed = asyncio.run(go())
    assert value == {"echo": "hi"} and progress == ["echoing hi"]
    assert blocked == Block("echo-node does not echo that")
    assert rewritten == Rewrite({"text": "SHOUT"})
    assert proceed is None and observed is None
    run = spec.commands["seen"].run
    assert run is not None and run("now", None) == "seen now: tool.start"


def test_invalid_arguments_and_an_unknown_tool_fail_naming_the_node(
        home: Path, run_node: Run) -> None:
    run_node("echo-node", "echo")
    node = _scan(home)["echo"]
    spec = _spec(node)
    with pytest.raises(NodeError, match=r"node `echo` answered `tool.call` with an error: "
                                        r"invalid arguments: `text`: Field required"):
        asyncio.run(_call(spec, "echo", {}))
    client = node.client
    assert client is not None
    with pytest.raises(NodeError, match=r"answered `tool.call` with an error: no tool `nope`"):
        asyncio.run(NodeClient(client.name, client.socket, {**client.description, "tools": [
            {"name": "nope", "inputSchema": {}}]}).spec().tools["nope"].execute(  # type: ignore[misc]
                spec.tools["echo"].input.model_validate({"text": "x"}),  # type: ignore[union-attr]
                ToolContext(name="nope")))
    assert client.dropped is None  # an error reply is not a broken node


def test_a_tool_past_its_timeout_fails_and_the_node_keeps_working(
        home: Path, run_node: Run) -> None:
    run_node("echo-node", "echo")
    spec = _spec(_scan(home)["echo"])

    async def go() -> Any:
        with pytest.raises(NodeError, match=r"node `echo` did not answer `tool.call` within 1 s"):
            await _call(spec, "sleep", {"seconds": 30})
        return await _call(spec, "echo", {"text": "still here"})

    assert asyncio.run(go()) == {"echo": "still here"}


def test_sigkill_mid_call_fails_the_call_and_drops_the_node(home: Path, run_node: Run) -> None:
    report = run_node("echo-node", "echo")
    node = _scan(home)["echo"]
    spec = _spec(node)
    kill = [lambda _text: os.kill(report.pid, signal.SIGKILL)]  # once the call is in flight
    with pytest.raises(NodeError, match=r"node `echo` closed the connection"):
        asyncio.run(_call(spec, "wait", {"seconds": 30}, _Calls(kill)))
    with pytest.raises(NodeError, match=r"node `echo` was dropped: it closed the connection"):
        asyncio.run(_call(spec, "echo", {"text": "again"}))
    assert node.client is not None and node.client.dropped is not None
    while is_alive(report.pid):  # the kernel finishes the kill after the socket closed
        time.sleep(0.01)
    after = _scan(home)["echo"]  # the next load: gone, its leftovers cleaned
    assert after.status == "stopped" and [d.code for d in after.diagnostics] == ["node/stale"]


def test_a_node_sending_garbage_is_dropped(home: Path) -> None:
    add_node(home, NodeEntry("fake", home))
    with fake_node(home, "fake", describing(lambda request: b"this is not json\n")):
        node = _scan(home)["fake"]
        with pytest.raises(NodeError, match=r"node `fake` sent a malformed message: "
                                            r"not JSON: 'this is not json'"):
            asyncio.run(_call(_spec(node), "echo", {"text": "x"}))
        assert node.client is not None
        assert "malformed" in (node.client.dropped or "")


def test_a_node_that_never_answers_describe_is_dropped(home: Path) -> None:
    add_node(home, NodeEntry("mute", home))
    with fake_node(home, "mute", lambda request: None):
        node = _scan(home, budget=0.2)["mute"]
    assert node.status == "dropped" and node.client is None
    [diagnostic] = node.diagnostics
    assert diagnostic.code == "node/describe-failed"
    assert diagnostic.message == "node `mute` did not answer `describe` within 0.2 s"


def test_a_node_whose_hook_hangs_is_cut_off_by_the_host(home: Path) -> None:
    add_node(home, NodeEntry("slow", home))
    with fake_node(home, "slow", describing(lambda request: None)):
        node = _scan(home)["slow"]
        spec = _spec(node)
        assert node.client is not None

        async def go() -> None:
            # open this loop's connection first: on Python 3.11 a wait_for nested in
            # another (the connect's own) can swallow the outer cancellation when both
            # end at once, which a loaded machine makes likely at 0.2 s
            await node.client.request("describe", {}, timeout=10)
            await asyncio.wait_for(spec.hooks["action.call"](
                Event("action.call", tool="echo", arguments={})), 0.2)

        with pytest.raises(TimeoutError):
            asyncio.run(go())


def test_a_garbage_description_is_dropped(home: Path) -> None:
    add_node(home, NodeEntry("odd", home))
    from tests.node.fake import reply

    with fake_node(home, "odd", lambda request: reply(request, {"protocol": 1})):
        node = _scan(home)["odd"]
    assert [d.code for d in node.diagnostics] == ["node/describe-failed"]
    assert node.diagnostics[0].message == (
        "node `odd` answered `describe` with no `tools` (and 4 more problems); it is left out")


@pytest.mark.parametrize("mode", [0o666, 0o660])
def test_a_socket_others_may_open_is_refused(home: Path, mode: int) -> None:
    add_node(home, NodeEntry("open", home))
    with fake_node(home, "open", describing(lambda request: None)) as socket:
        socket.chmod(mode)
        node = _scan(home)["open"]
    assert node.status == "dropped" and node.client is None
    assert [d.code for d in node.diagnostics] == ["node/socket-unsafe"]
    assert f"mode {mode:04o}" in node.diagnostics[0].message


def test_unregistered_sockets_are_ignored_and_stopped_nodes_listed(home: Path) -> None:
    add_node(home, plan_add(home, Path(__file__).parents[2] / "fixtures/nodes/echo-node",
                            "echo"))
    with fake_node(home, "stranger", describing(lambda request: None)):
        nodes = _scan(home)
    assert list(nodes) == ["echo"] and nodes["echo"].status == "stopped"


def test_a_late_reply_after_a_timeout_is_dropped_not_fatal(home: Path) -> None:
    from tests.node.fake import DESCRIPTION, reply

    release = threading.Event()
    description = {**DESCRIPTION, "tools": [{"name": "echo", "inputSchema": {},
                                             "timeout": 0.1}]}

    def answer(request: dict[str, Any]) -> bytes:
        if request["method"] == "describe":
            return reply(request, description)
        if request["params"]["arguments"].get("text") == "slow":
            release.wait(30)  # answers only after the host gave up on it
        return reply(request, {"value": request["params"]["arguments"]["text"]})

    add_node(home, NodeEntry("late", home))
    with fake_node(home, "late", answer):
        node = _scan(home)["late"]
        spec = _spec(node)

        async def go() -> Any:
            with pytest.raises(NodeError, match=r"did not answer `tool\.call` within 0\.1 s"):
                await _call(spec, "echo", {"text": "slow"})
            release.set()
            return await _call(spec, "echo", {"text": "next"})

        assert asyncio.run(go()) == "next"
        assert node.client is not None and node.client.dropped is None


def test_a_node_stopped_before_a_new_connection_is_dropped(home: Path, run_node: Run) -> None:
    from eve_build.node.lifecycle import stop_node

    run_node("echo-node", "echo")
    node = _scan(home)["echo"]  # describe used its own connection: no connection is open
    stop_node(home, "echo")
    with pytest.raises(NodeError, match=r"node `echo` does not accept connections"):
        asyncio.run(_call(_spec(node), "echo", {"text": "x"}))
    assert node.client is not None and (node.client.dropped or "").startswith(
        "does not accept connections")
    hook = _spec(node).hooks["action.call"]  # its hook steps aside from now on
    assert asyncio.run(hook(Event("action.call", tool="ping", arguments={}))) is None


def test_the_node_answers_garbage_and_unknown_methods_with_errors(home: Path,
                                                                  run_node: Run) -> None:
    import json
    import socket

    report = run_node("echo-node", "echo")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
        raw.settimeout(30)
        raw.connect(str(report.socket))
        stream = raw.makefile("rwb")
        stream.write(b"hello\n" + b'{"jsonrpc": "2.0", "id": 1, "method": "nope"}\n'
                     + b'{"jsonrpc": "2.0", "id": 2, "method": "describe"}\n')
        stream.flush()
        replies = [json.loads(stream.readline()) for _ in range(3)]
    by_id = {reply["id"]: reply for reply in replies}
    assert by_id[None]["error"]["code"] == -32700
    assert by_id[1]["error"] == {"code": -32601, "message": "unknown method `nope`"}
    assert [tool["name"] for tool in by_id[2]["result"]["tools"]] == ["echo", "sleep", "wait"]


def test_shutdown_stops_the_node_cleanly(home: Path, run_node: Run) -> None:
    from eve_build.node.connection import NodeConnection

    report = run_node("echo-node", "echo")

    async def go() -> Any:
        connection = await NodeConnection.open("echo", report.socket, timeout=5)
        try:
            return await connection.request("shutdown", {}, timeout=5)
        finally:
            await connection.close()

    assert asyncio.run(go()) == {}
    while is_alive(report.pid):
        time.sleep(0.01)
    assert not report.socket.exists()
    assert "node `echo` stopped" in report.log.read_text()
