"""Questions a session's turn asks (`ctx.ask`) and their answers, kept in the store.

    inputs = store.session_inputs()
    inputs.open(InputRecord(session_id, input_id, fingerprint, message, schema, tool))
    inputs.answer(session_id, input_id, "answered", {"name": "Ada"})   # any process
    record = inputs.read(session_id, input_id)                         # the asking one

The store is the only owner of a session, and so of its open questions: the turn that
asks writes the question, the answer (which may reach another `eve serve` worker or
replica) is written on it with one conditional update (only an `open` question takes
one), and the asking turn reads it back. Statuses: `open`, then `answered`, `declined`
or `cancelled` (the person's), `timed-out` (nobody answered within EVE_INPUT_TIMEOUT) or
`abandoned` (the message that asked was cancelled: its client hung up); `used` once the
turn took the answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eve_build.session.store import now_text

if TYPE_CHECKING:
    from eve_build.session.sql import Database, Executor

ANSWERED = ("answered", "declined", "cancelled")
"""The statuses a person's answer gives a question."""
COLUMNS = "session_id, id, fingerprint, message, schema, tool, status, answer"


@dataclass(frozen=True)
class InputRecord:
    session_id: str
    id: str
    fingerprint: str  # the tool, message and schema: a retried turn's same question
    message: str
    schema: dict[str, Any]
    tool: str | None = None
    status: str = "open"
    answer: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The question as a client sees it (the SSE event, the JSON-mode 409)."""
        return {"id": self.id, "message": self.message, "schema": self.schema,
                "tool": self.tool}


def _record(row: tuple[Any, ...]) -> InputRecord:
    return InputRecord(str(row[0]), str(row[1]), str(row[2]), str(row[3]), json.loads(row[4]),
                       None if row[5] is None else str(row[5]), str(row[6]),
                       None if row[7] is None else json.loads(row[7]))


class SqlSessionInputs:
    """The open and answered questions of a store's sessions (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def open(self, record: InputRecord) -> None:
        with self.db.transaction(write=True) as ex:
            ex.execute(f"INSERT INTO eve_session_inputs ({COLUMNS}, created_at) VALUES "
                       "(?, ?, ?, ?, ?, ?, 'open', NULL, ?)",
                       (record.session_id, record.id, record.fingerprint, record.message,
                        json.dumps(record.schema), record.tool, now_text()))

    def read(self, session_id: str, input_id: str) -> InputRecord | None:
        with self.db.transaction(write=False) as ex:
            rows = ex.execute(f"SELECT {COLUMNS} FROM eve_session_inputs WHERE "
                              "session_id = ? AND id = ?", (session_id, input_id))
        return _record(rows[0]) if rows else None

    def _hold(self, ex: Executor, session_id: str, input_id: str) -> InputRecord | None:
        """The question, its row locked for the rest of the transaction `ex`."""
        rows = ex.execute(f"SELECT {COLUMNS} FROM eve_session_inputs WHERE session_id = ? "
                          f"AND id = ?{self.db.for_update}", (session_id, input_id))
        return _record(rows[0]) if rows else None

    def answer(self, session_id: str, input_id: str, status: str,
               answer: dict[str, Any] | None) -> InputRecord | None:
        """Give the open question `status` (and the answer's fields); the question as it
        was before (its status says whether this answer was taken: `open`), None when
        there is no such question."""
        with self.db.transaction(write=True) as ex:
            before = self._hold(ex, session_id, input_id)
            if before is None:
                return None
            if before.status == "open":
                ex.execute("UPDATE eve_session_inputs SET status = ?, answer = ? WHERE "
                           "session_id = ? AND id = ?",
                           (status, None if answer is None else json.dumps(answer),
                            session_id, input_id))
        return before

    def take(self, session_id: str, input_id: str, *, expire: bool = False,
             closed_as: str = "timed-out") -> InputRecord | None:
        """The question once answered (then `used`, so it is taken once); with `expire`,
        an open one is closed as `closed_as` (`timed-out`, or `abandoned` when its message
        was cancelled). None while it is open."""
        with self.db.transaction(write=True) as ex:
            record = self._hold(ex, session_id, input_id)
            if record is None:
                return None
            if record.status == "open" and not expire:
                return None
            after = "used" if record.status in ANSWERED else closed_as
            ex.execute("UPDATE eve_session_inputs SET status = ? WHERE session_id = ? AND "
                       "id = ?", (after, session_id, input_id))
        return record

    def take_ready(self, session_id: str, fingerprint: str) -> InputRecord | None:
        """An answered question of the session with this fingerprint not yet used (a turn
        retried after a JSON-mode 409), then `used`; None when there is none."""
        with self.db.transaction(write=True) as ex:
            rows = ex.execute(f"SELECT {COLUMNS} FROM eve_session_inputs WHERE session_id = ? "
                              "AND fingerprint = ? AND status IN (?, ?, ?) ORDER BY "
                              f"created_at{self.db.for_update}",
                              (session_id, fingerprint, *ANSWERED))
            if not rows:
                return None
            record = _record(rows[0])
            ex.execute("UPDATE eve_session_inputs SET status = 'used' WHERE session_id = ? "
                       "AND id = ?", (session_id, record.id))
        return record
