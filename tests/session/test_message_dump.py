"""A turn's messages are stored exactly as pydantic-ai's `ModelMessagesTypeAdapter`
dumps them (eve_build.session.dumping): the plain turns by inference, without building
the message schema, anything else through the adapter; and a first `eve run` stores
its turn without building that schema (issue 28's offline-turn target; the time is
measured by bench/offline_turn_bench.py, never here)."""

from __future__ import annotations

import datetime
import decimal
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import messages as m
from pydantic_ai.messages import ModelMessagesTypeAdapter
from pydantic_ai.usage import RequestUsage

from eve_build.consumer.build import build_agent
from eve_build.session.dumping import dump_messages, is_plain_message
from tests.runtime.apps import make_app

WHEN = datetime.datetime(2026, 12, 6, 14, 30, 1, 123456, tzinfo=datetime.UTC)


class Point(BaseModel):
    x: int
    when: datetime.datetime


def _adapter(messages: list[Any]) -> list[Any]:
    return list(ModelMessagesTypeAdapter.dump_python(messages, mode="json"))


PLAIN: list[list[Any]] = [
    [m.ModelRequest(parts=[m.UserPromptPart("hello", timestamp=WHEN)], timestamp=WHEN,
                    instructions="Be brief.", run_id="r1", metadata={"k": [1, "two"]})],
    [m.ModelRequest(parts=[m.SystemPromptPart("sys", timestamp=WHEN),
                           m.UserPromptPart("hi", timestamp=WHEN)])],
    [m.ModelResponse(parts=[m.ToolCallPart("add", {"a": 2, "b": 3}, "c1"),
                            m.ToolCallPart("raw", '{"a": 1}', "c2"),
                            m.ToolCallPart("none", None, "c3")],
                     usage=RequestUsage(input_tokens=10, output_tokens=4,
                                        details={"reasoning": 2},
                                        cost=decimal.Decimal("0.0012")),
                     model_name="test", timestamp=WHEN, provider_name="p",
                     provider_details={"id": 7}, provider_response_id="resp",
                     finish_reason="tool_call", duration=datetime.timedelta(seconds=1.5))],
    [m.ModelResponse(parts=[m.TextPart("done", id="t1", provider_details={"a": 1}),
                            m.ThinkingPart("hmm", signature="sig")],
                     usage=RequestUsage(unmeasured_requests=1), timestamp=WHEN,
                     state="incomplete")],
    [m.ModelRequest(parts=[
        m.ToolReturnPart("add", {"sum": 5}, "c1", timestamp=WHEN),
        m.ToolReturnPart("text", "plain text", "c2", timestamp=WHEN, metadata={"m": 1}),
        m.ToolReturnPart("model", Point(x=1, when=WHEN), "c3", timestamp=WHEN),
        m.ToolReturnPart("bytes", b"\x00\xffraw", "c4", timestamp=WHEN),
        m.ToolReturnPart("image", m.BinaryContent(b"\x89PNG", media_type="image/png"),
                         "c5", timestamp=WHEN),
        m.ToolReturnPart("list", [1, {"a": None}, WHEN, datetime.date(2026, 1, 2)], "c6",
                         timestamp=WHEN, outcome="failed"),
        m.ToolReturnPart("add", "bad input, try again", "c7", timestamp=WHEN,
                         outcome="retried"),
    ])],
]

NOT_PLAIN: list[list[Any]] = [
    [m.ModelRequest(parts=[m.UserPromptPart(
        ["look", m.ImageUrl("https://example.com/a.png"),
         m.BinaryContent(b"\x00\x01", media_type="image/png")], timestamp=WHEN)])],
    [m.ModelRequest(parts=[m.ToolReturnPart(
        "add", "bad input", "c1", timestamp=WHEN, outcome="retried",
        retry=m.RetryInfo("validation_error", attempt=1, max_retries=2))])],
    [m.ModelRequest(parts=[m.RetryFeedbackPart(
        [{"type": "missing", "loc": ("a",), "msg": "Field required", "input": {}}],
        retry=m.RetryInfo("validation_error"), timestamp=WHEN)])],
    [m.ModelResponse(parts=[m.TextPart("x", citations=[])], timestamp=WHEN)],
]


@pytest.mark.parametrize("messages", PLAIN)
def test_a_plain_turn_dumps_by_inference_as_the_adapter_does(messages: list[Any]) -> None:
    assert all(is_plain_message(message) for message in messages)

    dumped = dump_messages(messages)

    assert dumped == _adapter(messages)
    assert json.loads(json.dumps(dumped)) == dumped
    assert ModelMessagesTypeAdapter.validate_python(dumped) == \
        ModelMessagesTypeAdapter.validate_python(_adapter(messages))


@pytest.mark.parametrize("messages", NOT_PLAIN)
def test_any_other_turn_dumps_through_the_adapter(messages: list[Any]) -> None:
    assert not all(is_plain_message(message) for message in messages)

    assert dump_messages(messages) == _adapter(messages)


def test_a_subclass_of_a_part_is_not_plain() -> None:
    class Mine(m.TextPart):
        pass

    message = m.ModelResponse(parts=[Mine("x")], timestamp=WHEN)

    assert not is_plain_message(message)
    assert dump_messages([message]) == _adapter([message])


def test_a_first_run_stores_its_turn_without_building_the_message_schema(
        tmp_path: Path) -> None:
    root = tmp_path / "app"
    root.mkdir()
    make_app(root, [], {})
    build_agent(root)
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from pydantic_ai.messages import ModelMessagesTypeAdapter\n"
        "from eve_build.session.run import RunRequest, run_message\n"
        "result = run_message(Path(sys.argv[1]), 'hello', RunRequest(model='test'))\n"
        "print(result.session, ModelMessagesTypeAdapter.pydantic_complete)\n")
    environ = {**{k: v for k, v in os.environ.items() if k != "EVE_MODEL"},
               "EVE_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", script, str(root)], env=environ,
                          capture_output=True, text=True, timeout=120, check=False)

    assert done.returncode == 0, done.stderr[-2000:]
    session, built = done.stdout.split()
    assert built == "False"
    resumed = subprocess.run([sys.executable, "-m", "eve_build", "run", "again", "--model",
                              "test", "--session", session, "--path", str(root), "--json"],
                             env=environ, capture_output=True, text=True, timeout=120,
                             check=False)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert json.loads(resumed.stdout)["session"] == session
