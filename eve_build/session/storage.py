"""The engine's one door to the session store.

`open_storage(project_root)` gives a `Storage` over `eve_build.session.store` (SQLite
in `.eve/sessions.sqlite3`, or PostgreSQL through `EVE_SESSION_STORE`; one transaction
per turn). The engine reads and commits sessions through it and never through the
store's own types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build.session.errors import session_error
from eve_build.session.store import SessionStore, TurnRecord
from eve_build.session.stores import open_session_store
from eve_build.session.transcript import Usage


@dataclass
class StoredSession:
    id: str
    model: str | None
    messages: list[dict[str, Any]] = field(default_factory=list)
    snapshot: dict[str, Any] | None = None
    custom: list[dict[str, Any]] = field(default_factory=list)


class Storage:
    """create / read / commit over a session store."""

    def __init__(self, store: SessionStore) -> None:
        self._store = store

    def create(self, model: str | None, session_id: str | None = None) -> str:
        return str(self._store.create_session(model=model, session_id=session_id).id)

    def read(self, session_id: str) -> StoredSession | None:
        record = self._store.read_session(session_id)
        if record is None:
            return None
        return StoredSession(str(record.row.id), record.row.model, list(record.messages),
                             record.snapshot, list(record.custom))

    def require(self, session_id: str) -> StoredSession:
        found = self.read(session_id)
        if found is None:
            raise session_error("session/id-unknown", f"there is no session `{session_id}`",
                                "list them with `eve sessions list`, or leave out "
                                "`--session` to start a new one", title="cannot resume")
        return found

    def commit(self, session_id: str, messages: list[dict[str, Any]],
               snapshot: dict[str, Any], custom: list[dict[str, Any]], usage: Usage,
               model: str | None) -> None:
        """Append one turn (its new messages only) with the state after it, atomically."""
        approvals = sorted(k for k, v in snapshot.get("approvals", {}).items() if v)
        self._store.commit_turn(session_id, TurnRecord(
            messages=messages, snapshot=snapshot, approvals=approvals, custom=custom,
            usage=usage.to_store(), model=model))

    def close(self) -> None:
        self._store.close()


def open_storage(project_root: Path) -> Storage:
    return Storage(open_session_store(project_root))
