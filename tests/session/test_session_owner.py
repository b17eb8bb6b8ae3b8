"""The store owns a session (issue 26, items 1-3): real `eve serve` processes on one store,
their model a stub on 127.0.0.1 that echoes the user messages it is sent.

Sequential messages, each on a new connection, reach the model with every earlier
message however the processes take turns; concurrent messages to one session (JSON or
server-sent events) run exactly one turn, the others answer 409, and the store holds
each exchange once. In-process: the opened sessions a server keeps are bounded."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from eve_build.session.store import open_session_store
from tests.session.engine.fake_openai import Script, run_fake
from tests.session.servers import Server, find_workers, start_cli, stopping

SESSIONS = "/.eve/v1/sessions"
DEADLINE = 60.0


@pytest.fixture
def echo() -> Iterator[tuple[str, Script]]:
    with run_fake() as (url, script):
        script.default = {"echo": True}
        yield url, script


def _model_env(url: str) -> dict[str, str]:
    return {"EVE_MODEL": "openai-chat:echo", "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "test",
            "EVE_MODEL_RETRIES": "0", "EVE_MODEL_TIMEOUT": "120"}


def _send(url: str, session: str, text: str, *, stream: bool = False) -> httpx.Response:
    """One message on a connection of its own."""
    headers = {"Accept": "text/event-stream"} if stream else {}
    with httpx.Client(base_url=url, timeout=DEADLINE * 2) as client:
        return client.post(f"{SESSIONS}/{session}/messages", json={"text": text},
                           headers=headers)


def _reply(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("text/event-stream"):
        assert "event: reply" in response.text, response.text
        data = response.text.split("event: reply\ndata: ", 1)[1].split("\n", 1)[0]
        import json

        return str(json.loads(data)["reply"]).strip()
    return str(response.json()["reply"]).strip()


def _sequential(urls: list[str], session: str, count: int, before: list[str]) -> list[str]:
    """`count` messages one after the other, the i-th to urls[i % len(urls)]; each reply
    must be every message so far (the model echoes the user messages it was sent)."""
    sent: list[str] = list(before)
    for index in range(count):
        text = f"m{index + 1}"
        sent.append(text)
        reply = _reply(_send(urls[index % len(urls)], session, text, stream=index % 3 == 2))
        assert reply == "|".join(sent), f"message {index + 1} saw only {reply!r}"
    return sent[len(before):]


def _concurrent(urls: list[str], session: str, script: Script, count: int, prefix: str, *,
                stream: bool) -> str:
    """`count` simultaneous messages: the first turn that reaches the model is held until
    every other request has answered; exactly one answers 200. Its text."""
    script.gate.clear()
    script.steps = [{"gate": True}]
    answers: list[httpx.Response | None] = [None] * count

    def run(index: int) -> None:
        answers[index] = _send(urls[index % len(urls)], session, f"{prefix}{index}",
                               stream=stream)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + DEADLINE
    while sum(a is not None for a in answers) < count - 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    script.gate.set()  # a second turn that ran anyway answered already: counted below
    for thread in threads:
        thread.join(timeout=DEADLINE * 2)
    done = [a for a in answers if a is not None]
    assert len(done) == count
    statuses = sorted(a.status_code for a in done)
    assert statuses == [200] + [409] * (count - 1), [a.text for a in done]
    for answer in done:
        if answer.status_code == 409:
            assert answer.json()["error"]["code"] == "session/busy"
    winner = next(a for a in done if a.status_code == 200)
    return _reply(winner).rsplit("|", 1)[-1]


def _stored_user_texts(store_url: str, tmp_path: Path, session: str) -> tuple[int, list[str]]:
    store = open_session_store(tmp_path, url=store_url)
    try:
        record = store.read_session(session)
    finally:
        store.close()
    assert record is not None
    texts = [part["content"] for message in record.messages for part in message["parts"]
             if part.get("part_kind") == "user-prompt"]
    return record.row.turns, texts


def _exercise(servers: list[Server], script: Script, store_url: str, tmp_path: Path) -> None:
    urls = [s.url for s in servers]
    session = httpx.post(f"{urls[0]}{SESSIONS}", timeout=DEADLINE).json()["id"]
    sent = [_concurrent(urls, session, script, 6, "c", stream=False),
            _concurrent(urls, session, script, 4, "s", stream=True)]
    sent += _sequential(urls, session, 8, sent)
    last = _reply(_send(urls[-1], session, "last"))  # the session is free again
    sent.append("last")
    assert last == "|".join(sent)
    turns, texts = _stored_user_texts(store_url, tmp_path, session)
    assert (turns, texts) == (len(sent), sent)  # each exchange once, in order


def test_two_workers_on_one_sqlite_store_share_each_session(
        counter_root: Path, tmp_path: Path, echo: tuple[str, Script]) -> None:
    store = str(tmp_path / "owner.sqlite3")
    server = start_cli(counter_root, store, "--workers", "2", "--no-schedules",
                       env=_model_env(echo[0]))
    with stopping(server):
        deadline = time.monotonic() + DEADLINE
        while len(find_workers(server.process.pid)) < 2:
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.1)
        _exercise([server], echo[1], f"sqlite://{store}", tmp_path)
        assert server.stop() == 0


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'replicas.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


def test_two_replicas_on_one_store_share_each_session(
        counter_root: Path, tmp_path: Path, store_url: str, echo: tuple[str, Script]) -> None:
    """Two `eve serve` processes: messages alternate between them explicitly."""
    first = start_cli(counter_root, store_url, "--no-schedules", env=_model_env(echo[0]))
    with stopping(first):
        second = start_cli(counter_root, store_url, "--no-schedules", env=_model_env(echo[0]))
        with stopping(second):
            _exercise([first, second], echo[1], store_url, tmp_path)
            assert second.stop() == 0
        assert first.stop() == 0


def test_concurrent_streamed_messages_run_one_turn(counter_root: Path, tmp_path: Path,
                                                   echo: tuple[str, Script]) -> None:
    """One process: the claim is taken before the streamed response starts."""
    store = f"sqlite://{tmp_path / 'sse.sqlite3'}"
    server = start_cli(counter_root, store, "--no-schedules", env=_model_env(echo[0]))
    with stopping(server):
        session = httpx.post(f"{server.url}{SESSIONS}", timeout=DEADLINE).json()["id"]
        won = _concurrent([server.url], session, echo[1], 4, "s", stream=True)
        assert server.stop() == 0
    assert _stored_user_texts(store, tmp_path, session) == (1, [won])


def test_opened_sessions_are_bounded_and_reopened_from_the_store(tmp_path: Path,
                                                                counter_root: Path) -> None:
    import asyncio

    from eve_build.serve.app import build_app
    from eve_build.serve.sessions import OPEN_SESSIONS

    store = open_session_store(tmp_path, url=f"sqlite://{tmp_path / 'bounded.sqlite3'}")
    app = build_app(counter_root, environ={"EVE_MODEL": "test"}, store=store,
                    schedules=False)
    routes: Any = app.state.sessions

    async def drive() -> list[str]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            ids = []
            for _ in range(300):  # created, never used: nothing kept
                created = await c.post(SESSIONS)
                assert created.status_code == 201, created.text
                ids.append(created.json()["id"])
            assert len(routes.sessions) <= OPEN_SESSIONS
            for session in ids[:OPEN_SESSIONS + 8]:  # used: the least recent are dropped
                answer = await c.post(f"{SESSIONS}/{session}/messages", json={"text": "hi"})
                assert answer.status_code == 200, answer.text
                assert len(routes.sessions) <= OPEN_SESSIONS
            assert ids[0] not in routes.sessions
            again = await c.post(f"{SESSIONS}/{ids[0]}/messages", json={"text": "again"})
            assert again.status_code == 200, again.text  # reopened from the store
            assert ids[0] in routes.sessions and len(routes.sessions) == OPEN_SESSIONS
            return ids

    try:
        ids = asyncio.run(drive())
    finally:  # no lifespan ran (ASGITransport): close what it would have closed
        app.state.host.close()
        store.close()
    store_url = f"sqlite://{tmp_path / 'bounded.sqlite3'}"
    assert _stored_user_texts(store_url, tmp_path, ids[0]) == (2, ["hi", "again"])
