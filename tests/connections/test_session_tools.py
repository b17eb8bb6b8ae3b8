"""A session's model sees the tools of the agent's MCP connections and calls them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from eve_build.runtime import load_agent
from eve_build.session.engine import Session, SessionOptions
from tests.connections.conftest import TOKEN
from tests.session.engine.fake_openai import run_fake


def test_the_model_calls_a_connection_tool_through_the_hooks(
    connected_app: Path, connected_env: dict[str, str]
) -> None:
    seen: list[AgentInfo] = []

    async def answer(messages: list[ModelMessage], info: AgentInfo
                     ) -> AsyncIterator[str | DeltaToolCalls]:
        seen.append(info)
        if len(messages) == 1:
            yield {0: DeltaToolCall("remote__add", '{"a": 20, "b": 22}')}
            yield {1: DeltaToolCall("remote__echo", '{"text": "a forbidden word"}')}
        else:
            yield "done"

    with load_agent(connected_app, environ=connected_env) as agent:
        session = Session(agent, connected_app, "s1",
                          SessionOptions(model="fn", instance=FunctionModel(
                              stream_function=answer), environ=connected_env))
        result = agent._run(session.asend("add them"))

    offered = {tool.name: tool for tool in seen[0].function_tools}
    assert {"remote__add", "remote__echo", "crm__api__add"} <= set(offered)
    assert offered["remote__add"].parameters_json_schema["required"] == ["a", "b"]
    calls = {c.name: c.to_json() for c in result.tool_calls}
    assert calls["remote__add"]["status"] == "ok"
    assert calls["remote__add"]["result"] == {"total": 42}  # the server's structuredContent
    assert calls["remote__echo"]["status"] == "blocked"  # the hook of the mount `gate`
    assert result.reply == "done"


def test_eve_run_calls_a_connection_tool_over_a_real_model_endpoint(
    connected_app: Path, connected_env: dict[str, str], tmp_path: Path
) -> None:
    """`eve run` in a subprocess, the model a chat-completions server on 127.0.0.1 that
    asks for `remote__add`, served by an SDK MCP server the agent's connection names."""
    with run_fake() as (url, script):
        script.steps = [{"tools": [{"name": "remote__add", "arguments": {"a": 20, "b": 22}}]},
                        {"text": "It is 42."}]
        env = {**os.environ, **connected_env, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "test",
               "EVE_MODEL_RETRIES": "0", "EVE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
        done = subprocess.run([sys.executable, "-m", "eve_build", "run", "add 20 and 22",
                               "--model", "openai-chat:scripted", "--json",
                               "--path", str(connected_app)],
                              env=env, capture_output=True, text=True, timeout=120,
                              check=False)
        offered = {tool["function"]["name"] for tool in script.requests[0]["tools"]}

    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["reply"].strip() == "It is 42."
    assert data["toolCalls"] == [{"name": "remote__add", "arguments": {"a": 20, "b": 22},
                                  "status": "ok", "result": {"total": 42}}]
    assert {"remote__add", "crm__api__add"} <= offered
    assert TOKEN not in done.stdout + done.stderr  # the bearer header stays out of output
