"""Who runs a turn of a session now: a claim row in the store, one per session.

    claim = store.session_claims().claim(session_id, owner_name(), CLAIM_SECONDS)
    if claim is None: ...                        # another process runs a turn: 409
    ...  the turn, from the store's turn `claim.turns` on ...
    store.commit_turn(session_id, TurnRecord(..., after=claim.turns))
    store.session_claims().release(claim)

The store is the only owner of a session. A turn starts by claiming the session in
one write transaction (the session's row locked: SQLite's write lock, PostgreSQL's
`SELECT ... FOR UPDATE`), which also reads the number of the last committed turn, so
a process's cached history is used only when it is that turn's. The claim lasts
CLAIM_SECONDS and the holder renews it while the turn runs; a claim whose time ran
out, or whose owner is a process of this host that no longer exists (a worker killed
with SIGKILL), is taken over. Every process on the store (workers, replicas, `eve run`)
claims the same way, so one turn at a time per session holds across all of them.
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from eve_build.session.problems import session_unknown
from eve_build.session.store import now_text

if TYPE_CHECKING:
    from eve_build.session.sql import Database

CLAIM_SECONDS = 30.0
"""How long a claim lasts without renewal; the holder renews it every third of that."""


@dataclass(frozen=True)
class SessionClaim:
    session_id: str
    owner: str
    token: str  # this claim's own, so an expired and retaken claim is never released
    turns: int  # the session's last committed turn when it was claimed


def owner_name() -> str:
    """This process, as claims name it: `host:pid`."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _expiry(seconds: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat(timespec="microseconds")


def _owner_gone(owner: str) -> bool:
    """True when `owner` is a process of this host that has ended."""
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class SqlSessionClaims:
    """The claims of a store's sessions (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def claim(self, session_id: str, owner: str, seconds: float = CLAIM_SECONDS
              ) -> SessionClaim | None:
        """Claim `session_id` for `seconds`; None while another holds it.

        Raises DiagnosticsError (session/id-unknown) when there is no such session."""
        with self.db.transaction(write=True) as ex:
            rows = ex.execute(f"SELECT turns FROM eve_sessions WHERE id = ?{self.db.for_update}",
                              (session_id,))
            if not rows:
                raise session_unknown(self.db.where, session_id)
            held = ex.execute("SELECT owner, expires_at FROM eve_session_claims "
                              "WHERE session_id = ?", (session_id,))
            if held and held[0][1] > now_text() and not _owner_gone(str(held[0][0])):
                return None
            token = uuid.uuid4().hex
            ex.execute("INSERT INTO eve_session_claims (session_id, owner, token, expires_at) "
                       "VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
                       "owner = excluded.owner, token = excluded.token, "
                       "expires_at = excluded.expires_at",
                       (session_id, owner, token, _expiry(seconds)))
        return SessionClaim(session_id, owner, token, int(rows[0][0]))

    def renew(self, claim: SessionClaim, seconds: float = CLAIM_SECONDS) -> bool:
        """Extend `claim`; False when it is no longer this claim (expired and retaken)."""
        with self.db.transaction(write=True) as ex:
            held = ex.execute("SELECT token FROM eve_session_claims WHERE session_id = ?"
                              f"{self.db.for_update}", (claim.session_id,))
            if not held or held[0][0] != claim.token:
                return False
            ex.execute("UPDATE eve_session_claims SET expires_at = ? WHERE session_id = ?",
                       (_expiry(seconds), claim.session_id))
        return True

    def release(self, claim: SessionClaim) -> None:
        """End `claim` (nothing when it was already retaken by another)."""
        with self.db.transaction(write=True) as ex:
            ex.execute("DELETE FROM eve_session_claims WHERE session_id = ? AND token = ?",
                       (claim.session_id, claim.token))
