"""Each bad input of issue 22 is one clear diagnostic, exit 1, no traceback, the store intact."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from eve_build.session.stores import open_session_store
from tests.session.engine.conftest import eve, events
from tests.session.engine.fake_openai import Script
from tests.waiting import wait_until

MODEL = "openai-chat:scripted"


def _first_session(app: Path, env: dict[str, str], fake: Script) -> str:
    fake.steps = [{"text": "hello"}]
    done = eve(app, env, "run", "hi", "--model", MODEL, "--json")
    return str(json.loads(done.stdout)["session"])


def _messages(app: Path, session: str) -> int:
    store = open_session_store(app)
    try:
        record = store.read_session(session)
        assert record is not None
        return len(record.messages)
    finally:
        store.close()


def _fails(done: subprocess.CompletedProcess[str], code: str, *named: str) -> None:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert f"error {code}:" in done.stderr, done.stderr
    for text in named:
        assert text in done.stderr, done.stderr


@contextlib.contextmanager
def _refusing_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections for as long as the block runs: bound
    (so no other process, e.g. another xdist worker, can take it) and never listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


@pytest.mark.parametrize(("model", "variables", "code", "named"), [
    (None, {}, "session/model-missing", ("EVE_MODEL", "--model", "define_agent(model=...)")),
    ("gpt-4.1", {}, "session/model-provider-missing", ("`gpt-4.1`", "provider:model")),
    ("nosuch:model", {}, "session/provider-unknown", ("`nosuch`",)),
    ("anthropic:claude-x", {}, "session/provider-extra-missing",
     ("`anthropic`", "pip install")),
    ("openai:gpt-4.1", {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None},
     "session/api-key-missing",
     ("`OPENAI_API_KEY`",)),
])
def test_a_model_that_cannot_open(app: Path, model_env: dict[str, str], fake: tuple[str, Script],
                                  model: str | None, variables: dict[str, str | None],
                                  code: str, named: tuple[str, ...]) -> None:
    session = _first_session(app, model_env, fake[1])
    env = {k: v for k, v in {**model_env, **variables}.items() if v is not None}
    env.pop("EVE_MODEL", None)
    # no model at all: a new session (a resumed one has the model it recorded)
    done = eve(app, env, "run", "again", *(("--session", session) if model else ()),
               *(("--model", model) if model else ()))

    _fails(done, code, *named)
    assert _messages(app, session) == 2


@pytest.mark.parametrize(("status", "code", "named"), [
    (401, "session/model-auth", ("HTTP 401", "`OPENAI_API_KEY`")),
    (429, "session/model-rate-limited", ("HTTP 429",)),
    (500, "session/model-http-error", ("HTTP 500",)),
])
def test_an_http_error_of_the_provider(app: Path, model_env: dict[str, str],
                                       fake: tuple[str, Script], status: int, code: str,
                                       named: tuple[str, ...]) -> None:
    session = _first_session(app, model_env, fake[1])
    fake[1].steps = [{"status": status}]
    done = eve(app, model_env, "run", "again", "--session", session, "--model", MODEL)

    _fails(done, code, *named, fake[0].rsplit("/", 1)[0])
    assert _messages(app, session) == 2


def test_a_refused_connection_names_the_url(app: Path, model_env: dict[str, str]) -> None:
    with _refusing_port() as port:
        url = f"http://127.0.0.1:{port}/v1"
        done = eve(app, {**model_env, "OPENAI_BASE_URL": url}, "run", "hi", "--model", MODEL)

    _fails(done, "session/model-unreachable", url)


def test_a_model_that_never_answers_times_out(app: Path, model_env: dict[str, str],
                                              fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"hang": 5}]
    done = eve(app, {**model_env, "EVE_MODEL_TIMEOUT": "0.5"}, "run", "hi", "--model", MODEL)

    _fails(done, "session/model-timeout", "EVE_MODEL_TIMEOUT")


def test_the_request_limit(app: Path, model_env: dict[str, str],
                           fake: tuple[str, Script]) -> None:
    call = {"tools": [{"name": "add", "arguments": {"a": 1, "b": 1}}]}
    fake[1].steps = [call, call, call]
    done = eve(app, model_env, "run", "loop", "--model", MODEL, "--max-requests", "2")

    _fails(done, "session/request-limit", "--max-requests")
    assert len(fake[1].requests) == 2


def test_an_unknown_session(app: Path, model_env: dict[str, str]) -> None:
    done = eve(app, model_env, "run", "hi", "--model", MODEL, "--session", "nope")

    _fails(done, "session/id-unknown", "`nope`", "eve sessions list")


def test_a_store_that_is_not_sqlite(app: Path, model_env: dict[str, str]) -> None:
    (app / ".eve/sessions.sqlite3").write_bytes(b"not a database at all" * 10)
    done = eve(app, model_env, "run", "hi", "--model", MODEL)

    _fails(done, "session/store-invalid")
    assert (app / ".eve/sessions.sqlite3").read_bytes() == b"not a database at all" * 10


def test_a_session_killed_mid_turn_resumes_from_its_last_turn(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    session = _first_session(app, model_env, fake[1])
    fake[1].steps = [{"tools": [{"name": "remember", "arguments": {"text": "x"}}]},
                     {"hang": 30}]
    before = len(fake[1].requests)  # the first session's
    process = subprocess.Popen(
        [sys.executable, "-m", "eve_build", "run", "second", "--model", MODEL, "--session",
         session, "--path", str(app), "-e", str(app / "ext/talk.py")],
        env=model_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # mid turn: the `remember` tool ran (its event is logged, its result went back to the
    # model) and the model's second answer is pending
    wait_until(lambda: len(fake[1].requests) >= before + 2, "the turn's second model request")
    assert process.poll() is None, "the turn is still going"
    tool_results = [m for m in fake[1].requests[before + 1]["messages"] if m["role"] == "tool"]
    assert len(tool_results) == 1 and '"kept":1' in tool_results[0]["content"].replace(" ", "")
    assert [e["data"] for e in events(app) if e.get("event") == "extension.event"] == [
        {"extension": "talk", "name": "remembered", "data": {"text": "x"}}]
    os.kill(process.pid, signal.SIGKILL)
    process.wait(10)
    assert process.returncode == -signal.SIGKILL

    fake[1].steps = [{"text": "back"}]
    done = eve(app, model_env, "run", "third", "--model", MODEL, "--session", session,
               "--json")
    assert json.loads(done.stdout)["reply"].strip() == "back"
    history = fake[1].requests[-1]["messages"]
    assert [m.get("content") for m in history if m["role"] == "user"] == ["hi", "third"]
    assert not [m for m in history if m["role"] == "tool"], "the killed turn was not kept"
    assert _messages(app, session) == 4


def test_a_model_that_keeps_calling_an_unknown_tool(app: Path, model_env: dict[str, str],
                                                    fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"tools": [{"name": "nope", "arguments": {}}]}] * 6
    done = eve(app, model_env, "run", "go", "--model", MODEL)

    _fails(done, "session/model-failed", "retried only a few times")
    assert len(fake[1].requests) == 4  # the first call and 3 retries


@pytest.mark.parametrize(("variable", "value"), [
    ("EVE_MODEL_TIMEOUT", "nan"), ("EVE_MODEL_TIMEOUT", "-1"), ("EVE_MODEL_TIMEOUT", "0"),
    ("EVE_MODEL_TIMEOUT", "1e10"), ("EVE_MODEL_TIMEOUT", "abc"), ("EVE_MODEL_TIMEOUT", "inf"),
    ("EVE_MODEL_RETRIES", "²"), ("EVE_MODEL_RETRIES", "-1"), ("EVE_MODEL_RETRIES", "1.5"),
])
def test_an_invalid_model_setting_is_refused_not_replaced(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script], variable: str,
        value: str) -> None:
    done = eve(app, {**model_env, variable: value}, "run", "hi", "--model", MODEL)

    _fails(done, "setting/value-invalid", variable, repr(value))
    assert fake[1].requests == []  # refused before any request


@pytest.mark.parametrize("answer", [{"choices": "x"}, {"choices": [{"delta": 3}]}])
def test_an_answer_that_breaks_the_api_is_a_diagnostic(app: Path, model_env: dict[str, str],
                                                      fake: tuple[str, Script],
                                                      answer: dict[str, object]) -> None:
    fake[1].steps = [{"raw": answer}]
    done = eve(app, model_env, "run", "hi", "--model", MODEL)

    _fails(done, "session/model-failed", "not what its API promises", fake[0])
    assert "internal/unexpected" not in done.stderr


def test_a_chat_line_that_is_not_utf8_is_refused_and_the_chat_goes_on(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"text": "first"}, {"text": "second"}]
    done = subprocess.run(
        [sys.executable, "-m", "eve_build", "chat", "--model", MODEL, "--path", str(app)],
        input=b"one\n\xff\xfe bad \xc3\n" + b"two\n/exit\n", env=model_env,
        capture_output=True, timeout=180, check=False)
    stderr = done.stderr.decode("utf-8", "replace")

    assert done.returncode == 0, stderr
    assert "Traceback" not in stderr and "internal/unexpected" not in stderr, stderr
    assert "warning session/input-invalid:" in stderr, stderr
    assert [m["messages"][-1]["content"] for m in fake[1].requests] == ["one", "two"]
    assert b"first" in done.stdout and b"second" in done.stdout


def test_a_model_that_streams_forever_is_cut_off_at_the_turn_deadline(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    session = _first_session(app, model_env, fake[1])
    kept = _messages(app, session)
    fake[1].steps = [{"drip": 0.2}]  # one token every 0.2 s: no read ever times out
    env = {**model_env, "EVE_TURN_TIMEOUT": "2"}
    done = eve(app, env, "run", "go on", "--model", MODEL, "--session", session)

    _fails(done, "session/turn-timeout", "EVE_TURN_TIMEOUT=2 s", "nothing of it was committed")
    assert _messages(app, session) == kept  # the cancelled message left nothing behind
    fake[1].steps = [{"text": "fine"}]
    again = eve(app, env, "run", "again", "--model", MODEL, "--session", session, "--json")
    assert again.returncode == 0, again.stderr
    assert "go on" not in json.dumps(fake[1].requests[-1]["messages"])


def test_an_invalid_turn_timeout_is_refused(app: Path, model_env: dict[str, str]) -> None:
    done = eve(app, {**model_env, "EVE_TURN_TIMEOUT": "nan"}, "run", "hi", "--model", MODEL)
    _fails(done, "setting/value-invalid", "EVE_TURN_TIMEOUT")


def test_eve_chat_holds_the_turn_deadline(app: Path, model_env: dict[str, str],
                                          fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"drip": 0.2}]
    done = subprocess.run([sys.executable, "-m", "eve_build", "chat", "--model", MODEL,
                           "--path", str(app)], input="go on\n", capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**model_env, "EVE_TURN_TIMEOUT": "2"})
    _fails(done, "session/turn-timeout", "EVE_TURN_TIMEOUT=2 s")


STALL = '''\
import time

from pydantic import BaseModel

from eve_build.sdk import Spec, define_tool


class Nothing(BaseModel):
    pass


async def stall(input, ctx):
    time.sleep(3600)  # sync sleep inside async def: its event loop is held


def setup(ctx):
    return Spec(tools={"stall": define_tool(description="Blocks.", input=Nothing,
                                            execute=stall)})
'''


def test_a_tool_blocking_its_event_loop_is_cut_off_at_its_timeout(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    (app / "ext/stall.py").write_text(STALL)
    fake[1].steps = [{"tools": [{"name": "stall", "arguments": {}}]}, {"text": "it stalled"}]
    done = subprocess.run([sys.executable, "-m", "eve_build", "run", "stall", "--model", MODEL,
                           "--json", "--path", str(app), "-e", str(app / "ext/stall.py")],
                          env={**model_env, "EVE_TOOL_TIMEOUT": "1"}, capture_output=True,
                          text=True, timeout=120, check=False)

    assert done.returncode == 0, done.stderr
    call = json.loads(done.stdout)["toolCalls"][0]
    assert call["name"] == "stall" and call["status"] == "failed"
    assert "within its 1 s timeout (EVE_TOOL_TIMEOUT;" in call["reason"]
    assert "within its 1 s timeout" in fake[1].requests[1]["messages"][-1]["content"]
    assert json.loads(done.stdout)["reply"].strip() == "it stalled"
