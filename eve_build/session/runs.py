"""Schedule runs in the store: who claimed each due time, and how the run ended.

A run is claimed by inserting its row, keyed (scope, schedule, due time), in one write
transaction: on PostgreSQL a second replica's insert waits for the first one's commit
and then conflicts; on SQLite the write lock (`BEGIN IMMEDIATE`, SQLite's file lock)
makes the claims of processes on one host take turns. Either way exactly one process
owns each due time, and it alone runs the schedule. The row then records the outcome;
only the newest KEEP_RUNS rows of a schedule are kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eve_build.session.store import now_text

if TYPE_CHECKING:
    from eve_build.session.sql import Database

KEEP_RUNS = 100
COLUMNS = "name, due_at, runner, status, started_at, finished_at, error"


@dataclass(frozen=True)
class ScheduleRunRecord:
    name: str
    due_at: str
    runner: str  # host:pid
    status: str  # running | ok | failed
    started_at: str
    finished_at: str | None
    error: str | None

    def to_json(self) -> dict[str, Any]:
        return {"dueAt": self.due_at, "runner": self.runner, "status": self.status,
                "startedAt": self.started_at, "finishedAt": self.finished_at,
                "error": self.error}


class SqlScheduleRuns:
    """The runs of one served agent's schedules (scope as for its state)."""

    def __init__(self, db: Database, scope: str) -> None:
        self.db, self.scope = db, scope

    def claim(self, name: str, due_at: str, runner: str) -> bool:
        """Record `runner` as running `name` for `due_at`; False when another has it."""
        with self.db.transaction(write=True) as ex:
            ex.execute("INSERT INTO eve_schedule_runs (scope, name, due_at, runner, status, "
                       "started_at) VALUES (?, ?, ?, ?, 'running', ?) "
                       "ON CONFLICT (scope, name, due_at) DO NOTHING",
                       (self.scope, name, due_at, runner, now_text()))
            rows = ex.execute("SELECT runner FROM eve_schedule_runs WHERE scope = ? AND "
                              "name = ? AND due_at = ?", (self.scope, name, due_at))
        return bool(rows) and rows[0][0] == runner

    def finish(self, name: str, due_at: str, runner: str, status: str,
               error: str | None = None) -> None:
        with self.db.transaction(write=True) as ex:
            ex.execute("UPDATE eve_schedule_runs SET status = ?, finished_at = ?, error = ? "
                       "WHERE scope = ? AND name = ? AND due_at = ? AND runner = ?",
                       (status, now_text(), error, self.scope, name, due_at, runner))
            ex.execute("DELETE FROM eve_schedule_runs WHERE scope = ? AND name = ? AND "
                       "due_at < (SELECT due_at FROM eve_schedule_runs WHERE scope = ? AND "
                       "name = ? ORDER BY due_at DESC LIMIT 1 OFFSET ?)",
                       (self.scope, name, self.scope, name, KEEP_RUNS - 1))

    def history(self, name: str) -> list[ScheduleRunRecord]:
        """The kept runs of `name`, oldest first."""
        with self.db.transaction(write=False) as ex:
            rows = ex.execute(f"SELECT {COLUMNS} FROM eve_schedule_runs WHERE scope = ? AND "
                              "name = ? ORDER BY due_at", (self.scope, name))
        return [ScheduleRunRecord(*row) for row in rows]

    def last_runs(self) -> dict[str, ScheduleRunRecord]:
        """The newest run of each schedule, by name."""
        with self.db.transaction(write=False) as ex:
            rows = ex.execute(f"SELECT {COLUMNS} FROM eve_schedule_runs WHERE scope = ? "
                              "ORDER BY name, due_at", (self.scope,))
        return {row[0]: ScheduleRunRecord(*row) for row in rows}
