"""A model server that answers only whole chat completions (no streaming) works, found from
its answer or told with `EVE_MODEL_STREAM=0`, with one `message.update` per message:
`eve run` in a subprocess and a session over HTTP of a real `eve serve`."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.session.engine.conftest import eve as run_eve
from tests.session.engine.conftest import events
from tests.session.engine.fake_openai import Script
from tests.session.engine.served import serving_agent

MODEL = "openai-chat:scripted"
STEPS = [{"tools": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
         {"text": "The sum is five."}]


def _assistant_updates(app: Path) -> list[str]:
    return [e["text"] for e in events(app)
            if e.get("event") == "message.update" and (e.get("data") or {}).get("role",
                                                                                "assistant")
            == "assistant"]


def _run(app: Path, env: dict[str, str]) -> dict:  # type: ignore[type-arg]
    done = run_eve(app, env, "run", "add 2 and 3", "--model", MODEL, "--json", timeout=180)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    data: dict = json.loads(done.stdout)  # type: ignore[type-arg]
    return data


def test_a_server_that_does_not_stream_is_found_from_its_answer(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    fake[1].streams = False
    fake[1].steps = list(STEPS)
    data = _run(app, model_env)

    assert data["reply"].strip() == "The sum is five."
    assert data["toolCalls"][0]["result"] == {"sum": 5}
    # the first request asked for a stream and got a whole answer: asked again, whole;
    # the next one (after the tool call) is whole at once
    assert [bool(r.get("stream")) for r in fake[1].requests] == [True, False, False]
    assert _assistant_updates(app) == ["The sum is five."]  # one update for the message


def test_eve_model_stream_0_never_asks_for_a_stream(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    fake[1].steps = list(STEPS)  # the server could stream: it is not asked to
    data = _run(app, {**model_env, "EVE_MODEL_STREAM": "0"})

    assert data["reply"].strip() == "The sum is five."
    assert [bool(r.get("stream")) for r in fake[1].requests] == [False, False]
    assert _assistant_updates(app) == ["The sum is five."]


def test_an_invalid_eve_model_stream_is_refused(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    done = run_eve(app, {**model_env, "EVE_MODEL_STREAM": "no"}, "run", "hi", "--model", MODEL,
                   timeout=180)
    assert done.returncode == 1
    assert "setting/value-invalid" in done.stderr and "EVE_MODEL_STREAM" in done.stderr
    assert fake[1].requests == []


def test_a_session_over_http_with_a_server_that_does_not_stream(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    fake[1].streams = False
    env = {**model_env, "EVE_MODEL": MODEL}
    with (serving_agent(app, env, "-e", str(app / "ext/talk.py")) as (url, served),
          httpx.Client(base_url=url, timeout=60) as client):
        session = client.post("/.eve/v1/sessions").json()["id"]
        fake[1].steps = list(STEPS)
        reply = client.post(f"/.eve/v1/sessions/{session}/messages", json={"text": "2+3?"})
        assert reply.status_code == 200, reply.text
        assert reply.json()["reply"].strip() == "The sum is five."

        assert [bool(r.get("stream")) for r in fake[1].requests] == [True, False, False]
        fake[1].steps = [{"text": "Whole words at once."}]
        fake[1].requests.clear()
        streamed = client.post(f"/.eve/v1/sessions/{session}/messages",
                               json={"text": "again"}, headers={"Accept": "text/event-stream"})
    assert "Traceback" not in served.stderr_text
    kinds = [block.split("\n", 1)[0].removeprefix("event: ")
             for block in streamed.text.strip().split("\n\n")]
    tokens = [json.loads(block.split("\n", 1)[1].removeprefix("data: "))["text"]
              for block in streamed.text.strip().split("\n\n")
              if block.startswith("event: token")]
    assert kinds[-1] == "reply"
    assert tokens == ["Whole words at once."]  # one chunk: the whole message
    assert [bool(r.get("stream")) for r in fake[1].requests] == [False]  # remembered
