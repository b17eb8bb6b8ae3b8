"""The engine in-process with pydantic-ai's FunctionModel and TestModel."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from eve_build.errors import DiagnosticsError
from eve_build.runtime import load_agent
from eve_build.session.engine import Session, SessionOptions
from eve_build.session.models import ModelChoice, derive_model_choice
from eve_build.session.run import RunRequest, run_message


def _session(app: Path, model: Any) -> tuple[Any, Session]:
    agent = load_agent(app, extensions=[app / "ext/talk.py"])
    return agent, Session(agent, app, "s1", SessionOptions(model="fn", instance=model))


def test_function_model_sees_the_prompt_and_calls_a_tool(app: Path) -> None:
    seen: list[AgentInfo] = []

    async def answer(messages: list[ModelMessage], info: AgentInfo
                     ) -> AsyncIterator[str | DeltaToolCalls]:
        seen.append(info)
        if len(messages) == 1:
            yield {0: DeltaToolCall("add", '{"a": 1, "b": 2}')}
        else:
            yield "th"
            yield "ree"

    agent, session = _session(app, FunctionModel(stream_function=answer))
    with agent:
        result = agent._run(session.asend("add"))

    assert result.reply == "three"
    assert [c.to_json() for c in result.tool_calls] == [
        {"name": "add", "arguments": {"a": 1, "b": 2}, "status": "ok", "result": {"sum": 3}}]
    assert "You are a test agent." in (seen[0].instructions or "")
    assert {"add", "wipe", "remember", "load_skill", "delegate_helper"} <= {
        t.name for t in seen[0].function_tools}
    assert len(session.pending) == 4  # request, tool call, tool return, answer


def test_a_cancelled_turn_leaves_the_history_as_it_was(app: Path) -> None:
    asked: list[asyncio.Event] = []  # set once the turn reached the model: mid turn

    async def slow(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        asked[0].set()
        await asyncio.sleep(600)
        yield "late"

    agent, session = _session(app, FunctionModel(stream_function=slow))

    async def cancel() -> None:
        asked.append(asyncio.Event())
        task = asyncio.ensure_future(session.asend("wait"))
        await asyncio.wait_for(asked[0].wait(), 60)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with agent:
        agent._run(cancel())
    assert session.history == [] and session.pending == []


def test_test_model_runs_a_whole_turn_offline(app: Path) -> None:
    result = run_message(app, "hello", RunRequest(model="test"))

    names = {c.name for c in result.tool_calls}
    assert {"add", "wipe", "load_skill", "delegate_helper", "shout"} <= names
    assert {c.status for c in result.tool_calls if c.name == "wipe"} == {"refused"}
    assert result.usage.requests >= 2


@pytest.mark.parametrize(("given", "environ", "recorded", "own", "root", "expected"), [
    ("openai:a", {"EVE_MODEL": "openai:b"}, "openai:r", "openai:c", "openai:d",
     ("openai:a", "`--model`")),
    (None, {"EVE_MODEL": "openai:b"}, "openai:r", "openai:c", "openai:d",
     ("openai:b", "`EVE_MODEL`")),
    (None, {}, "openai:r", "openai:c", "openai:d",
     ("openai:r", "the session's recorded model")),
    (None, {}, None, "openai:c", "openai:d",
     ("openai:c", "`define_agent(model=...)` in `agent/agent.py`")),
    (None, {}, None, None, "openai:d",
     ("openai:d", "`define_agent(model=...)` in `agent/agent.py`")),
])
def test_model_choice_order(given: str | None, environ: dict[str, str], recorded: str | None,
                            own: str | None, root: str | None,
                            expected: tuple[str, str]) -> None:
    choice = derive_model_choice(given, environ, own, root, recorded=recorded)
    assert (choice.name, choice.source) == expected


def test_the_model_order_is_written_once() -> None:
    """One owner: only eve_build/session/models.py reads EVE_MODEL; a second place that
    decides which model a turn uses would read it too."""
    package = Path(__file__).resolve().parents[3] / "eve_build"
    readers = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                     if "MODEL_VARIABLE" in p.read_text() or '"EVE_MODEL"' in p.read_text())
    # `eve init` reads it once to write `define_agent(model=...)` into a new scaffold; it
    # never chooses the model of a turn
    assert readers == ["scaffold/agent.py", "session/models.py"]


def test_no_model_anywhere_is_a_diagnostic() -> None:
    with pytest.raises(DiagnosticsError) as caught:
        derive_model_choice(None, {}, None, None)
    assert caught.value.diagnostics[0].code == "session/model-missing"
    assert ModelChoice("x", "y").name == "x"


def test_help_does_not_import_pydantic_ai() -> None:
    code = ("import sys, runpy; sys.argv = ['eve', '--help']\n"
            "try:\n    runpy.run_module('eve_build', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "print('pydantic_ai' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=60)
    assert done.stderr.strip().endswith("False"), done.stderr


def test_without_the_extra_run_says_what_to_install(app: Path) -> None:
    code = ("import sys; sys.modules['pydantic_ai'] = None\n"
            f"sys.argv = ['eve', 'run', 'hi', '--model', 'test', '--path', {str(app)!r}]\n"
            "from eve_build.cli import main\nmain()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=60)
    assert done.returncode == 1
    assert "error session/extra-missing:" in done.stderr
    # eve-build is not on PyPI: the extra's own packages, not `pip install 'eve-build[agent]'`
    assert "-m pip install 'pydantic-ai-slim[openai]<3,>=2.68'" in done.stderr
    assert "pip install 'eve-build[agent]'" not in done.stderr
    assert "Traceback" not in done.stderr
