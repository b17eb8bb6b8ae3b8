"""`load_agent(root).toolset()`: the agent's tools in any pydantic-ai Agent.

A FunctionModel calls eve tools through the toolset; every call goes through the hook
pipeline (a blocking hook), approvals (deferred without an approver, decided by one when
given), timeouts, and `ctx.ask` with no one to ask fails with its reason.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent as ModelAgent
from pydantic_ai import DeferredToolRequests, DeferredToolResults
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from eve_build.consumer.build import build_agent
from eve_build.runtime import Agent, ApprovalRequest, load_agent
from tests.runtime.apps import make_app

ADD = '''\
from pydantic import BaseModel

from eve_build.sdk import define_tool


class AddInput(BaseModel):
    a: int
    b: int


tool = define_tool(description="Add two numbers.", input=AddInput,
                   execute=lambda input, ctx: {"sum": input.a + input.b})
'''
WIPE = '''\
from pydantic import BaseModel

from eve_build.sdk import define_tool
from eve_build.sdk.approval import {policy}


class WipeInput(BaseModel):
    what: str


tool = define_tool(description="Wipe something.", input=WipeInput, approval={policy}(),
                   execute=lambda input, ctx: {{"wiped": input.what}})
'''
STALL = '''\
import asyncio

from pydantic import BaseModel

from eve_build.sdk import define_tool


class StallInput(BaseModel):
    pass


async def stall(input, ctx):
    await asyncio.sleep(3600)


tool = define_tool(description="Never finishes.", input=StallInput, timeout=0.5,
                   execute=stall)
'''
PICK = '''\
from pydantic import BaseModel

from eve_build.sdk import define_tool


class PickInput(BaseModel):
    pass


class Choice(BaseModel):
    colour: str


async def pick(input, ctx):
    answer = await ctx.ask("Which colour?", schema=Choice)
    return {"colour": answer.colour}


tool = define_tool(description="Ask for a colour.", input=PickInput, execute=pick)
'''
GUARD = '''\
from eve_build.sdk import block, define_hook


def check(event, ctx):
    if event.tool == "add" and event.arguments.get("a") == 13:
        return block("13 is unlucky")
    return None


hook = define_hook(events={"action.call": check})
'''
FILES = {"tools/add.py": ADD, "tools/wipe.py": WIPE.format(policy="always"),
         "tools/erase.py": WIPE.format(policy="once").replace("Wipe", "Erase"),
         "tools/stall.py": STALL, "tools/pick.py": PICK, "hooks/guard.py": GUARD}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("toolset") / "app"
    root.mkdir()
    make_app(root, [], FILES)
    build_agent(root)
    return root


@pytest.fixture
def agent(built: Path) -> Iterator[Agent]:
    with load_agent(built, environ={}) as loaded:
        yield loaded


def scripted(*calls: tuple[str, dict[str, Any]]) -> tuple[FunctionModel, list[ToolReturnPart]]:
    """A model that makes `calls` one per step, then answers "done"; and what it was told
    of each call (the tool returns and failures it received)."""
    told: list[ToolReturnPart] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        if isinstance(last, ModelRequest):
            told.extend(part for part in last.parts if isinstance(part, ToolReturnPart))
        made = sum(1 for m in messages if isinstance(m, ModelResponse)
                   for p in m.parts if isinstance(p, ToolCallPart))
        if made < len(calls):
            name, args = calls[made]
            return ModelResponse(parts=[ToolCallPart(name, json.dumps(args),
                                                     tool_call_id=f"call-{made}")])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(respond), told


def test_the_model_sees_every_tool_under_eves_names(agent: Agent) -> None:
    seen: list[str] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(tool.name for tool in info.function_tools)
        return ModelResponse(parts=[TextPart("ok")])

    ModelAgent(FunctionModel(respond), toolsets=[agent.toolset()]).run_sync("hi")
    assert sorted(seen) == agent.tools() == ["add", "erase", "pick", "stall", "wipe"]


def test_a_call_runs_through_the_hooks(agent: Agent) -> None:
    model, told = scripted(("add", {"a": 2, "b": 3}), ("add", {"a": 13, "b": 1}))
    result = ModelAgent(model, toolsets=[agent.toolset()]).run_sync("add")
    assert result.output == "done"
    assert told[0].content == {"sum": 5}
    assert told[1].outcome == "failed"
    assert str(told[1].content) == "blocked: hook `guard` of the agent: 13 is unlucky"


def test_bad_arguments_are_a_retry(agent: Agent) -> None:
    model, told = scripted(("add", {"a": "x", "b": 1}), ("add", {"a": 1, "b": 1}))
    result = ModelAgent(model, toolsets=[agent.toolset()]).run_sync("add")
    assert result.output == "done"
    assert told[0].outcome == "retried" and "valid integer" in str(told[0].content)
    assert told[1].content == {"sum": 2}


def test_a_tool_needing_approval_is_deferred_then_runs_when_approved(agent: Agent) -> None:
    model, told = scripted(("wipe", {"what": "disk"}))
    model_agent = ModelAgent(model, toolsets=[agent.toolset()],
                             output_type=[str, DeferredToolRequests])
    first = model_agent.run_sync("wipe it")
    assert isinstance(first.output, DeferredToolRequests)
    [request] = first.output.approvals
    assert (request.tool_name, request.args_as_dict()) == ("wipe", {"what": "disk"})
    assert first.output.metadata[request.tool_call_id]["policy"] == "always"
    assert told == []  # nothing ran: no hook, no tool

    second = model_agent.run_sync(
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={request.tool_call_id: True}))
    assert second.output == "done"
    assert told[-1].content == {"wiped": "disk"}


def test_a_denied_deferral_never_runs_the_tool(agent: Agent) -> None:
    model, told = scripted(("wipe", {"what": "disk"}))
    model_agent = ModelAgent(model, toolsets=[agent.toolset()],
                             output_type=[str, DeferredToolRequests])
    first = model_agent.run_sync("wipe it")
    assert isinstance(first.output, DeferredToolRequests)
    [request] = first.output.approvals
    second = model_agent.run_sync(
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={request.tool_call_id: False}))
    assert second.output == "done"
    assert "wiped" not in str(told[-1].content)


@pytest.mark.parametrize("answer", [True, False])
def test_an_approver_decides_instead(agent: Agent, answer: bool) -> None:
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> bool:
        asked.append(request)
        return answer

    model, told = scripted(("wipe", {"what": "disk"}))
    result = ModelAgent(model, toolsets=[agent.toolset(approver=approver)]).run_sync("wipe")
    assert result.output == "done"
    assert [(r.tool, r.arguments, r.policy) for r in asked] == [
        ("wipe", {"what": "disk"}, "always")]
    if answer:
        assert told[0].content == {"wiped": "disk"}
    else:
        assert told[0].outcome == "failed" and "refused: not approved" in str(told[0].content)


def test_once_is_deferred_only_until_approved(agent: Agent) -> None:
    model, told = scripted(("erase", {"what": "a"}), ("erase", {"what": "b"}))
    model_agent = ModelAgent(model, toolsets=[agent.toolset()],
                             output_type=[str, DeferredToolRequests])
    first = model_agent.run_sync("erase")
    assert isinstance(first.output, DeferredToolRequests)
    [request] = first.output.approvals
    second = model_agent.run_sync(
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={request.tool_call_id: True}))
    assert second.output == "done"  # the second erase ran without asking again
    assert [part.content for part in told] == [{"wiped": "a"}, {"wiped": "b"}]


def test_a_tool_past_its_timeout_fails_and_the_run_goes_on(agent: Agent) -> None:
    model, told = scripted(("stall", {}))
    result = ModelAgent(model, toolsets=[agent.toolset()]).run_sync("stall")
    assert result.output == "done"
    assert told[0].outcome == "failed"
    assert "did not finish within its 0.5 s timeout" in str(told[0].content)


def test_a_question_nobody_answers_fails_with_its_reason(agent: Agent) -> None:
    model, told = scripted(("pick", {}))
    result = ModelAgent(model, toolsets=[agent.toolset()]).run_sync("pick")
    assert result.output == "done"
    assert told[0].outcome == "failed"
    assert "Which colour?" in str(told[0].content)
    assert "there is no one to answer here" in str(told[0].content)
    assert "agent.toolset(ask=...)" in str(told[0].content)  # and what would answer it


def test_a_question_goes_to_the_given_answerer(agent: Agent) -> None:
    async def ask(question: Any) -> dict[str, Any]:
        assert question.message == "Which colour?"
        return {"colour": "teal"}

    model, told = scripted(("pick", {}))
    ModelAgent(model, toolsets=[agent.toolset(ask=ask)]).run_sync("pick")
    assert told[0].content == {"colour": "teal"}


def test_toolset_imports_pydantic_ai_only_when_called(built: Path) -> None:
    code = ("import sys\nfrom pathlib import Path\nfrom eve_build.runtime import load_agent\n"
            f"agent = load_agent(Path({str(built)!r}), environ={{}})\n"
            "assert 'pydantic_ai' not in sys.modules, 'loaded too early'\n"
            "agent.toolset()\nassert 'pydantic_ai' in sys.modules\nagent.close()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
