"""A node tool returns `ToolResult(content=[...], details=...)` as a local tool does.

The node (`fixtures/nodes/content-node`, a real process) sends the parts with their
bytes in base64 beside the details; the host rebuilds the SDK's parts, so `eve call`,
`--json`, the model's view and the content checks see what a local tool's call gives.
"""

from __future__ import annotations

import asyncio
import base64
import importlib.util
import json
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import BinaryContent, ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from eve_build.node import protocol
from eve_build.node.client import decode_tool_result
from eve_build.node.connection import NodeError
from eve_build.node.lifecycle import StartReport, add_node
from eve_build.node.registry import NodeEntry
from eve_build.node.scan import scan_nodes
from eve_build.runtime import load_agent
from eve_build.runtime.content import content_to_json
from eve_build.runtime.tools import ToolCallError, derive_result
from eve_build.sdk.binding import ToolContext
from eve_build.sdk.results import AudioPart, ImagePart, ResourcePart, TextPart, ToolResult
from eve_build.session.engine import Session, SessionOptions
from tests.json_schemas import validate
from tests.node.fake import describing, fake_node, reply

Run = Callable[[str, str], StartReport]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
WAV = b"RIFF\x00\x00\x00\x00WAVEfmt "
PNG_BASE64 = base64.b64encode(PNG).decode()
FIXTURE = Path(__file__).parents[2] / "fixtures/nodes/content-node/extension.py"


def _eve(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "EVE_MODEL"}
    return subprocess.run([sys.executable, "-m", "eve_build", *args], capture_output=True,
                          text=True, timeout=120, env={**environ, "EVE_HOME": str(home),
                                                       "NO_COLOR": "1"})


def _raw_call(socket_path: Path, tool: str) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
        raw.settimeout(60)
        raw.connect(str(socket_path))
        stream = raw.makefile("rwb")
        stream.write(protocol.encode_request(1, protocol.TOOL_CALL,
                                             {"name": tool, "arguments": {}}))
        stream.flush()
        answer: dict[str, Any] = json.loads(stream.readline())
    return answer


def test_the_node_sends_parts_beside_the_value_and_plain_values_as_before(
        home: Path, run_node: Run) -> None:
    report = run_node("content-node", "content")
    chart = _raw_call(report.socket, "chart")["result"]
    # `value` stays the details: a host that reads only `value` gets them
    assert chart == {"value": {"points": 3}, "isError": False, "content": [
        {"type": "text", "text": "visits over 3 days"},
        {"type": "image", "mimeType": "image/png", "data": PNG_BASE64}]}
    assert _raw_call(report.socket, "plain")["result"] == {"value": {"metric": "visits"}}
    bad = _raw_call(report.socket, "mislabelled")["error"]
    assert bad["code"] == protocol.CONTENT_INVALID == -32003


def test_the_host_gets_the_same_tool_result_as_from_a_local_tool(
        app: Path, run_node: Run) -> None:
    run_node("content-node", "content")
    with load_agent(app) as agent:
        chart = agent.call_tool("chart", {"metric": "sales"})
        assert (chart.status, chart.value, chart.is_error) == ("ok", {"points": 3}, False)
        assert chart.content == (TextPart("sales over 3 days"), ImagePart(PNG, "image/png"))

        everything = agent.call_tool("everything", {})
        assert everything.value == {"points": 5}  # a model as details is dumped, in the node
        assert everything.content == (
            TextPart("all kinds"), ImagePart(PNG, "image/png"), AudioPart(WAV, "audio/wav"),
            ResourcePart("file:///data.csv", text="day,value\n1,3\n", mime_type="text/csv"),
            ResourcePart("file:///raw.bin", data=b"\x00\x01\xff"))

        refused = agent.call_tool("refused", {"metric": "june"})
        assert (refused.status, refused.is_error, refused.error) == (
            "failed", True, "no data for june")
        assert refused.content == (TextPart("no data for june"),)

        plain = agent.call_tool("plain", {})
        assert (plain.status, plain.value) == ("ok", {"metric": "visits"})
        assert plain.content == (TextPart('{"metric": "visits"}'),)


