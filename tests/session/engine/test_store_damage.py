"""A store holding one bad record is a diagnostic naming the session and the turn, and
the other sessions stay readable (issue 26, item 13); a malformed store URL too."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.session.engine.conftest import eve
from tests.session.engine.fake_openai import Script

MODEL = "openai-chat:scripted"
BAD = {"foreign": json.dumps({"kind": "nonsense", "parts": 7}),
       "deep": "[" * 100_000 + "]" * 100_000,
       "garbage": "{not json"}


def _sessions(app: Path, model_env: dict[str, str], fake: Script) -> dict[str, str]:
    """One good session made by `eve run`, copied into one damaged session per BAD."""
    fake.steps = [{"text": "hello"}]
    done = eve(app, model_env, "run", "hi", "--model", MODEL, "--json", timeout=180)
    good = str(json.loads(done.stdout)["session"])
    with contextlib.closing(sqlite3.connect(app / ".eve/sessions.sqlite3")) as db, db:
        for name, body in BAD.items():
            db.execute("INSERT INTO eve_sessions SELECT ?, created_at, updated_at, model, "
                       "turns, usage, snapshot, approvals FROM eve_sessions WHERE id = ?",
                       (name, good))
            db.execute("INSERT INTO eve_session_messages SELECT ?, seq, turn, body FROM "
                       "eve_session_messages WHERE session_id = ?", (name, good))
            db.execute("INSERT INTO eve_session_custom SELECT ?, seq, body FROM "
                       "eve_session_custom WHERE session_id = ?", (name, good))
            db.execute("UPDATE eve_session_messages SET body = ? WHERE session_id = ? AND "
                       "seq = (SELECT max(seq) FROM eve_session_messages WHERE "
                       "session_id = ?)", (body, name, name))
    return {"good": good, **{name: name for name in BAD}}


def _sessions_cli(app: Path, env: dict[str, str], *args: str
                  ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eve_build", "sessions", *args, "--path",
                           str(app)], env=env, capture_output=True, text=True, timeout=180,
                          check=False)


def _names_the_turn(done: subprocess.CompletedProcess[str], session: str) -> None:
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "internal/unexpected" not in done.stderr, \
        done.stderr
    assert "error session/store-invalid:" in done.stderr, done.stderr
    assert f"the session `{session}` holds a message in turn 1" in done.stderr, done.stderr


@pytest.mark.parametrize("damage", sorted(BAD))
def test_a_damaged_message_names_its_session_and_turn(
        app: Path, model_env: dict[str, str], fake: tuple[str, Script], damage: str) -> None:
    ids = _sessions(app, model_env, fake[1])

    resumed = eve(app, model_env, "run", "again", "--session", ids[damage], "--model", MODEL,
                  timeout=180)
    _names_the_turn(resumed, ids[damage])
    if damage != "foreign":  # JSON that is a document, only not a pydantic-ai message
        _names_the_turn(_sessions_cli(app, model_env, "show", ids[damage]), ids[damage])

    listed = _sessions_cli(app, model_env, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    shown = _sessions_cli(app, model_env, "show", ids["good"])
    assert shown.returncode == 0 and "hello" in shown.stdout, shown.stderr
    fake[1].steps = [{"text": "fine"}]
    again = eve(app, model_env, "run", "more", "--session", ids["good"], "--model", MODEL,
                timeout=180)
    assert again.returncode == 0, again.stderr


def test_a_store_url_that_cannot_be_read_is_a_diagnostic(tmp_path: Path) -> None:
    env = {**os.environ, "EVE_SESSION_STORE": "postgresql://u:pw-SECRET@[::1"}
    done = subprocess.run([sys.executable, "-m", "eve_build", "sessions", "list", "--path",
                           str(tmp_path)], env=env, capture_output=True, text=True,
                          timeout=60, check=False)

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "internal/unexpected" not in done.stderr
    assert "error session/store-url-invalid:" in done.stderr, done.stderr
    assert "pw-SECRET" not in done.stderr
