"""Content and details (DESIGN section 14): a tool returns ToolResult(content, details);
the host checks each part; `action.result` handlers see results and failures and may
turn one into the other."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.runtime import Agent
from eve_build.runtime.content import (
    ContentError,
    check_content,
    content_to_json,
    derive_content,
    describe_part,
    is_plain,
)
from eve_build.sdk import audio, image, resource, text
from tests.json_schemas import validate

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 16
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 16

TOOLS = {
    "tools/chart.py": """\
        from pydantic import BaseModel
        from eve_build.sdk import ToolResult, define_tool, image, resource, text

        PNG = b"\\x89PNG\\r\\n\\x1a\\n" + b"\\x00" * 24

        class Input(BaseModel):
            kind: str = "good"

        def execute(input, ctx):
            if input.kind == "good":
                return ToolResult(content=[text("the chart"), image(PNG, "image/png"),
                                           resource("file:///c.csv", text="a,b")],
                                  details={"points": 3})
            if input.kind == "liar":
                return ToolResult(content=[image(b"GIF89a....", "image/png")])
            if input.kind == "empty-resource":
                return ToolResult(content=[resource("file:///x")])
            if input.kind == "unknown":
                return ToolResult(content=[{"type": "text", "text": "hi"}])
            if input.kind == "error":
                return ToolResult(content=[text("the chart service is down")], is_error=True)
            raise ValueError("the plotter jammed")

        tool = define_tool(description="A chart.", input=Input, execute=execute)
        """,
    "tools/count.py": """\
        from pydantic import BaseModel
        from eve_build.sdk import define_tool

        class Input(BaseModel):
            n: int

        def execute(input, ctx):
            if input.n < 0:
                raise ValueError("negative numbers are not counted")
            return {"count": input.n}

        tool = define_tool(description="Count.", input=Input, execute=execute)
        """,
}
MUSE = {
    "tools/muse.py": """\
        from pydantic import BaseModel
        from eve_build.sdk import define_tool

        class Input(BaseModel):
            topic: str = "rain"

        async def execute(input, ctx):
            return {"poem": await ctx.sample(f"a poem about {input.topic}")}

        tool = define_tool(description="Ask a model.", input=Input, execute=execute)
        """,
}
HOOKS = {
    "hooks/fix.py": """\
        from eve_build.sdk import ToolResult, define_hook, result, text

        SEEN = []

        def on_result(event, ctx):
            SEEN.append((event.tool, event.result, event.error, event.is_error))
            if event.tool == "count" and event.is_error:
                return result({"count": 0, "recovered": event.error})
            if event.tool == "count" and event.result["count"] > 100:
                return result("too many to count", is_error=True)
            if event.tool == "chart" and event.is_error and "jammed" in event.error:
                return {"ignored": True}   # a plain value leaves a failure a failure
            if event.tool == "chart" and event.is_error and "service" in event.error:
                return ToolResult(content=[text("served from cache")], details={"cached": 1})
            return None

        hook = define_hook(events={"action.result": on_result})
        """,
}


@pytest.fixture
def agent(app: Callable[..., Path], load: Callable[..., Agent]) -> Agent:
    return load(app(["hook-observer"], {**TOOLS, **MUSE, **HOOKS}), hook_budget=30.0)


def test_a_tool_returns_content_and_details(agent: Agent) -> None:
    result = agent.call_tool("chart", {})
    assert result.ok and result.value == {"points": 3}
    assert [part.kind for part in result.content] == ["text", "image", "resource"]
    shown = content_to_json(result.content)
    assert shown[1] == {"type": "image", "mimeType": "image/png",
                        "data": "iVBORw0KGgoAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}
    assert shown[2] == {"type": "resource", "uri": "file:///c.csv", "mimeType": None,
                        "text": "a,b"}


def test_a_plain_value_is_its_details_and_its_json_text_the_content(agent: Agent) -> None:
    result = agent.call_tool("count", {"n": 2})
    assert result.value == {"count": 2}
    assert content_to_json(result.content) == [{"type": "text", "text": '{"count": 2}'}]
    assert is_plain(result.content, result.value)


@pytest.mark.parametrize(("kind", "reason"), [
    ("liar", "`chart` returned content part 1: its bytes are not image/png (they look like "
             "image/gif); pass the type the bytes really are, or convert them"),
    ("empty-resource", "`chart` returned content part 1: resource('file:///x') has neither "
                       "text nor data; give it `text=` (a str) or `data=` (bytes), one of them"),
    ("unknown", "`chart` returned content part 1 of unknown type dict; build parts with "
                "text(), image(), audio() or resource() from eve_build.sdk"),
])
def test_bad_parts_fail_the_call_naming_the_tool_and_the_fix(agent: Agent, kind: str,
                                                             reason: str) -> None:
    result = agent.call_tool("chart", {"kind": kind})
    assert (result.status, result.error) == ("failed", reason)


def test_a_tool_may_return_an_error_result(
        app: Callable[..., Path], load: Callable[..., Agent]) -> None:
    bare = load(app(["hook-observer"], TOOLS), hook_budget=30.0)
    result = bare.call_tool("chart", {"kind": "error"})
    assert (result.status, result.error) == ("failed", "the chart service is down")


def test_a_handler_may_answer_a_failure_with_a_tool_result(agent: Agent) -> None:
    result = agent.call_tool("chart", {"kind": "error"})
    assert result.ok and result.value == {"cached": 1}
    assert content_to_json(result.content) == [{"type": "text", "text": "served from cache"}]


def test_action_result_turns_a_failure_into_a_result(agent: Agent) -> None:
    result = agent.call_tool("count", {"n": -1})
    assert result.ok
    assert result.value == {"count": 0, "recovered": "negative numbers are not counted"}
    [step] = [s for s in result.trace if s["event"] == "action.result"]
    assert step["outcome"] == "transform"
    assert (step["before"], step["wasError"], step["isError"]) == (
        "negative numbers are not counted", True, False)


def test_action_result_turns_a_result_into_an_error(agent: Agent) -> None:
    result = agent.call_tool("count", {"n": 101})
    assert (result.status, result.error) == ("failed", "too many to count")
    [step] = [s for s in result.trace if s["event"] == "action.result"]
    assert (step["before"], step["after"], step["isError"]) == (
        {"count": 101}, "too many to count", True)


def test_a_plain_value_does_not_hide_a_failure(agent: Agent) -> None:
    result = agent.call_tool("chart", {"kind": "raise"})
    assert (result.status, result.error) == ("failed", "the plotter jammed")
    [step] = [s for s in result.trace if s["event"] == "action.result"]
    assert step["outcome"] == "proceed" and "result(value)" in step["note"]


def test_handlers_see_the_tool_result_with_its_content(agent: Agent) -> None:
    from eve_build.sdk import ToolResult

    agent.call_tool("chart", {})
    agent.call_tool("count", {"n": -1})
    seen = _seen(agent)
    tool, shown, error, is_error = seen[0]
    assert tool == "chart" and isinstance(shown, ToolResult)
    assert (shown.details, len(shown.content), error, is_error) == ({"points": 3}, 3, None,
                                                                    False)
    assert seen[1] == ("count", None, "negative numbers are not counted", True)


def test_a_blocked_call_is_not_a_result(app: Callable[..., Path],
                                        load: Callable[..., Agent]) -> None:
    block = """\
        from eve_build.sdk import block, define_hook

        def on_call(event, ctx):
            return block("not today")

        hook = define_hook(events={"action.call": on_call})
        """
    root = app(["hook-observer"], {**TOOLS, **HOOKS, "hooks/gate.py": block})
    agent = load(root, hook_budget=30.0)
    result = agent.call_tool("count", {"n": 1})
    assert result.status == "blocked"
    assert [s["event"] for s in result.trace] == ["action.call"]


def _seen(agent: Agent) -> list[tuple[object, ...]]:
    import sys

    module = next(m for name, m in sys.modules.items() if name.endswith("hooks.fix"))
    return list(module.SEEN)


def test_check_content_knows_the_magic_numbers() -> None:
    assert check_content("t", [image(PNG, "image/png"), image(JPEG, "image/jpeg"),
                               audio(WAV, "audio/wav"), audio(b"ID3\x03", "audio/mpeg"),
                               audio(b"OggS\x00", "audio/ogg"), audio(b"fLaC", "audio/flac"),
                               image(b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp")])
    with pytest.raises(ContentError, match="its bytes are not audio/wav"):
        check_content("t", [audio(b"OggS\x00", "audio/wav")])
    with pytest.raises(ContentError, match="needs a mime type starting with `image/`"):
        check_content("t", [image(PNG, "audio/png")])
    with pytest.raises(ContentError, match="data is str, not bytes"):
        check_content("t", [image("iVBOR", "image/png")])  # type: ignore[arg-type]
    with pytest.raises(ContentError, match="has both text and data"):
        check_content("t", [resource("u://x", text="a", data=b"b")])
    with pytest.raises(ContentError, match="not a list of parts"):
        check_content("t", text("x"))


def test_stand_ins_name_the_part() -> None:
    assert describe_part(image(PNG, "image/png")) == "[image/png, 32 bytes]"
    assert derive_content("hi") == (text("hi"),)


def _eve(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "EVE_MODEL"}
    return subprocess.run([sys.executable, "-m", "eve_build", *args, "--path", str(root)],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**environ, "EVE_HOME": str(root / "home"), "NO_COLOR": "1"})


def test_eve_call_prints_details_and_json_adds_content(agent: Agent, tmp_path: Path) -> None:
    root = tmp_path / "app"  # the app the fixture built
    plain = _eve(root, "call", "chart")
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout) == {"points": 3}

    shown = _eve(root, "call", "chart", "--json")
    payload = json.loads(shown.stdout)
    validate("call.json", payload)
    assert payload["value"] == {"points": 3}
    assert [part["type"] for part in payload["content"]] == ["text", "image", "resource"]
    assert base64.b64decode(payload["content"][1]["data"]) == PNG

    counted = json.loads(_eve(root, "call", "count", '{"n": 4}', "--json").stdout)
    assert counted["content"] == [{"type": "text", "text": '{"count": 4}'}]

    liar = _eve(root, "call", "chart", '{"kind": "liar"}')
    assert liar.returncode == 1 and "Traceback" not in liar.stderr
    assert "its bytes are not image/png" in liar.stderr


def test_sampling_with_no_model_names_the_ways_to_give_one(agent: Agent,
                                                           tmp_path: Path) -> None:
    done = _eve(tmp_path / "app", "call", "muse")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "`muse` asked a model: there is no one to answer here" in done.stderr
    assert "`--model`, `EVE_MODEL`" in done.stderr
