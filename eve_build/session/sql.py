"""The store's queries, one text for SQLite and PostgreSQL, over a small `Database` seam.

Each public method is one transaction. Writes lock before they read: SQLite with
`BEGIN IMMEDIATE` (one writer at a time, across processes), PostgreSQL with
`SELECT ... FOR UPDATE` on the row. Placeholders are `?`; the PostgreSQL seam turns
them into `%s`. JSON values are stored as compact text.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.session.problems import session_damaged, session_moved_on, session_unknown
from eve_build.session.store import (
    USAGE_KEYS,
    ScopeOwner,
    SessionRecord,
    SessionRow,
    StateScope,
    TurnRecord,
    empty_usage,
    now_text,
)

if TYPE_CHECKING:
    from eve_build.session.claims import SqlSessionClaims
    from eve_build.session.inputs import SqlSessionInputs
    from eve_build.session.runs import SqlScheduleRuns

ADOPTIONS = "eve/adopted-scopes"
"""The state scope recording which project adopted each legacy scope (key: the legacy
scope; value: {project, scope, adoptedAt})."""
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
ROW = "id, created_at, updated_at, model, turns, usage"


class Executor(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...
    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


class Database(Protocol):
    """One connection to one engine: what sqlite.py and postgres.py provide."""

    where: str
    for_update: str  # " FOR UPDATE" on PostgreSQL, "" on SQLite (the write lock is the file's)

    def transaction(self, *, write: bool) -> AbstractContextManager[Executor]: ...
    def close(self) -> None: ...


def dump(value: Any) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise EveBuildError(f"the value cannot be stored as JSON: {exc}",
                            "keep session and state values to JSON types (dict, list, str, "
                            "int, float, bool, None)") from None


class SqlSessionStore:
    """SessionStore over a Database (see eve_build.session.store for the contract)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.where = db.where

    def create_session(self, *, model: str | None = None,
                       session_id: str | None = None) -> SessionRow:
        sid = session_id if session_id is not None else uuid.uuid4().hex[:16]
        if not SESSION_ID.fullmatch(sid):
            raise DiagnosticsError(f"cannot create session {sid!r}", [error(
                "session/id-invalid", self.where, f"the session id {sid!r} is not valid",
                "a session id is 1-128 letters, digits, `.`, `_` or `-`, starting with a "
                "letter or digit")])
        at = now_text()
        row = SessionRow(sid, at, at, model, 0, empty_usage())
        with self.db.transaction(write=True) as ex:
            if ex.execute("SELECT 1 FROM eve_sessions WHERE id = ?", (sid,)):
                raise DiagnosticsError(f"cannot create session `{sid}`", [error(
                    "session/id-taken", self.where, f"there is already a session `{sid}`",
                    "resume it, delete it with `eve sessions delete`, or choose another id")])
            ex.execute("INSERT INTO eve_sessions (id, created_at, updated_at, model, turns, "
                       "usage, snapshot, approvals) VALUES (?, ?, ?, ?, 0, ?, '{}', '[]')",
                       (sid, at, at, model, dump(row.usage)))
        return row

    def read_session(self, session_id: str) -> SessionRecord | None:
        with self.db.transaction(write=False) as ex:
            rows = ex.execute(f"SELECT {ROW}, snapshot, approvals FROM eve_sessions "
                              "WHERE id = ?", (session_id,))
            if not rows:
                return None
            messages = ex.execute("SELECT body, turn FROM eve_session_messages WHERE "
                                  "session_id = ? ORDER BY seq", (session_id,))
            custom = ex.execute("SELECT body FROM eve_session_custom WHERE session_id = ? "
                                "ORDER BY seq", (session_id,))
        head = rows[0]

        def load(text: object, what: str, turn: int | None = None) -> Any:
            return load_stored(self.where, session_id, text, what, turn)

        return SessionRecord(
            row=_row(head[:6]),
            messages=[load(m[0], "a message", int(m[1])) for m in messages],
            snapshot=load(head[6], "its state snapshot"),
            approvals=load(head[7], "its approvals"),
            custom=[load(c[0], "a custom message") for c in custom],
            turns=[int(m[1]) for m in messages])

    def list_sessions(self) -> list[SessionRow]:
        with self.db.transaction(write=False) as ex:
            rows = ex.execute(f"SELECT {ROW} FROM eve_sessions ORDER BY updated_at DESC, id")
        return [_row(r) for r in rows]

    def delete_session(self, session_id: str) -> bool:
        with self.db.transaction(write=True) as ex:
            found = ex.execute(f"SELECT 1 FROM eve_sessions WHERE id = ?{self.db.for_update}",
                               (session_id,))
            for table in ("eve_session_messages", "eve_session_custom"):
                ex.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))
            ex.execute("DELETE FROM eve_sessions WHERE id = ?", (session_id,))
        return bool(found)

    def commit_turn(self, session_id: str, turn: TurnRecord) -> SessionRow:
        at = now_text()
        with self.db.transaction(write=True) as ex:
            rows = ex.execute(f"SELECT {ROW} FROM eve_sessions WHERE id = ?{self.db.for_update}",
                              (session_id,))
            if not rows:
                raise session_unknown(self.where, session_id)
            old = _row(rows[0])
            if turn.after is not None and turn.after != old.turns:
                raise session_moved_on(self.where, session_id, turn.after, old.turns)
            number = old.turns + 1
            for table, items in (("eve_session_messages", turn.messages),
                                 ("eve_session_custom", turn.custom)):
                if not items:
                    continue
                last = ex.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {table} "
                                  "WHERE session_id = ?", (session_id,))[0][0]
                extra = "turn, " if table == "eve_session_messages" else ""
                marks = "?, " if extra else ""
                ex.execute_many(
                    f"INSERT INTO {table} (session_id, seq, {extra}body) VALUES (?, ?, "
                    f"{marks}?)",
                    [(session_id, int(last) + i, *((number,) if extra else ()), dump(item))
                     for i, item in enumerate(items, start=1)])
            usage = {k: old.usage.get(k, 0) + int(turn.usage.get(k, 0)) for k in USAGE_KEYS}
            model = turn.model if turn.model is not None else old.model
            ex.execute("UPDATE eve_sessions SET updated_at = ?, model = ?, turns = ?, usage = ?, "
                       "snapshot = ?, approvals = ? WHERE id = ?",
                       (at, model, number, dump(usage), dump(turn.snapshot),
                        dump(sorted(set(turn.approvals))), session_id))
        return SessionRow(old.id, old.created_at, at, model, number, usage)

    def state_scope(self, scope: str) -> StateScope:
        return SqlStateScope(self.db, scope)

    def schedule_runs(self, scope: str) -> SqlScheduleRuns:
        from eve_build.session.runs import SqlScheduleRuns

        return SqlScheduleRuns(self.db, scope)

    def adopt_legacy_scope(self, legacy: str, scope: str, project: str, *,
                           suffixes: tuple[str, ...] = (),
                           write: bool = True) -> ScopeOwner | None:
        """The owner of `legacy` (state under `legacy` + each of "", *suffixes, and the
        schedule runs under `legacy`); None when nobody holds it and it holds nothing.

        With `write`, a legacy scope that holds rows and has no owner yet is adopted by
        `project` in this one transaction: the adoption is recorded first (a racing
        adopter waits on that row, then finds it), then the rows move to `scope` (a key
        `scope` already has stays as it is). The owner's own later calls move again what
        an older eve-build wrote under `legacy` since. Without `write` nothing changes:
        an unowned legacy scope that holds rows is answered as `project`'s, as it is."""
        with self.db.transaction(write=write) as ex:
            owner = _read_owner(ex, legacy, self.db.for_update if write else "")
            if owner is None:
                if not _holds(ex, legacy, suffixes):
                    return None
                if not write:
                    return ScopeOwner(project, legacy)
                ex.execute("INSERT INTO eve_state (scope, key, value, updated_at) VALUES "
                           "(?, ?, ?, ?) ON CONFLICT (scope, key) DO NOTHING",
                           (ADOPTIONS, legacy, dump({"project": project, "scope": scope,
                                                     "adoptedAt": now_text()}), now_text()))
                owner = _read_owner(ex, legacy, self.db.for_update)
                assert owner is not None
            if owner.project != project or not write:
                return owner
            for suffix in ("", *suffixes):
                ex.execute("UPDATE eve_state SET scope = ? WHERE scope = ? AND key NOT IN "
                           "(SELECT key FROM eve_state WHERE scope = ?)",
                           (owner.scope + suffix, legacy + suffix, owner.scope + suffix))
            ex.execute("UPDATE eve_schedule_runs SET scope = ? WHERE scope = ? AND NOT EXISTS "
                       "(SELECT 1 FROM eve_schedule_runs AS r WHERE r.scope = ? AND "
                       "r.name = eve_schedule_runs.name AND r.due_at = eve_schedule_runs.due_at)",
                       (owner.scope, legacy, owner.scope))
        return owner

    def ping(self) -> None:
        """One read round trip: raises what a request would meet (unreachable, replaced)."""
        with self.db.transaction(write=False) as ex:
            ex.execute("SELECT 1")
    def session_claims(self) -> SqlSessionClaims:
        from eve_build.session.claims import SqlSessionClaims

        return SqlSessionClaims(self.db)

    def session_inputs(self) -> SqlSessionInputs:
        from eve_build.session.inputs import SqlSessionInputs

        return SqlSessionInputs(self.db)

    def close(self) -> None:
        self.db.close()