@pytest.mark.parametrize(("tool", "message"), [
    ("mislabelled", "`mislabelled` returned content part 2: its bytes are not image/png "
                    "(they look like image/gif); pass the type the bytes really are, or "
                    "convert them"),
    ("not_bytes", "`not_bytes` returned content part 1: the image's data is str, not bytes; "
                  "pass the raw bytes (decode base64 text first)"),
    ("not_a_part", "`not_a_part` returned content part 2 of unknown type dict; build parts "
                   "with text(), image(), audio() or resource() from eve_build.sdk"),
])
def test_a_bad_part_fails_the_call_as_for_a_local_tool(
        app: Path, run_node: Run, tool: str, message: str) -> None:
    run_node("content-node", "content")
    with load_agent(app) as agent:
        result = agent.call_tool(tool, {})
        assert (result.status, result.error) == ("failed", message)
    # the same function run as a local tool: the host's check says the same
    loaded = importlib.util.spec_from_file_location("content_node", FIXTURE)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    with pytest.raises(ToolCallError) as local:
        derive_result(None, tool, getattr(module, tool)(None, None))
    assert str(local.value) == message


def test_eve_call_shows_details_and_json_adds_content(app: Path, home: Path,
                                                      run_node: Run) -> None:
    run_node("content-node", "content")
    plain = _eve(home, "call", "chart", "--path", str(app))
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout) == {"points": 3}

    shown = _eve(home, "call", "chart", "--path", str(app), "--json")
    assert shown.returncode == 0, shown.stderr
    payload = json.loads(shown.stdout)
    validate("call.json", payload)
    assert payload["value"] == {"points": 3}
    assert payload["content"] == [{"type": "text", "text": "visits over 3 days"},
                                  {"type": "image", "mimeType": "image/png",
                                   "data": PNG_BASE64}]

    liar = _eve(home, "call", "mislabelled", "--path", str(app))
    assert liar.returncode == 1 and "Traceback" not in liar.stderr
    assert "`mislabelled` returned content part 2: its bytes are not image/png" in liar.stderr
    assert "node `content`" not in liar.stderr  # the local tool's message, not a node error


def test_the_sessions_model_sees_the_nodes_image(app: Path, run_node: Run) -> None:
    run_node("content-node", "content")
    seen: list[list[ModelMessage]] = []

    async def answer(messages: list[ModelMessage], info: AgentInfo
                     ) -> AsyncIterator[str | DeltaToolCalls]:
        seen.append(list(messages))
        if len(messages) == 1:
            yield {0: DeltaToolCall("chart", '{"metric": "sales"}')}
        else:
            yield "a chart"

    agent = load_agent(app)
    session = Session(agent, app, "s1", SessionOptions(
        model="fn", instance=FunctionModel(stream_function=answer)))
    with agent:
        result = agent._run(session.asend("chart"))

    [returned] = [part for message in seen[-1] if isinstance(message, ModelRequest)
                  for part in message.parts if isinstance(part, ToolReturnPart)]
    content = returned.content
    assert isinstance(content, list) and content[0] == "sales over 3 days"
    assert isinstance(content[1], BinaryContent) and content[1].data == PNG
    assert content[1].media_type == "image/png"
    [call] = [c.to_json() for c in result.tool_calls]
    assert call["result"] == {"points": 3}
    assert call["content"][1] == {"type": "image", "mimeType": "image/png", "data": PNG_BASE64}


def test_content_round_trips_and_garbage_is_a_protocol_error() -> None:
    parts = (TextPart("t"), ImagePart(PNG, "image/png"), AudioPart(WAV, "audio/wav"),
             ResourcePart("u://a", text="x", mime_type="text/plain"),
             ResourcePart("u://b", data=b"\x00"))
    assert protocol.decode_content(content_to_json(parts)) == parts
    for garbage, match in [
            ({"type": "text"}, "`content` must be a list, not dict"),
            ([{"type": "text", "text": 3}], r"`content\[0\]` is not a text, image"),
            ([{"type": "video", "data": ""}], r"`content\[0\]` is not a text, image"),
            ([{"type": "image", "mimeType": "image/png", "data": "***"}], "not base64"),
            ([{"type": "image", "mimeType": "image/png", "data": None}], "base64 string"),
            ([{"type": "resource", "uri": "u://a", "text": "x", "data": "AA=="}],
             "a string `text` or a base64 `data`"),
            ([{"type": "resource", "uri": "u://a", "mimeType": 3, "text": "x"}], "mimeType")]:
        with pytest.raises(protocol.ProtocolError, match=match):
            protocol.decode_content(garbage)


