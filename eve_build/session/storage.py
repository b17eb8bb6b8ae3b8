"""The engine's one door to the session store.

`open_storage(project_root)` gives a `Storage` over `eve_build.session.store` (SQLite
in `.eve/sessions.sqlite3`, or PostgreSQL through `EVE_SESSION_STORE`; one transaction
per turn). The engine reads and commits sessions through it and never through the
store's own types.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eve_build.session.claims import CLAIM_SECONDS, SessionClaim, owner_name
from eve_build.session.errors import session_error
from eve_build.session.problems import session_busy, session_damaged
from eve_build.session.store import SessionStore, TurnRecord, open_session_store
from eve_build.session.transcript import Usage

if TYPE_CHECKING:
    from eve_build.session.inputs import SqlSessionInputs


@dataclass
class StoredSession:
    id: str
    model: str | None
    messages: list[dict[str, Any]] = field(default_factory=list)
    snapshot: dict[str, Any] | None = None
    custom: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0  # the last committed turn when it was read


class Storage:
    """create / read / commit over a session store."""

    def __init__(self, store: SessionStore) -> None:
        self._store = store

    @property
    def where(self) -> str:
        return self._store.where

    def create(self, model: str | None, session_id: str | None = None) -> str:
        return str(self._store.create_session(model=model, session_id=session_id).id)

    def read(self, session_id: str) -> StoredSession | None:
        record = self._store.read_session(session_id)
        if record is None:
            return None
        self._check_messages(session_id, record.messages, record.turns)
        return StoredSession(str(record.row.id), record.row.model, list(record.messages),
                             record.snapshot, list(record.custom), record.row.turns)

    def _check_messages(self, session_id: str, messages: list[Any], turns: list[int]) -> None:
        """session/store-invalid naming the turn of the first stored message that is not
        a pydantic-ai message (the engine would fail on it with a traceback)."""
        from pydantic import ValidationError
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        for index, message in enumerate(messages):
            try:
                ModelMessagesTypeAdapter.validate_python([message])
            except (ValidationError, RecursionError) as exc:
                first = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
                raise session_damaged(self._store.where, session_id, "a message",
                                      turns[index] if index < len(turns) else None,
                                      f"it is not a pydantic-ai message ({first})") from None

    def require(self, session_id: str) -> StoredSession:
        found = self.read(session_id)
        if found is None:
            raise session_error("session/id-unknown", f"there is no session `{session_id}`",
                                "list them with `eve sessions list`, or leave out "
                                "`--session` to start a new one", title="cannot resume")
        return found

    def commit(self, session_id: str, messages: list[dict[str, Any]],
               snapshot: dict[str, Any], custom: list[dict[str, Any]], usage: Usage,
               model: str | None, *, after: int | None = None) -> int:
        """Append one turn (its new messages only) with the state after it, atomically;
        with `after`, only when the session's last committed turn is still that one
        (else session/moved-on). The new turn's number."""
        approvals = sorted(k for k, v in snapshot.get("approvals", {}).items() if v)
        row = self._store.commit_turn(session_id, TurnRecord(
            messages=messages, snapshot=snapshot, approvals=approvals, custom=custom,
            usage=usage.to_store(), model=model, after=after))
        return row.turns

    def claim(self, session_id: str) -> SessionClaim:
        """Claim the session for one turn (eve_build.session.claims); raises
        session/busy while another process (or request) holds it, session/id-unknown."""
        claim = self._store.session_claims().claim(session_id, owner_name(), CLAIM_SECONDS)
        if claim is None:
            raise session_busy(self._store.where, session_id)
        return claim

    def renew(self, claim: SessionClaim) -> bool:
        return self._store.session_claims().renew(claim, CLAIM_SECONDS)

    def release(self, claim: SessionClaim) -> None:
        self._store.session_claims().release(claim)

    @contextlib.asynccontextmanager
    async def holding(self, session_id: str) -> AsyncIterator[SessionClaim]:
        """The session claimed for the block (see `keeping`); raises session/busy,
        session/id-unknown."""
        claim = await asyncio.to_thread(self.claim, session_id)
        async with self.keeping(claim):
            yield claim

    @contextlib.asynccontextmanager
    async def keeping(self, claim: SessionClaim) -> AsyncIterator[None]:
        """Hold `claim` for the block: renewed every third of CLAIM_SECONDS while the
        block runs, released at its end however it ends."""
        async def renew() -> None:
            while True:
                await asyncio.sleep(CLAIM_SECONDS / 3)
                await asyncio.to_thread(self.renew, claim)

        renewing = asyncio.ensure_future(renew())
        try:
            yield
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await renewing
            await asyncio.shield(asyncio.to_thread(self.release, claim))

    def inputs(self) -> SqlSessionInputs:
        """The sessions' questions and answers (eve_build.session.inputs)."""
        return self._store.session_inputs()

    def close(self) -> None:
        self._store.close()


def open_storage(project_root: Path) -> Storage:
    return Storage(open_session_store(project_root))
