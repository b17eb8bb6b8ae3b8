"""The engine's one door to the session store.

`open_storage(project_root)` gives a `Storage` over eve_build.session.store (SQLite
in `.eve/sessions.sqlite3`, one transaction per turn). Where that module is absent
the sessions live in memory for the life of the process (an `eve serve` keeps them;
an `eve run` forgets them).
"""

from __future__ import annotations

import importlib.util
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build.session.errors import session_error
from eve_build.session.transcript import Usage

STORE_MODULE = "eve_build.session.store"


@dataclass
class StoredSession:
    id: str
    model: str | None
    messages: list[dict[str, Any]] = field(default_factory=list)
    snapshot: dict[str, Any] | None = None
    custom: list[dict[str, Any]] = field(default_factory=list)


class Storage:
    """create / read / commit, over the store module or a dict in memory."""

    def __init__(self, store: Any = None) -> None:
        self._store = store
        self._memory: dict[str, StoredSession] = {}

    def create(self, model: str | None, session_id: str | None = None) -> str:
        if self._store is not None:
            return str(self._store.create_session(model=model, session_id=session_id).id)
        new = session_id or uuid.uuid4().hex[:12]
        self._memory[new] = StoredSession(new, model)
        return new

    def read(self, session_id: str) -> StoredSession | None:
        if self._store is None:
            return self._memory.get(session_id)
        record = self._store.read_session(session_id)
        if record is None:
            return None
        return StoredSession(str(record.row.id), getattr(record.row, "model", None),
                             list(record.messages), record.snapshot, list(record.custom))

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
        if self._store is not None:
            turn_record = importlib.import_module(STORE_MODULE).TurnRecord
            self._store.commit_turn(session_id, turn_record(
                messages=messages, snapshot=snapshot, approvals=approvals, custom=custom,
                usage=usage.to_store(), model=model))
            return
        stored = self._memory.setdefault(session_id, StoredSession(session_id, model))
        stored.messages.extend(messages)
        stored.snapshot, stored.model = snapshot, model
        stored.custom.extend(custom)

    def close(self) -> None:
        if self._store is not None and hasattr(self._store, "close"):
            self._store.close()


def open_storage(project_root: Path) -> Storage:
    if importlib.util.find_spec(STORE_MODULE) is None:
        return Storage()
    return Storage(importlib.import_module(STORE_MODULE).open_session_store(project_root))
