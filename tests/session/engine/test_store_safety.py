"""The store file under attack, with real processes: a FIFO where the store should be is
refused without blocking, and a store deleted while `eve serve` or `eve chat` uses it
fails the turn instead of committing into a file that is no longer the store."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.session.engine.conftest import eve as run_eve
from tests.session.engine.fake_openai import Script
from tests.session.engine.served import serving_agent

TIMEOUT = 60.0  # the guard: a command that blocks on the FIFO fails the test here
MODEL = "openai-chat:scripted"


def _store(app: Path) -> Path:
    return app / ".eve" / "sessions.sqlite3"


def _assert_refused(done: subprocess.CompletedProcess[str], fifo: Path) -> None:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    assert "session/store-special-file" in done.stderr, done.stderr
    assert "FIFO" in done.stderr and str(fifo) in done.stderr


@pytest.mark.parametrize("where", ["default", "EVE_SESSION_STORE"])
def test_a_fifo_as_the_store_is_refused_by_list_run_and_serve(
        app: Path, model_env: dict[str, str], where: str) -> None:
    if where == "default":
        fifo, env = _store(app), model_env
        fifo.parent.mkdir(exist_ok=True)
    else:
        fifo = app / "elsewhere.sqlite3"
        env = {**model_env, "EVE_SESSION_STORE": str(fifo)}
    os.mkfifo(fifo)

    listed = subprocess.run([sys.executable, "-m", "eve_build", "sessions", "list", "--path",
                             str(app)], env=env, capture_output=True, text=True,
                            timeout=TIMEOUT, check=False)
    _assert_refused(listed, fifo)
    _assert_refused(run_eve(app, env, "run", "hi", "--model", MODEL, timeout=TIMEOUT), fifo)
    served = subprocess.run([sys.executable, "-m", "eve_build", "serve", "--path", str(app),
                             "--port", "0"], env=env, capture_output=True, text=True,
                            timeout=TIMEOUT, check=False)
    _assert_refused(served, fifo)
    assert fifo.is_fifo()  # left as it was


@pytest.fixture
def server(app: Path, model_env: dict[str, str]) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    with serving_agent(app, {**model_env, "EVE_MODEL": MODEL}) as (url, served):
        yield url, served.process


def _turns_in(path: Path, session: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT turns FROM eve_sessions WHERE id = ?",
                                (session,)).fetchone()[0])
    finally:
        conn.close()


def test_a_store_deleted_under_eve_serve_fails_the_turn_and_commits_nothing(
        app: Path, server: tuple[str, subprocess.Popen[str]], fake: tuple[str, Script],
        tmp_path: Path) -> None:
    url, process = server
    store = _store(app)
    with httpx.Client(base_url=url, timeout=TIMEOUT) as client:
        session = client.post("/.eve/v1/sessions").json()["id"]
        fake[1].steps = [{"text": "one"}]
        first = client.post(f"/.eve/v1/sessions/{session}/messages", json={"text": "1"})
        assert first.status_code == 200, first.text

        # keep the file the server opened reachable (a hard link to the same inode), then
        # delete the store as `rm .eve/sessions.sqlite3*` does
        kept = tmp_path / "kept.sqlite3"
        for suffix in ("", "-wal"):
            os.link(f"{store}{suffix}", f"{kept}{suffix}")
        for found in store.parent.glob("sessions.sqlite3*"):
            found.unlink()

        fake[1].steps = [{"text": "two"}]
        second = client.post(f"/.eve/v1/sessions/{session}/messages", json={"text": "2"})
        created = client.post("/.eve/v1/sessions")
        ready = client.get("/.eve/ready")
    assert second.status_code == 503, second.text
    assert second.json()["error"]["code"] == "session/store-replaced"
    assert "deleted" in second.json()["error"]["message"]
    assert "restart" in second.json()["error"]["hint"]
    assert second.headers["Retry-After"].isdigit()
    assert (created.status_code, created.json()["error"]["code"]) == (
        503, "session/store-replaced")
    assert ready.status_code == 503
    assert not store.exists()  # no new, empty store was made in its place

    process.terminate()
    process.communicate(timeout=TIMEOUT)
    assert _turns_in(kept, session) == 1  # the failed turn went nowhere


def test_a_store_replaced_under_eve_chat_fails_the_turn(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script],
        tmp_path: Path) -> None:
    store = _store(app)
    process = subprocess.Popen(
        [sys.executable, "-m", "eve_build", "chat", "--path", str(app), "--model", MODEL],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=model_env)
    assert process.stdin is not None and process.stdout is not None
    try:
        fake[1].steps = [{"text": "first reply"}]
        process.stdin.write("one\n")
        process.stdin.flush()
        answered = ""
        while "first reply" not in answered:  # the first turn is committed once answered
            line = process.stdout.readline()
            assert line, "eve chat ended before answering"
            answered += line

        kept = tmp_path / "kept.sqlite3"
        for suffix in ("", "-wal"):
            os.link(f"{store}{suffix}", f"{kept}{suffix}")
        for found in store.parent.glob("sessions.sqlite3*"):
            found.unlink()
        store.write_bytes(b"")  # another, empty file where the store was

        fake[1].steps = [{"text": "second reply"}]
        stdout, stderr = process.communicate("two\n", timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=TIMEOUT)
    assert process.returncode == 1, (stdout, stderr)
    assert "Traceback" not in stderr, stderr
    assert "session/store-replaced" in stderr and "replaced by another file" in stderr
    assert store.read_bytes() == b""  # the new file is not written to
    session = next(iter(sqlite3.connect(kept).execute("SELECT id FROM eve_sessions")))[0]
    assert _turns_in(kept, session) == 1
