"""Sessions over HTTP: a real `eve serve` subprocess driven with httpx, its model the
scripted chat-completions server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.json_schemas import validate
from tests.session.engine.fake_openai import Script
from tests.session.engine.served import serving_agent

TIMEOUT = 60.0


@pytest.fixture
def served(app: Path, model_env: dict[str, str]) -> Iterator[str]:
    with serving(app, model_env) as url:
        yield url


@contextmanager
def serving(app: Path, model_env: dict[str, str]) -> Iterator[str]:
    """A real `eve serve` of `app` (the scripted model), stopped with SIGTERM after."""
    env = {**model_env, "EVE_MODEL": "openai-chat:scripted"}
    with serving_agent(app, env, "-e", str(app / "ext/talk.py")) as (url, served):
        yield url
    assert "Traceback" not in served.stderr_text, served.stderr_text


def _events(text: str) -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    found = []
    for block in text.strip().split("\n\n"):
        kind, data = block.split("\n", 1)
        found.append((kind.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return found


def test_a_session_over_http_with_json_and_sse(served: str, fake: tuple[str, Script]) -> None:
    with httpx.Client(base_url=served, timeout=TIMEOUT) as client:
        created = client.post("/.eve/v1/sessions")
        assert created.status_code == 201, created.text
        session = created.json()["id"]

        fake[1].steps = [{"tools": [{"name": "add", "arguments": {"a": 4, "b": 5}}]},
                         {"text": "It is nine."}]
        reply = client.post(f"/.eve/v1/sessions/{session}/messages", json={"text": "4+5?"})
        assert reply.status_code == 200, reply.text
        data = reply.json()
        validate("run.json", {"status": "ok", **data, "diagnostics": {
            "errors": 0, "warnings": 0, "items": []}})
        assert data["reply"].strip() == "It is nine."
        assert data["toolCalls"][0]["result"] == {"sum": 9}

        fake[1].steps = [{"tools": [{"name": "add", "arguments": {"a": 13, "b": 0}}]},
                         {"text": "That one is blocked."}]
        streamed = client.post(f"/.eve/v1/sessions/{session}/messages",
                               json={"text": "13+0?"}, headers={"Accept": "text/event-stream"})
        assert streamed.headers["content-type"].startswith("text/event-stream")
        events = _events(streamed.text)
        kinds = [kind for kind, _ in events]
        assert kinds[0] == "turn.start" and kinds[-1] == "reply"
        assert "tool.start" in kinds and kinds.count("token") >= 3
        ended = next(data for kind, data in events if kind == "tool.end")
        assert ended["status"] == "blocked" and "13 is unlucky" in ended["reason"]
        tokens = "".join(data["text"] for kind, data in events if kind == "token")
        assert tokens.strip() == "That one is blocked."
        assert events[-1][1]["session"] == session
        history = fake[1].requests[-1]["messages"]
        assert any(m.get("content") == "4+5?" for m in history)  # the earlier turn


def test_http_errors_are_clear_json(served: str, fake: tuple[str, Script]) -> None:
    with httpx.Client(base_url=served, timeout=TIMEOUT) as client:
        session = client.post("/.eve/v1/sessions").json()["id"]
        bad = client.post(f"/.eve/v1/sessions/{session}/messages", content=b"{not json",
                          headers={"Content-Type": "application/json"})
        empty = client.post(f"/.eve/v1/sessions/{session}/messages", json={"txt": "x"})
        unknown = client.post("/.eve/v1/sessions/nope/messages", json={"text": "hi"})
        fake[1].steps = [{"status": 500}]
        failed = client.post(f"/.eve/v1/sessions/{session}/messages", json={"text": "hi"})

    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "session/body-invalid")
    assert "not JSON" in bad.json()["error"]["message"]
    assert (empty.status_code, empty.json()["error"]["code"]) == (400, "session/body-invalid")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "session/id-unknown")
    assert "`nope`" in unknown.json()["error"]["message"]
    assert failed.status_code == 502
    assert failed.json()["error"]["code"] == "session/model-http-error"
    assert "HTTP 500" in failed.json()["error"]["message"]


def _accepted_again(client: httpx.Client, session: str, fake: Script) -> httpx.Response:
    """The next message to `session`, sent until it is not refused as busy (60 s)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        fake.steps = [{"text": "fine"}]
        answer = client.post(f"/.eve/v1/sessions/{session}/messages", json={"text": "again"})
        if answer.status_code != 409 or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)


def test_a_message_past_the_turn_deadline_is_504_and_frees_the_session(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    with serving(app, {**model_env, "EVE_TURN_TIMEOUT": "2"}) as url, \
            httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        session = client.post("/.eve/v1/sessions").json()["id"]
        fake[1].steps = [{"drip": 0.2}]
        late = client.post(f"/.eve/v1/sessions/{session}/messages", json={"text": "go on"})
        assert late.status_code == 504, late.text
        assert late.json()["error"]["code"] == "session/turn-timeout"
        assert "EVE_TURN_TIMEOUT" in late.json()["error"]["message"]

        fake[1].steps = [{"drip": 0.2}]
        streamed = client.post(f"/.eve/v1/sessions/{session}/messages",
                               json={"text": "go on"}, headers={"Accept": "text/event-stream"})
        kind, data = _events(streamed.text)[-1]
        assert kind == "error" and data["status"] == 504, streamed.text
        assert data["error"]["code"] == "session/turn-timeout"

        again = _accepted_again(client, session, fake[1])
        assert again.status_code == 200, again.text
        assert "go on" not in json.dumps(fake[1].requests[-1]["messages"])


def test_a_client_that_hangs_up_cancels_its_message(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    with serving(app, model_env) as url, httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        session = client.post("/.eve/v1/sessions").json()["id"]

        fake[1].steps = [{"drip": 0.2}]  # streams until someone stops it (600 s deadline)
        with pytest.raises(httpx.ReadTimeout):  # JSON: the client gives up and closes
            httpx.post(f"{url}/.eve/v1/sessions/{session}/messages", json={"text": "go on"},
                       timeout=httpx.Timeout(TIMEOUT, read=2.0))
        assert _accepted_again(client, session, fake[1]).status_code == 200

        fake[1].steps = [{"drip": 0.2}]
        with client.stream("POST", f"/.eve/v1/sessions/{session}/messages",
                           json={"text": "go on"},
                           headers={"Accept": "text/event-stream"}) as stream:
            for line in stream.iter_lines():  # SSE: hang up after the first token
                if line == "event: token":
                    break
        again = _accepted_again(client, session, fake[1])
        assert again.status_code == 200, again.text
        assert "go on" not in json.dumps(fake[1].requests[-1]["messages"])
