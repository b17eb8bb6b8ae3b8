"""The SQLite store: a turn is committed whole, in order, and read back by a new process."""

from __future__ import annotations

from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.session.store import STORE_ENV, TurnRecord
from eve_build.session.stores import open_session_store
from tests.session.turns import make_turn


def test_turns_append_messages_in_order_and_replace_the_snapshot(tmp_path: Path) -> None:
    store = open_session_store(tmp_path)
    row = store.create_session(model="test")
    assert (row.turns, row.usage["requests"]) == (0, 0)
    store.commit_turn(row.id, make_turn(1, approvals=("spin",)))
    after = store.commit_turn(row.id, make_turn(2))
    store.close()

    assert (tmp_path / ".eve" / "sessions.sqlite3").is_file()
    reopened = open_session_store(tmp_path)
    record = reopened.read_session(row.id)
    assert record is not None
    assert record.row == after
    assert (record.row.turns, record.row.model) == (2, "test")
    assert record.row.usage == {"requests": 2, "input_tokens": 20, "output_tokens": 10,
                                "tool_calls": 2}
    assert [m["parts"][0].get("content") for m in record.messages] == [
        "ask 1", None, "ask 2", None]
    assert record.messages[3]["parts"][1]["content"] == "answer 2"
    assert record.snapshot["state"] == {"spins": 2}  # replaced, not merged
    assert record.approvals == []  # replaced by turn 2's
    assert [c["text"] for c in record.custom] == ["note 1", "note 2"]  # appended
    assert [r.id for r in reopened.list_sessions()] == [row.id]
    reopened.close()


def test_a_new_session_reads_back_empty(tmp_path: Path) -> None:
    store = open_session_store(tmp_path)
    row = store.create_session(session_id="mine-1")
    record = store.read_session("mine-1")
    assert record is not None
    assert (record.row, record.messages, record.snapshot, record.approvals, record.custom) == (
        row, [], {}, [], [])
    assert store.read_session("other") is None
    store.close()


def test_sessions_are_listed_most_recent_first_and_deleted_whole(tmp_path: Path) -> None:
    store = open_session_store(tmp_path)
    first, second = store.create_session(), store.create_session()
    store.commit_turn(first.id, make_turn(1))
    assert [r.id for r in store.list_sessions()] == [first.id, second.id]
    assert store.delete_session(first.id) is True
    assert store.delete_session(first.id) is False
    assert store.read_session(first.id) is None
    assert [r.id for r in store.list_sessions()] == [second.id]
    store.close()


def test_committing_to_an_unknown_session_changes_nothing(tmp_path: Path) -> None:
    store = open_session_store(tmp_path)
    with pytest.raises(DiagnosticsError) as caught:
        store.commit_turn("ghost", make_turn(1))
    assert caught.value.diagnostics[0].code == "session/id-unknown"
    assert "eve sessions list" in caught.value.diagnostics[0].hint
    assert store.list_sessions() == []
    store.close()


def test_a_taken_or_invalid_id_is_refused(tmp_path: Path) -> None:
    store = open_session_store(tmp_path)
    store.create_session(session_id="abc")
    store.commit_turn("abc", make_turn(1))
    for bad, code in (("abc", "session/id-taken"), ("../x", "session/id-invalid"),
                      ("", "session/id-invalid")):
        with pytest.raises(DiagnosticsError) as caught:
            store.create_session(session_id=bad)
        assert caught.value.diagnostics[0].code == code
    record = store.read_session("abc")
    assert record is not None and record.row.turns == 1  # the taken one is untouched
    store.close()


def test_a_value_that_is_not_json_fails_the_turn_and_keeps_the_session(tmp_path: Path) -> None:
    store = open_session_store(tmp_path)
    row = store.create_session()
    store.commit_turn(row.id, make_turn(1))
    with pytest.raises(Exception, match="cannot be stored as JSON"):
        store.commit_turn(row.id, TurnRecord(messages=[{"x": 1}], snapshot={"s": {1, 2}}))
    record = store.read_session(row.id)
    assert record is not None
    assert (record.row.turns, len(record.messages)) == (1, 2)
    store.close()


def test_the_store_location_comes_from_the_url_or_the_environment(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.sqlite3"
    store = open_session_store(tmp_path / "app", url=f"sqlite://{elsewhere}")
    store.create_session(session_id="s1")
    store.close()
    by_env = open_session_store(tmp_path / "app", environ={STORE_ENV: str(elsewhere)})
    assert [r.id for r in by_env.list_sessions()] == ["s1"]
    assert by_env.where == str(elsewhere)
    by_env.close()
    relative = open_session_store(tmp_path / "app", environ={STORE_ENV: "data/s.sqlite3"})
    assert relative.where == str(tmp_path / "app" / "data" / "s.sqlite3")
    relative.close()

    with pytest.raises(DiagnosticsError) as caught:
        open_session_store(tmp_path, url="mysql://db/x")
    found = caught.value.diagnostics[0]
    assert (found.code, found.file) == ("session/store-url-invalid", "EVE_SESSION_STORE")
    assert "postgresql://" in found.hint
