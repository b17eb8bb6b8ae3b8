"""A session's questions in real SQLite and PostgreSQL stores: an open question takes one
answer (a second is refused), the asking turn takes it once, an unanswered one is closed
when it times out, and a retried message finds the answer by the question's fingerprint;
an answer posted for any worker is checked against the stored schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from eve_build.session.asking import answer_input
from eve_build.session.inputs import InputRecord
from eve_build.session.storage import Storage
from eve_build.session.store import open_session_store

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"},
                                           "seats": {"type": "integer", "default": 2}},
          "required": ["name"]}


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'inputs.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


def test_an_open_question_takes_one_answer_once(store_url: str, tmp_path: Path) -> None:
    store = open_session_store(tmp_path, url=store_url)
    try:
        sid = store.create_session(model="test").id
        inputs = store.session_inputs()
        inputs.open(InputRecord(sid, "q1", "fp", "who?", SCHEMA, "book"))
        assert inputs.take(sid, "q1") is None  # open: nothing to take yet
        before = inputs.answer(sid, "q1", "answered", {"name": "Ada", "seats": 2})
        assert before is not None and before.status == "open"
        second = inputs.answer(sid, "q1", "answered", {"name": "Bo", "seats": 2})
        assert second is not None and second.status == "answered"  # refused: not open
        taken = inputs.take(sid, "q1")
        assert taken is not None and taken.answer == {"name": "Ada", "seats": 2}
        record = inputs.read(sid, "q1")
        assert record is not None and record.status == "used"
        assert inputs.take_ready(sid, "fp") is None  # used: never taken twice

        inputs.open(InputRecord(sid, "q2", "fp2", "who?", SCHEMA, "book"))
        expired = inputs.take(sid, "q2", expire=True)
        assert expired is not None and expired.status == "open"
        record = inputs.read(sid, "q2")
        assert record is not None and record.status == "timed-out"
        late = inputs.answer(sid, "q2", "answered", {"name": "Cy"})
        assert late is not None and late.status == "timed-out"

        inputs.open(InputRecord(sid, "q3", "fp3", "who?", SCHEMA, "book"))
        inputs.answer(sid, "q3", "declined", None)
        ready = inputs.take_ready(sid, "fp3")
        assert ready is not None and ready.status == "declined"
        assert inputs.read(sid, "unknown") is None
    finally:
        store.close()


def test_an_answer_over_http_is_checked_against_the_stored_schema(store_url: str,
                                                                  tmp_path: Path) -> None:
    storage = Storage(open_session_store(tmp_path, url=store_url))
    try:
        sid = storage.create("test")
        storage.inputs().open(InputRecord(sid, "q1", "fp", "who?", SCHEMA, "book"))
        assert answer_input(storage, sid, "nope", {"name": "Ada"})[0] == 404
        status, body = answer_input(storage, sid, "q1", {"seats": "many", "extra": 1})
        assert status == 422 and body["code"] == "session/answer-invalid"
        assert {e["field"] for e in body["errors"]} == {"name", "seats", "extra"}
        assert answer_input(storage, sid, "q1", {"action": "maybe"})[0] == 422
        assert answer_input(storage, sid, "q1", {"name": "Ada", "seats": "3"}) == (
            200, {"id": "q1", "status": "answered"})
        record = storage.inputs().read(sid, "q1")
        assert record is not None and record.answer == {"name": "Ada", "seats": 3}
        status, body = answer_input(storage, sid, "q1", {"name": "Bo"})
        assert status == 409 and body["code"] == "session/input-closed"
    finally:
        storage.close()
