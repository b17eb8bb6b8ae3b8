"""The session answers its tools (DESIGN section 14): content the model sees, `ctx.sample`
with the session's model, `ctx.run_subagent`, `ctx.log` to observers, `-v` and SSE, and
`ctx.model` in `setup`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from eve_build.runtime import load_agent
from eve_build.session.engine import Session, SessionOptions
from tests.json_schemas import validate
from tests.session.engine.conftest import eve as run_eve
from tests.session.engine.fake_openai import Script
from tests.session.engine.served import serving_agent

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
RICH = '''\
import json
from pathlib import Path

from pydantic import BaseModel

from eve_build.sdk import Spec, ToolResult, define_tool, image, text

HERE = Path(__file__).parent
PNG = b"\\x89PNG\\r\\n\\x1a\\n" + b"\\x00" * 24


class Text(BaseModel):
    text: str = "hello"


def setup(ctx):
    (HERE / "setup-model.txt").write_text(str(ctx.model))

    def chart(input, tool_ctx):
        return ToolResult(content=[text("the chart"), image(PNG, "image/png")],
                          details={"points": 3})

    async def summarize(input, tool_ctx):
        reply = await tool_ctx.sample(f"summarize: {input.text}", max_tokens=7,
                                      system="be brief")
        return {"summary": reply}

    async def consult(input, tool_ctx):
        return {"helper": await tool_ctx.run_subagent("helper", input.text)}

    def note(input, tool_ctx):
        tool_ctx.log(input.text, "warning")
        return {"logged": True}

    def observe(event, _ctx):
        with (HERE / "logs.jsonl").open("a") as log:
            log.write(json.dumps(event.data) + "\\n")

    described = {"chart": chart, "summarize": summarize, "consult": consult, "note": note}
    return Spec(tools={name: define_tool(description=name, input=Text, execute=run)
                       for name, run in described.items()},
                events={"log": observe})
'''


@pytest.fixture
def rich(app: Path) -> Path:
    path = app / "ext/rich.py"
    path.write_text(RICH)
    return path


def _session(app: Path, rich: Path, model: Any) -> tuple[Any, Session]:
    agent = load_agent(app, extensions=[app / "ext/talk.py", rich])
    return agent, Session(agent, app, "s1", SessionOptions(model="fn", instance=model))


def _call(name: str, args: str = "{}") -> DeltaToolCalls:
    return {0: DeltaToolCall(name, args)}


def _returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [part for message in messages if isinstance(message, ModelRequest)
            for part in message.parts if isinstance(part, ToolReturnPart)]


def test_the_model_sees_an_image_a_tool_returned(app: Path, rich: Path) -> None:
    seen: list[list[ModelMessage]] = []

    async def answer(messages: list[ModelMessage], info: AgentInfo
                     ) -> AsyncIterator[str | DeltaToolCalls]:
        seen.append(list(messages))
        if len(messages) == 1:
            yield _call("chart")
        else:
            yield "a chart"

    agent, session = _session(app, rich, FunctionModel(stream_function=answer))
    with agent:
        result = agent._run(session.asend("chart"))

    [returned] = _returns(seen[-1])
    content = returned.content
    assert isinstance(content, list) and content[0] == "the chart"
    assert isinstance(content[1], BinaryContent) and content[1].data == PNG
    assert content[1].media_type == "image/png"
    [call] = [c.to_json() for c in result.tool_calls]
    assert call["result"] == {"points": 3}
    assert call["content"][1] == {"type": "image", "mimeType": "image/png",
                                  "data": "iVBORw0KGgoAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}


def test_a_model_without_images_gets_a_stand_in(app: Path, rich: Path) -> None:
    from pydantic_ai.profiles import ModelProfile

    seen: list[list[ModelMessage]] = []

    async def answer(messages: list[ModelMessage], info: AgentInfo
                     ) -> AsyncIterator[str | DeltaToolCalls]:
        seen.append(list(messages))
        if len(messages) == 1:
            yield _call("chart")
        else:
            yield "ok"

    model = FunctionModel(stream_function=answer,
                          profile=ModelProfile(supports_image_input=False))
    agent, session = _session(app, rich, model)
    with agent:
        agent._run(session.asend("chart"))
    [returned] = _returns(seen[-1])
    assert returned.content == ["the chart", "[image/png, 32 bytes]"]


def test_a_tool_samples_the_sessions_model(app: Path, rich: Path) -> None:
    sampled: list[tuple[list[ModelMessage], AgentInfo]] = []

    def direct(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sampled.append((messages, info))
        return ModelResponse(parts=[TextPart("short")])

    async def answer(messages: list[ModelMessage], info: AgentInfo
                     ) -> AsyncIterator[str | DeltaToolCalls]:
        if len(messages) == 1:
            yield _call("summarize", '{"text": "a long story"}')
        else:
            yield "done"

    agent, session = _session(app, rich, FunctionModel(direct, stream_function=answer))
    with agent:
        result = agent._run(session.asend("summarize"))

    assert result.tool_calls[0].result == {"summary": "short"}
    [(messages, info)] = sampled
    parts = [part for message in messages for part in message.parts]
    assert [type(p) for p in parts] == [SystemPromptPart, UserPromptPart]
    assert isinstance(parts[0], SystemPromptPart) and isinstance(parts[1], UserPromptPart)
    assert (parts[0].content, parts[1].content) == ("be brief", "summarize: a long story")
    assert info.model_settings is not None and info.model_settings.get("max_tokens") == 7


def test_a_tool_runs_a_subagent_and_gets_its_reply(app: Path, rich: Path) -> None:
    async def answer(messages: list[ModelMessage], info: AgentInfo
                     ) -> AsyncIterator[str | DeltaToolCalls]:
        if "You are the helper." in (info.instructions or ""):
            yield "HELLO FROM HELPER"
        elif len(messages) == 1:
            yield _call("consult", '{"text": "say hello"}')
        else:
            yield "done"

    agent, session = _session(app, rich, FunctionModel(stream_function=answer))
    with agent:
        result = agent._run(session.asend("consult"))
    assert result.tool_calls[0].result == {"helper": "HELLO FROM HELPER"}


def test_an_unknown_subagent_fails_the_call_with_the_names(app: Path, rich: Path) -> None:
    async def answer(messages: list[ModelMessage], info: AgentInfo
                     ) -> AsyncIterator[str | DeltaToolCalls]:
        if len(messages) == 1:
            yield _call("consult", '{"text": "x"}')
        else:
            yield "done"

    text = RICH.replace('run_subagent("helper"', 'run_subagent("nobody"')
    rich.write_text(text)
    agent, session = _session(app, rich, FunctionModel(stream_function=answer))
    with agent:
        result = agent._run(session.asend("consult"))
    [call] = result.tool_calls
    assert call.status == "failed"
    assert "the agent has no subagent `nobody`" in (call.reason or "")
    assert "`helper`" in (call.reason or "")


def test_eve_run_shows_logs_with_v_and_observers_get_them(
        app: Path, rich: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"tools": [{"name": "note", "arguments": {"text": "cache is cold"}}]},
                     {"text": "noted"}]
    done = run_eve(app, model_env, "-v", "run", "note it", "--model", "openai-chat:scripted",
                   "-e", str(rich))
    assert done.returncode == 0, done.stderr
    assert "log: [warning] rich: cache is cold" in done.stderr
    logs = [json.loads(line) for line in (app / "ext/logs.jsonl").read_text().splitlines()]
    assert logs == [{"text": "cache is cold", "level": "warning", "source": "rich"}]
    assert (app / "ext/setup-model.txt").read_text() == "openai-chat:scripted"

    fake[1].steps = [{"tools": [{"name": "note", "arguments": {"text": "quiet"}}]},
                     {"text": "noted"}]
    quiet = run_eve(app, model_env, "run", "note it", "--model", "openai-chat:scripted",
                    "-e", str(rich))
    assert quiet.returncode == 0 and "quiet" not in quiet.stderr


def test_eve_run_json_shows_content(app: Path, rich: Path, model_env: dict[str, str],
                                    fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"tools": [{"name": "chart", "arguments": {}}]}, {"text": "drawn"}]
    done = run_eve(app, model_env, "run", "chart", "--model", "openai-chat:scripted",
                   "--json", "-e", str(rich))
    data = json.loads(done.stdout)
    validate("run.json", data)
    [call] = data["toolCalls"]
    assert call["result"] == {"points": 3}
    assert [part["type"] for part in call["content"]] == ["text", "image"]


def test_an_sse_stream_carries_log_events_and_content(
        app: Path, rich: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    env = {**model_env, "EVE_MODEL": "openai-chat:scripted"}
    with serving_agent(app, env, "-e", str(rich)) as (url, served), httpx.Client(
            base_url=url, timeout=60.0) as client:
        session = client.post("/.eve/v1/sessions").json()["id"]
        fake[1].steps = [{"tools": [{"name": "note", "arguments": {"text": "over http"}},
                                    {"name": "chart", "arguments": {}}]},
                         {"text": "noted"}]
        streamed = client.post(f"/.eve/v1/sessions/{session}/messages",
                               json={"text": "note"}, headers={"Accept": "text/event-stream"})
    blocks = [block.split("\n", 1) for block in streamed.text.strip().split("\n\n")]
    found = [(kind.removeprefix("event: "), json.loads(data.removeprefix("data: ")))
             for kind, data in blocks]
    assert ("log", {"text": "over http", "level": "warning", "source": "rich"}) in found
    noted = next(i for i, (kind, data) in enumerate(found)
                 if kind == "tool.end" and data["name"] == "note")
    assert [kind for kind, _ in found].index("log") < noted  # during the call, not after
    [chart] = [data for kind, data in found if kind == "tool.end" and data["name"] == "chart"]
    assert chart["result"] == {"points": 3}
    assert [part["type"] for part in chart["content"]] == ["text", "image"]
    assert "Traceback" not in served.stderr_text


def test_setup_sees_the_model_a_dotenv_file_names(
        app: Path, rich: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    """`ctx.model` in `setup` is the model the session will use, `.env`'s `EVE_MODEL` too."""
    env = {k: v for k, v in model_env.items() if k != "EVE_MODEL"}
    (app / ".env").write_text("EVE_MODEL=openai-chat:scripted\n")
    fake[1].steps = [{"text": "hello"}]
    done = run_eve(app, env, "run", "hi", "-e", str(rich))
    assert done.returncode == 0, done.stderr
    assert (app / "ext/setup-model.txt").read_text() == "openai-chat:scripted"
