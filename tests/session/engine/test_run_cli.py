"""`eve run` in a subprocess against the scripted chat-completions server (`openai-chat:`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from eve_build.session.stores import open_session_store
from tests.conftest import GOLDEN
from tests.json_schemas import validate
from tests.session.engine.conftest import eve as run_eve
from tests.session.engine.conftest import events
from tests.session.engine.fake_openai import Script

MODEL = "openai-chat:scripted"


def _json(app: Path, env: dict[str, str], *args: str) -> dict:  # type: ignore[type-arg]
    done = run_eve(app, env, "run", *args, "--model", MODEL, "--json")
    assert "Traceback" not in done.stderr, done.stderr
    data: dict = json.loads(done.stdout)  # type: ignore[type-arg]
    validate("run.json", data)
    return data


def _turns(app: Path, session: str) -> int:
    store = open_session_store(app)
    try:
        record = store.read_session(session)
        assert record is not None
        return record.row.turns
    finally:
        store.close()


def test_a_tool_call_and_its_result_reach_the_model(app: Path, model_env: dict[str, str],
                                                    fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"tools": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
                     {"text": "The sum is 5."}]
    data = _json(app, model_env, "add 2 and 3")

    assert data["reply"].strip() == "The sum is 5."
    assert data["toolCalls"] == [{"name": "add", "arguments": {"a": 2, "b": 3},
                                  "status": "ok", "result": {"sum": 5}}]
    assert data["usage"]["requests"] == 2 and data["usage"]["inputTokens"] == 20
    first, second = fake[1].requests
    assert "You are a test agent." in first["messages"][0]["content"]
    assert "greet: Greet someone warmly." in first["messages"][0]["content"]
    tools = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert {"add", "wipe", "remember", "load_skill", "delegate_helper"} <= set(tools)
    assert tools["add"]["parameters"]["required"] == ["a", "b"]
    assert '"sum":5' in second["messages"][-1]["content"].replace(" ", "")
    seen = [e["event"] for e in events(app) if "event" in e]
    for name in ("agent.start", "message.start", "turn.start", "tool.start", "tool.end",
                 "message.update", "message.end", "turn.end", "agent.end"):
        assert name in seen, seen
    assert seen.count("message.update") >= 3  # one per streamed word
    assert {e["model"] for e in events(app) if e.get("event") == "turn.start"} == {MODEL}


def test_a_blocked_call_is_answered_with_its_reason(app: Path, model_env: dict[str, str],
                                                    fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"tools": [{"name": "add", "arguments": {"a": 13, "b": 1}}]},
                     {"text": "I could not."}]
    data = _json(app, model_env, "add 13 and 1")

    assert data["status"] == "ok"
    assert data["toolCalls"][0]["status"] == "blocked"
    assert "13 is unlucky" in data["toolCalls"][0]["reason"]
    assert "13 is unlucky" in fake[1].requests[1]["messages"][-1]["content"]


def test_bad_arguments_and_unknown_tools_are_retries(app: Path, model_env: dict[str, str],
                                                     fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"tools": [{"name": "add", "arguments": {"a": "x"}}]},
                     {"tools": [{"name": "nope", "arguments": {}}]},
                     {"text": "fine"}]
    data = _json(app, model_env, "try")

    assert data["status"] == "ok" and data["toolCalls"] == []  # the hooks never saw them
    retried = fake[1].requests[1]["messages"][-1]["content"]
    assert "b" in retried and "Field required" in retried
    assert "Unknown tool name: 'nope'" in fake[1].requests[2]["messages"][-1]["content"]


def test_approval_is_refused_without_approve_and_given_with_it(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    step = {"tools": [{"name": "wipe", "arguments": {"what": "disk"}}]}
    fake[1].steps = [step, {"text": "no"}]
    refused = _json(app, model_env, "wipe")
    fake[1].steps = [step, {"text": "yes"}]
    approved = _json(app, model_env, "wipe", "--approve")

    assert refused["toolCalls"][0]["status"] == "refused"
    assert approved["toolCalls"][0] == {"name": "wipe", "arguments": {"what": "disk"},
                                        "status": "ok", "result": {"wiped": "disk"}}


def test_a_handled_input_and_a_command_start_no_turn(app: Path, model_env: dict[str, str],
                                                     fake: tuple[str, Script]) -> None:
    handled = _json(app, model_env, "ping")
    command = _json(app, model_env, "/notes")

    assert (handled["outcome"], handled["reply"], handled["turns"]) == ("handled", "pong", 0)
    assert (command["outcome"], command["reply"]) == ("command", "none")
    assert fake[1].requests == []


def test_a_skill_is_expanded_before_the_model_sees_it(app: Path, model_env: dict[str, str],
                                                      fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"text": "Hello Ada!"}]
    _json(app, model_env, "/skill:greet Ada")

    user = fake[1].requests[0]["messages"][-1]["content"]
    assert user.startswith('<skill name="greet">\nSay hello with the person\'s name.')
    assert user.endswith("Ada")


def test_a_subagent_runs_its_own_session(app: Path, model_env: dict[str, str],
                                         fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"tools": [{"name": "delegate_helper", "arguments": {"task": "hi"}}]},
                     {"tools": [{"name": "shout", "arguments": {"text": "hi"}}]},
                     {"text": "HI done"}, {"text": "The helper said HI."}]
    data = _json(app, model_env, "ask the helper")

    assert data["reply"].strip() == "The helper said HI."
    assert [(c["name"], c.get("subagent")) for c in data["toolCalls"]] == [
        ("shout", "helper"), ("delegate_helper", None)]
    helper = fake[1].requests[1]
    assert "You are the helper." in helper["messages"][0]["content"]
    assert {t["function"]["name"] for t in helper["tools"]} == {"shout"}
    assert "HI done" in fake[1].requests[3]["messages"][-1]["content"]


def test_resume_brings_back_history_entries_and_state(app: Path, model_env: dict[str, str],
                                                      fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"tools": [{"name": "remember", "arguments": {"text": "milk"}}]},
                     {"text": "kept"}]
    first = _json(app, model_env, "remember milk")
    fake[1].steps = [{"text": "You asked me to remember milk."}]
    second = _json(app, model_env, "what did I say?", "--session", first["session"])

    assert second["session"] == first["session"]
    history = fake[1].requests[-1]["messages"]
    assert any(m.get("content") == "remember milk" for m in history)
    assert {"setup": 1} in events(app)  # setup(ctx) saw the restored entry
    assert first["custom"] == [{"extension": "talk", "type": "note", "text": "kept milk",
                                "data": {"n": 1}}]
    published = [e for e in events(app) if e.get("event") == "extension.event"]
    assert published[0]["data"] == {"extension": "talk", "name": "remembered",
                                    "data": {"text": "milk"}}
    assert _turns(app, first["session"]) == 2


def test_a_queued_user_message_gets_a_turn(app: Path, model_env: dict[str, str],
                                           fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"tools": [{"name": "remember", "arguments": {"text": "twice"}}]},
                     {"text": "first"}, {"text": "second"}]
    data = _json(app, model_env, "go")

    assert data["turns"] == 2 and data["reply"].strip() == "second"
    assert fake[1].requests[2]["messages"][-1]["content"] == "and once more"


def test_run_json_matches_the_golden_file(app: Path, model_env: dict[str, str],
                                          fake: tuple[str, Script], update_golden: bool) -> None:
    fake[1].steps = [{"tools": [{"name": "add", "arguments": {"a": 13, "b": 1}}]},
                     {"tools": [{"name": "add", "arguments": {"a": 1, "b": 1}}]},
                     {"text": "One was blocked, the other is 2."}]
    done = run_eve(app, model_env, "run", "add twice", "--model", MODEL, "--json")
    data = json.loads(done.stdout)
    validate("run.json", data)
    text = done.stdout.replace(data["session"], "$SESSION")
    golden = GOLDEN / "session" / "run.json"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert golden.read_text() == text


def test_the_terminal_shows_calls_and_custom_messages_on_stderr(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    fake[1].steps = [{"tools": [{"name": "remember", "arguments": {"text": "tea"}}]},
                     {"text": "Kept."}]
    done = run_eve(app, model_env, "run", "remember tea", "--model", MODEL)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Kept. \n"
    assert "tool: remember ok" in done.stderr
    assert "talk: kept tea" in done.stderr
    assert "session: " in done.stderr and "Traceback" not in done.stderr


def _model_choice(app: Path, env: dict[str, str], session: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run([sys.executable, "-m", "eve_build", "sessions", "show", session,
                           "--json", "--path", str(app)], env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = json.loads(done.stdout)
    validate("sessions-show.json", shown)
    choice: dict = shown["session"]["modelChoice"]  # type: ignore[type-arg]
    return choice


def test_a_resumed_session_uses_the_model_it_recorded(app: Path, model_env: dict[str, str],
                                                      fake: tuple[str, Script]) -> None:
    """One answer to "which model": `eve run --session` and `eve sessions show` agree,
    with and without EVE_MODEL (which ranks above the recorded model)."""
    env = {k: v for k, v in model_env.items() if k != "EVE_MODEL"}
    session = _json(app, env, "hello")["session"]  # --model openai-chat:scripted
    assert _model_choice(app, env, session) == {
        "model": MODEL, "source": "the session's recorded model"}
    fake[1].steps = [{"text": "again"}]
    resumed = run_eve(app, env, "run", "again", "--session", session, "--json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr  # once model-missing
    assert json.loads(resumed.stdout)["model"] == MODEL
    assert fake[1].requests[-1]["model"] == "scripted"

    other = {**env, "EVE_MODEL": "openai-chat:other"}
    assert _model_choice(app, other, session) == {
        "model": "openai-chat:other", "source": "`EVE_MODEL`"}
    resumed = run_eve(app, other, "run", "third", "--session", session, "--json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert fake[1].requests[-1]["model"] == "other"
    assert _turns(app, session) == 3


def test_a_session_another_process_runs_is_busy(app: Path, model_env: dict[str, str],
                                                fake: tuple[str, Script]) -> None:
    session = _json(app, model_env, "hello")["session"]
    store = open_session_store(app)
    try:
        claim = store.session_claims().claim(session, "elsewhere:1", 600.0)
        assert claim is not None
        busy = run_eve(app, model_env, "run", "again", "--session", session, "--json")
        store.session_claims().release(claim)
    finally:
        store.close()
    assert busy.returncode == 1, busy.stdout + busy.stderr
    assert json.loads(busy.stdout)["diagnostics"]["items"][0]["code"] == "session/busy"
    assert _turns(app, session) == 1
    again = run_eve(app, model_env, "run", "again", "--session", session, "--model", MODEL)
    assert again.returncode == 0, again.stderr
    assert _turns(app, session) == 2