def test_a_result_without_content_is_the_plain_value() -> None:
    assert decode_tool_result("n", "t", {"value": [1, 2]}) == [1, 2]
    assert decode_tool_result("n", "t", {"value": None, "content": [], "isError": True}) == (
        ToolResult(content=(), details=None, is_error=True))


def test_a_node_sending_content_that_is_no_parts_fails_that_call(home: Path) -> None:
    answers = describing(lambda request: reply(request, {
        "value": 1, "content": [{"type": "image", "mimeType": "image/png", "data": "@@"}]}))
    add_node(home, NodeEntry("fake", home))
    with fake_node(home, "fake", answers):
        nodes, _ = scan_nodes(home, budget=5.0)
        [node] = nodes
        assert node.client is not None
        tool = node.client.spec().tools["echo"]
        assert tool.input is not None and tool.execute is not None
        with pytest.raises(NodeError, match=r"node `fake` answered `tool.call` for `echo` "
                                            r"with content that is not parts: `content\[0\]`"):
            asyncio.run(tool.execute(tool.input.model_validate({}), ToolContext(name="echo")))
        assert not node.client.is_dropped  # one bad answer, not a broken node


def test_mcp_gets_the_nodes_parts_as_blocks(app: Path, home: Path, run_node: Run,
                                            tmp_path: Path) -> None:
    from mcp import Client, types

    from tests.mcp.test_stdio import run_session

    run_node("content-node", "content")

    async def scenario(client: Client) -> Any:
        return (await client.call_tool("everything", {}),
                await client.call_tool("mislabelled", {}))

    everything, liar = run_session(app, {**os.environ, "EVE_HOME": str(home)},
                                   tmp_path / "err", scenario)
    assert not everything.is_error
    words, picture, sound, table, raw = everything.content
    assert isinstance(words, types.TextContent) and words.text == "all kinds"
    assert isinstance(picture, types.ImageContent) and picture.mime_type == "image/png"
    assert base64.b64decode(picture.data) == PNG
    assert isinstance(sound, types.AudioContent) and base64.b64decode(sound.data) == WAV
    assert isinstance(table, types.EmbeddedResource)
    assert isinstance(table.resource, types.TextResourceContents)
    assert table.resource.text == "day,value\n1,3\n"
    assert isinstance(raw, types.EmbeddedResource)
    assert isinstance(raw.resource, types.BlobResourceContents)
    assert base64.b64decode(raw.resource.blob) == b"\x00\x01\xff"
    assert everything.structured_content == {"points": 5}
    assert liar.is_error
    [said] = liar.content
    assert isinstance(said, types.TextContent)
    assert "`mislabelled` returned content part 2: its bytes are not image/png" in said.text


def test_a_nodes_action_result_hook_gets_and_returns_tool_results(app: Path,
                                                                  run_node: Run) -> None:
    run_node("content-node", "content")
    with load_agent(app) as agent:
        inspected = agent.call_tool("chart", {"metric": "inspect"})
        assert inspected.value == {"saw": "ToolResult", "kinds": ["text", "image"],
                                   "details": {"points": 3}}
        replaced = agent.call_tool("plain", {"metric": "picture"})
        assert (replaced.status, replaced.value) == ("ok", {"replaced": True})
        assert replaced.content == (TextPart("replaced"), ImagePart(PNG, "image/png"))
        rescued = agent.call_tool("refused", {"metric": "rescue"})
        assert (rescued.status, rescued.value) == (
            "ok", {"rescued": "no data for rescue", "was_error": True})
        failed = agent.call_tool("plain", {"metric": "fail"})
        assert (failed.status, failed.error) == ("failed", "the hook says no")


@pytest.mark.parametrize(("tool", "asked"), [("ask", "asked: Go ahead?"),
                                             ("sample", "asked a model"),
                                             ("delegate", "asked the subagent `reviewer`")])
def test_asking_in_a_node_fails_saying_a_node_cannot_and_what_to_do(
        home: Path, run_node: Run, tool: str, asked: str) -> None:
    report = run_node("asking-node", "asking")

    error = _raw_call(report.socket, tool)["error"]["message"]

    assert f"`{tool}` {asked}" in error
    assert "a project node's tools cannot ask the person, a model or a subagent yet" in error
    assert "move the tool into the agent's `tools/`" in error
    assert "--answer" not in error and "--model" not in error  # the host's ways: not here
