"""`eve sessions list | show | delete`, as text and as JSON checked against its schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from eve_build.cli import app as cli
from eve_build.session.stores import open_session_store
from tests.json_schemas import validate
from tests.session.turns import make_turn


def run(*args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def _seeded(root: Path) -> str:
    store = open_session_store(root)
    row = store.create_session(model="test")
    store.commit_turn(row.id, make_turn(1, approvals=("spin",)))
    store.commit_turn(row.id, make_turn(2, approvals=("spin",)))
    store.create_session(session_id="empty-one")
    store.close()
    return row.id


def test_list_show_delete_as_json(tmp_path: Path) -> None:
    sid = _seeded(tmp_path)
    listed = json.loads(run("sessions", "list", "--json", "--path", str(tmp_path)).stdout)
    validate("sessions-list.json", listed)
    assert [s["id"] for s in listed["sessions"]] == ["empty-one", sid]
    assert listed["store"] == str(tmp_path / ".eve" / "sessions.sqlite3")

    shown = json.loads(run("sessions", "show", sid, "--json", "--path", str(tmp_path)).stdout)
    validate("sessions-show.json", shown)
    session = shown["session"]
    assert session["usage"] == {"requests": 2, "inputTokens": 20, "outputTokens": 10,
                                "toolCalls": 2}
    assert (session["turns"], session["model"], session["approvals"]) == (2, "test", ["spin"])
    assert len(session["messages"]) == 4 and session["state"] == {"spins": 2}
    assert [c["text"] for c in session["custom"]] == ["note 1", "note 2"]

    deleted = json.loads(run("sessions", "delete", sid, "--json", "--path",
                             str(tmp_path)).stdout)
    validate("sessions-delete.json", deleted)
    assert deleted["id"] == sid
    again = json.loads(run("sessions", "delete", sid, "--json", "--path", str(tmp_path),
                           code=1).stdout)
    validate("sessions-delete.json", again)
    assert again["diagnostics"]["items"][0]["code"] == "session/id-unknown"


def test_show_prints_usage_and_the_transcript(tmp_path: Path) -> None:
    sid = _seeded(tmp_path)
    out = run("sessions", "show", sid, "--path", str(tmp_path)).stdout
    assert "usage: 2 requests, 20 input tokens, 10 output tokens, 2 tool calls" in out
    assert "[user] ask 1" in out and "[assistant] answer 2" in out
    assert '[tool call] spin({"times": 2})' in out
    assert "[note] note 2" in out and "approved for the session: spin" in out
    listed = run("sessions", "list", "--path", str(tmp_path)).stdout
    assert f"{sid} " in listed and "turns: 2" in listed


def test_show_of_an_unknown_id_is_a_diagnostic(tmp_path: Path) -> None:
    _seeded(tmp_path)
    result = run("sessions", "show", "nope", "--path", str(tmp_path), code=1)
    assert "session/id-unknown" in result.stderr and "`nope`" in result.stderr
    assert "eve sessions list" in result.stderr
    failed = json.loads(run("sessions", "show", "nope", "--json", "--path", str(tmp_path),
                            code=1).stdout)
    validate("sessions-show.json", failed)
    assert failed["status"] == "failed"
    store = open_session_store(tmp_path)
    assert len(store.list_sessions()) == 2  # nothing lost
    store.close()


def test_an_empty_store_lists_nothing(tmp_path: Path) -> None:
    listed = json.loads(run("sessions", "list", "--json", "--path", str(tmp_path)).stdout)
    validate("sessions-list.json", listed)
    assert listed["sessions"] == []
