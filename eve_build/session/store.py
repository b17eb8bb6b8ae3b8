"""The session store: one interface over SQLite (one machine) and PostgreSQL (many).

    store = open_session_store(app_root)            # .eve/sessions.sqlite3, or EVE_SESSION_STORE
    row = store.create_session(model="test")
    store.commit_turn(row.id, TurnRecord(messages=[...], snapshot=agent.snapshot(), ...))
    record = store.read_session(row.id)             # messages in order, snapshot, approvals

A turn is committed in ONE transaction (messages appended, snapshot and approvals
replaced, custom messages appended, usage added, `turns` + 1), so a process killed at
any moment leaves every earlier turn whole and the interrupted one absent. The same
store keeps served agents' state (`StateScope`, DESIGN.md section 13) and the claims of
schedule runs, in tables of their own. The tables and their version live in
`eve_build.session.schema`; `eve_build.session.sql` runs the queries for both engines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from eve_build.session.claims import SqlSessionClaims
    from eve_build.session.inputs import SqlSessionInputs
    from eve_build.session.runs import SqlScheduleRuns

STORE_ENV = "EVE_SESSION_STORE"
"""A URL (`sqlite:///abs/path.sqlite3`, `postgresql://...`) or a path to a SQLite file."""

DEFAULT_STORE = ".eve/sessions.sqlite3"
"""Where the store lives in an app without EVE_SESSION_STORE (relative to the app root)."""

USAGE_KEYS = ("requests", "input_tokens", "output_tokens", "tool_calls")


def empty_usage() -> dict[str, int]:
    return dict.fromkeys(USAGE_KEYS, 0)


@dataclass(frozen=True)
class SessionRow:
    """One session's header: what `eve sessions list` shows."""

    id: str
    created_at: str  # ISO 8601, UTC
    updated_at: str
    model: str | None
    turns: int
    usage: dict[str, int]  # requests, input_tokens, output_tokens, tool_calls


@dataclass(frozen=True)
class SessionRecord:
    """A whole session, as a resumed run needs it."""

    row: SessionRow
    messages: list[dict[str, Any]]  # pydantic-ai ModelMessage JSON documents, in order
    snapshot: dict[str, Any]  # Agent.snapshot() (state, approvals, local entries), or {}
    approvals: list[str]  # tool names approved for the session (once() approvals)
    custom: list[dict[str, Any]]  # send_custom_message records {text, type, data, at}
    turns: list[int] = field(default_factory=list)  # the turn of each message, in order


@dataclass(frozen=True)
class TurnRecord:
    """What one turn adds to a session; committed whole or not at all."""

    messages: list[dict[str, Any]]  # the turn's NEW messages only
    snapshot: dict[str, Any]
    approvals: list[str] = field(default_factory=list)
    custom: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    model: str | None = None
    after: int | None = None  # the turn it follows; refused (session/moved-on) if not last


@dataclass(frozen=True)
class ScopeOwner:
    """Who holds a legacy scope's state (eve_build.serve.scope): the project that adopted
    it and the scope its rows now live under."""

    project: str
    scope: str


class SessionStore(Protocol):
    """Sessions by id; every method is one transaction."""

    where: str  # the file or the URL (without its password), for messages

    def create_session(self, *, model: str | None = None,
                       session_id: str | None = None) -> SessionRow: ...
    def read_session(self, session_id: str) -> SessionRecord | None: ...
    def list_sessions(self) -> list[SessionRow]: ...
    def delete_session(self, session_id: str) -> bool: ...
    def commit_turn(self, session_id: str, turn: TurnRecord) -> SessionRow: ...
    def state_scope(self, scope: str) -> StateScope: ...
    def schedule_runs(self, scope: str) -> SqlScheduleRuns: ...
    def adopt_legacy_scope(self, legacy: str, scope: str, project: str, *,
                           suffixes: tuple[str, ...] = (),
                           write: bool = True) -> ScopeOwner | None: ...
    def ping(self) -> None: ...
    def session_claims(self) -> SqlSessionClaims: ...
    def session_inputs(self) -> SqlSessionInputs: ...
    def close(self) -> None: ...


class StateScope(Protocol):
    """Durable state of one served agent (`serve/<agent>`): keys to JSON values.

    `update` is atomic across threads and processes: the row is locked (SQLite
    BEGIN IMMEDIATE, PostgreSQL SELECT ... FOR UPDATE) from the read to the write."""

    def read_all(self) -> dict[str, Any]: ...
    def get(self, key: str) -> tuple[bool, Any]: ...
    def put(self, key: str, value: Any) -> None: ...
    def update(self, key: str, change: Callable[[Any], Any],
               initial: Callable[[], Any]) -> Any: ...
    def delete(self, key: str) -> None: ...


def now_text() -> str:
    """A timestamp as the stores write it (UTC, ISO 8601, microseconds)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def __getattr__(name: str) -> Any:
    """`from eve_build.session.store import open_session_store` (docs/deploying.md before
    the layering) still works: the opener lives in `eve_build.session.stores`, which
    imports this module, so it is fetched by name here, never imported at the top."""
    if name == "open_session_store":
        import importlib

        return importlib.import_module("eve_build.session.stores").open_session_store
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