class SqlStateScope:
    """A served agent's state: one row per key, each update locked from read to write."""

    def __init__(self, db: Database, scope: str) -> None:
        self.db, self.scope = db, scope

    def read_all(self) -> dict[str, Any]:
        with self.db.transaction(write=False) as ex:
            rows = ex.execute("SELECT key, value FROM eve_state WHERE scope = ? ORDER BY key",
                              (self.scope,))
        return {key: json.loads(value) for key, value in rows}

    def get(self, key: str) -> tuple[bool, Any]:
        with self.db.transaction(write=False) as ex:
            rows = ex.execute("SELECT value FROM eve_state WHERE scope = ? AND key = ?",
                              (self.scope, key))
        return (True, json.loads(rows[0][0])) if rows else (False, None)

    def put(self, key: str, value: Any) -> None:
        with self.db.transaction(write=True) as ex:
            self._write(ex, key, dump(value))

    def update(self, key: str, change: Callable[[Any], Any],
               initial: Callable[[], Any]) -> Any:
        with self.db.transaction(write=True) as ex:
            select = f"SELECT value FROM eve_state WHERE scope = ? AND key = ?{self.db.for_update}"
            rows = ex.execute(select, (self.scope, key))
            if not rows:  # first writer creates the row; a racing one waits on it after
                ex.execute("INSERT INTO eve_state (scope, key, value, updated_at) "
                           "VALUES (?, ?, ?, ?) ON CONFLICT (scope, key) DO NOTHING",
                           (self.scope, key, dump(initial()), now_text()))
                rows = ex.execute(select, (self.scope, key))
            value = change(json.loads(rows[0][0]))
            self._write(ex, key, dump(value))
        return value

    def delete(self, key: str) -> None:
        with self.db.transaction(write=True) as ex:
            ex.execute("DELETE FROM eve_state WHERE scope = ? AND key = ?", (self.scope, key))

    def _write(self, ex: Executor, key: str, text: str) -> None:
        ex.execute("INSERT INTO eve_state (scope, key, value, updated_at) VALUES (?, ?, ?, ?) "
                   "ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, "
                   "updated_at = excluded.updated_at", (self.scope, key, text, now_text()))


