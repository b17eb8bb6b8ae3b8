"""`ctx.ask` over HTTP against a real `eve serve`, with httpx: the `input.required` SSE
event, the answer posted to `/inputs/{id}` (422, 404, 409), the question that times out
(EVE_INPUT_TIMEOUT), and a JSON-mode message answered 409 with the question."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.session.engine.fake_openai import Script
from tests.session.engine.served import serving_agent

TIMEOUT = 60.0
BOOK = [{"tools": [{"name": "book", "arguments": {"what": "Rome"}}]}, {"text": "booked"}]


@contextmanager
def serving(app: Path, model_env: dict[str, str], **env: str) -> Iterator[str]:
    env = {**model_env, "EVE_MODEL": "openai-chat:scripted", **env}
    with serving_agent(app, env, "-e", str(app / "ext/talk.py")) as (url, served):
        yield url
    assert "Traceback" not in served.stderr_text, served.stderr_text


def _stream_events(response: httpx.Response) -> Iterator[tuple[str, dict[str, Any]]]:
    kind = ""
    for line in response.iter_lines():
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            yield kind, json.loads(line.removeprefix("data: "))


def _session(client: httpx.Client) -> str:
    created = client.post("/.eve/v1/sessions")
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def test_a_question_is_an_sse_event_answered_over_http(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    with serving(app, model_env) as url, httpx.Client(base_url=url, timeout=TIMEOUT) as client, \
            httpx.Client(base_url=url, timeout=TIMEOUT) as other:
        session = _session(client)
        fake[1].steps = list(BOOK)
        inputs = f"/.eve/v1/sessions/{session}/inputs"
        seen: list[str] = []
        with client.stream("POST", f"/.eve/v1/sessions/{session}/messages",
                           json={"text": "book Rome"},
                           headers={"Accept": "text/event-stream"}) as stream:
            for kind, data in _stream_events(stream):
                seen.append(kind)
                if kind == "input.required":
                    assert data["message"] == "Booking Rome: the details?"
                    assert data["tool"] == "book"
                    assert data["schema"]["required"] == ["name"]
                    assert data["schema"]["properties"]["meal"]["enum"] == ["veg", "fish"]
                    unknown = other.post(f"{inputs}/nope", json={"name": "Ada"})
                    assert unknown.status_code == 404
                    assert unknown.json()["error"]["code"] == "session/input-unknown"
                    bad = other.post(f"{inputs}/{data['id']}", json={"seats": "many"})
                    assert bad.status_code == 422, bad.text
                    error = bad.json()["error"]
                    assert error["code"] == "session/answer-invalid"
                    assert {e["field"] for e in error["errors"]} == {"name", "seats"}
                    busy = other.post(f"/.eve/v1/sessions/{session}/messages",
                                      json={"text": "meanwhile"})
                    assert busy.status_code == 409  # the waiting turn holds the claim
                    assert busy.json()["error"]["code"] == "session/busy"
                    good = other.post(f"{inputs}/{data['id']}",
                                      json={"name": "Ada", "seats": 3, "meal": "fish"})
                    assert good.status_code == 200, good.text
                    assert good.json() == {"id": data["id"], "status": "answered"}
                    again = other.post(f"{inputs}/{data['id']}", json={"name": "Bo"})
                    assert again.status_code == 409
                    assert again.json()["error"]["code"] == "session/input-closed"
                    assert "already answered" in again.json()["error"]["message"]
                if kind == "reply":
                    (call,) = data["toolCalls"]
                    assert call["result"] == {"booked": True, "name": "Ada", "seats": 3,
                                              "meal": "fish"}
        assert seen[-1] == "reply" and "input.required" in seen


def test_a_question_nobody_answers_times_out_and_fails_the_call(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    with serving(app, model_env, EVE_INPUT_TIMEOUT="0.5") as url, \
            httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        session = _session(client)
        fake[1].steps = list(BOOK)
        streamed = client.post(f"/.eve/v1/sessions/{session}/messages",
                               json={"text": "book Rome"},
                               headers={"Accept": "text/event-stream"})
        events = dict(_stream_events(streamed))
        asked, ended = events["input.required"], events["tool.end"]
        assert ended["status"] == "failed"
        assert "within EVE_INPUT_TIMEOUT=0.5 s" in ended["reason"]
        assert events["reply"]["toolCalls"][0]["status"] == "failed"
        late = client.post(f"/.eve/v1/sessions/{session}/inputs/{asked['id']}",
                           json={"name": "Ada"})
        assert late.status_code == 409
        assert "timed out" in late.json()["error"]["message"]


def test_a_json_message_that_asks_is_409_with_the_question_then_retried(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    with serving(app, model_env) as url, httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        session = _session(client)
        messages = f"/.eve/v1/sessions/{session}/messages"
        fake[1].steps = list(BOOK)
        stopped = client.post(messages, json={"text": "book Rome"})
        assert stopped.status_code == 409, stopped.text
        error = stopped.json()["error"]
        assert error["code"] == "session/input-required"
        question = error["input"]
        assert question["message"] == "Booking Rome: the details?"
        assert question["schema"]["properties"]["name"]["type"] == "string"
        answered = client.post(f"/.eve/v1/sessions/{session}/inputs/{question['id']}",
                               json={"name": "Ada", "seats": 4})
        assert answered.status_code == 200, answered.text

        fake[1].steps = list(BOOK)
        retried = client.post(messages, json={"text": "book Rome"})
        assert retried.status_code == 200, retried.text
        (call,) = retried.json()["toolCalls"]
        assert call["result"] == {"booked": True, "name": "Ada", "seats": 4, "meal": "veg"}

        fake[1].steps = list(BOOK)
        stopped = client.post(messages, json={"text": "book Rome again"})
        declined = client.post(f"/.eve/v1/sessions/{session}/inputs/"
                               f"{stopped.json()['error']['input']['id']}",
                               json={"action": "decline"})
        assert declined.json()["status"] == "declined"
        fake[1].steps = list(BOOK)
        retried = client.post(messages, json={"text": "book Rome again"})
        assert retried.json()["toolCalls"][0]["result"] == {"booked": False}


def test_the_answer_may_reach_another_server_on_the_same_store(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    """Two `eve serve` processes on one store (as workers or replicas are): the question
    is asked on one, answered on the other, and the turn on the first goes on."""
    with serving(app, model_env) as first, serving(app, model_env) as second, \
            httpx.Client(base_url=first, timeout=TIMEOUT) as asking, \
            httpx.Client(base_url=second, timeout=TIMEOUT) as answering:
        session = _session(asking)
        fake[1].steps = list(BOOK)
        with asking.stream("POST", f"/.eve/v1/sessions/{session}/messages",
                           json={"text": "book Rome"},
                           headers={"Accept": "text/event-stream"}) as stream:
            for kind, data in _stream_events(stream):
                if kind == "input.required":
                    where = f"/.eve/v1/sessions/{session}/inputs/{data['id']}"
                    assert answering.post(where, json={"meal": "fish"}).status_code == 422
                    taken = answering.post(where, json={"name": "Di", "meal": "fish"})
                    assert taken.status_code == 200, taken.text
                if kind == "reply":
                    assert data["toolCalls"][0]["result"] == {
                        "booked": True, "name": "Di", "seats": 2, "meal": "fish"}
                    break
            else:
                raise AssertionError("the stream ended without a reply")


def test_a_question_whose_client_hung_up_takes_no_answer(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    with serving(app, model_env) as url, httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        session = _session(client)
        fake[1].steps = list(BOOK)
        with client.stream("POST", f"/.eve/v1/sessions/{session}/messages",
                           json={"text": "book Rome"},
                           headers={"Accept": "text/event-stream"}) as stream:
            asked = next(data for kind, data in _stream_events(stream)
                         if kind == "input.required")
        # hung up: the message is cancelled, its question closed before its claim is freed
        deadline = time.monotonic() + TIMEOUT
        fake[1].steps = []
        while (sent := client.post(f"/.eve/v1/sessions/{session}/messages",
                                   json={"text": "hello"})).status_code == 409:
            assert time.monotonic() < deadline, sent.text
            time.sleep(0.05)
        assert sent.status_code == 200, sent.text
        late = client.post(f"/.eve/v1/sessions/{session}/inputs/{asked['id']}",
                           json={"name": "Ada"})
        assert late.status_code == 409
        assert "abandoned" in late.json()["error"]["message"]


WIPE = [{"tools": [{"name": "wipe", "arguments": {"what": "disk"}}]}, {"text": "done"}]


def test_an_approval_is_a_yes_no_question_over_http(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script]) -> None:
    """`always()` asks the HTTP client: yes runs the tool (SSE), no refuses it (JSON mode:
    409 with the question, answered, then the message sent again)."""
    with serving(app, model_env) as url, httpx.Client(base_url=url, timeout=TIMEOUT) as client, \
            httpx.Client(base_url=url, timeout=TIMEOUT) as other:
        session = _session(client)
        fake[1].steps = list(WIPE)
        with client.stream("POST", f"/.eve/v1/sessions/{session}/messages",
                           json={"text": "wipe it"},
                           headers={"Accept": "text/event-stream"}) as stream:
            for kind, data in _stream_events(stream):
                if kind == "input.required":
                    assert data["tool"] == "wipe"
                    assert data["message"].startswith("approve `wipe`")
                    assert list(data["schema"]["properties"]) == ["approve"]
                    yes = other.post(f"/.eve/v1/sessions/{session}/inputs/{data['id']}",
                                     json={"approve": True})
                    assert yes.status_code == 200, yes.text
                if kind == "reply":
                    (call,) = data["toolCalls"]
                    assert (call["status"], call["result"]) == ("ok", {"wiped": "disk"})
        fake[1].steps = list(WIPE)
        messages = f"/.eve/v1/sessions/{session}/messages"
        stopped = client.post(messages, json={"text": "wipe again"})
        assert stopped.status_code == 409, stopped.text
        question = stopped.json()["error"]
        assert question["code"] == "session/input-required"
        answered = client.post(f"/.eve/v1/sessions/{session}/inputs/{question['input']['id']}",
                               json={"approve": False})
        assert answered.status_code == 200, answered.text
        fake[1].steps = list(WIPE)
        again = client.post(messages, json={"text": "wipe again"})
        assert again.status_code == 200, again.text
        (call,) = again.json()["toolCalls"]
        assert call["status"] == "refused" and "not approved" in call["reason"]
