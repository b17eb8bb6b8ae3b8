"""A session's model sees the tools of the agent's MCP connections and calls them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from eve_build.runtime import load_agent
from eve_build.session.engine import Session, SessionOptions


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