def _read_owner(ex: Executor, legacy: str, lock: str) -> ScopeOwner | None:
    rows = ex.execute(f"SELECT value FROM eve_state WHERE scope = ? AND key = ?{lock}",
                      (ADOPTIONS, legacy))
    if not rows:
        return None
    value = json.loads(rows[0][0])
    return ScopeOwner(str(value["project"]), str(value["scope"]))


def _holds(ex: Executor, legacy: str, suffixes: tuple[str, ...]) -> bool:
    for suffix in ("", *suffixes):
        if ex.execute("SELECT 1 FROM eve_state WHERE scope = ? LIMIT 1", (legacy + suffix,)):
            return True
    return bool(ex.execute("SELECT 1 FROM eve_schedule_runs WHERE scope = ? LIMIT 1",
                           (legacy,)))


def load_stored(where: str, session_id: str, text: object, what: str,
                turn: int | None = None) -> Any:
    """One stored JSON document of a session, or session/store-invalid naming the session
    and the turn (not JSON, nested too deeply to read)."""
    try:
        return json.loads(text)  # type: ignore[arg-type]  # TEXT, or bytes from a bad write
    except (TypeError, ValueError) as exc:
        reason = f"it is not JSON ({exc})"
    except RecursionError:
        reason = "it is JSON nested too deeply to read"
    raise session_damaged(where, session_id, what, turn, reason)


def _row(row: Sequence[Any]) -> SessionRow:
    usage = {**empty_usage(), **json.loads(row[5])}
    return SessionRow(id=row[0], created_at=row[1], updated_at=row[2], model=row[3],
                      turns=int(row[4]), usage=usage)
