"""The store's tables and their version: created and migrated by eve-build, never by hand.

`eve_schema` holds one row: the version this database is at. An empty database is
created at SCHEMA_VERSION; an older one is migrated step by step (MIGRATIONS[n] takes
version n to n + 1) in the same transaction; a newer one is refused, so an older
eve-build never writes tables it does not understand. A database that has tables but
no `eve_schema` is someone else's, and is left alone.

JSON columns are TEXT on both engines, so the SQL is one text for SQLite and
PostgreSQL (`BIGINT` where PostgreSQL needs it; SQLite reads it as INTEGER).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eve_build._version import __version__
from eve_build.session.problems import store_foreign, store_invalid, store_too_new

if TYPE_CHECKING:
    from eve_build.session.sql import Executor

SCHEMA_VERSION = 3
SCHEMA_TABLE = "eve_schema"

TABLES_V1 = (
    f"CREATE TABLE {SCHEMA_TABLE} (version INTEGER NOT NULL, written_by TEXT NOT NULL)",
    """CREATE TABLE eve_sessions (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        model TEXT,
        turns INTEGER NOT NULL DEFAULT 0,
        usage TEXT NOT NULL,
        snapshot TEXT NOT NULL,
        approvals TEXT NOT NULL)""",
    """CREATE TABLE eve_session_messages (
        session_id TEXT NOT NULL REFERENCES eve_sessions (id) ON DELETE CASCADE,
        seq BIGINT NOT NULL,
        turn INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq))""",
    """CREATE TABLE eve_session_custom (
        session_id TEXT NOT NULL REFERENCES eve_sessions (id) ON DELETE CASCADE,
        seq BIGINT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq))""",
    """CREATE TABLE eve_state (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (scope, key))""",
    """CREATE TABLE eve_schedule_runs (
        scope TEXT NOT NULL,
        name TEXT NOT NULL,
        due_at TEXT NOT NULL,
        runner TEXT NOT NULL,
        status TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        error TEXT,
        PRIMARY KEY (scope, name, due_at))""",
)

CLAIMS_V2 = """CREATE TABLE eve_session_claims (
        session_id TEXT PRIMARY KEY REFERENCES eve_sessions (id) ON DELETE CASCADE,
        owner TEXT NOT NULL,
        token TEXT NOT NULL,
        expires_at TEXT NOT NULL)"""
"""Who runs a turn of a session now, until when (eve_build.session.claims)."""

INPUTS_V3 = """CREATE TABLE eve_session_inputs (
        session_id TEXT NOT NULL REFERENCES eve_sessions (id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        message TEXT NOT NULL,
        schema TEXT NOT NULL,
        tool TEXT,
        status TEXT NOT NULL,
        answer TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (session_id, id))"""
"""The questions a session's turns asked and their answers (eve_build.session.inputs)."""

MIGRATIONS: dict[int, tuple[str, ...]] = {1: (CLAIMS_V2,), 2: (INPUTS_V3,)}
"""Statements taking version n to n + 1. A new store is created at version 1 and then
migrated, so a new store and a migrated one are the same."""

OUR_TABLES = frozenset({SCHEMA_TABLE, "eve_sessions", "eve_session_messages",
                        "eve_session_custom", "eve_state", "eve_schedule_runs",
                        "eve_session_claims", "eve_session_inputs"})


def apply_schema(ex: Executor, tables: set[str], where: str) -> None:
    """Create or migrate the tables in the open write transaction `ex`; refuse a foreign
    database or a newer schema (raises DiagnosticsError; nothing is written then)."""
    version = read_version(ex, where) if SCHEMA_TABLE in tables else None
    check_schema(tables, version, where)
    if version is None:
        for statement in TABLES_V1:
            ex.execute(statement)
        ex.execute(f"INSERT INTO {SCHEMA_TABLE} (version, written_by) VALUES (?, ?)",
                   (1, f"eve-build {__version__}"))
        version = 1
    while version < SCHEMA_VERSION:
        for statement in MIGRATIONS[version]:
            ex.execute(statement)
        version += 1
        ex.execute(f"UPDATE {SCHEMA_TABLE} SET version = ?, written_by = ?",
                   (version, f"eve-build {__version__}"))


def check_schema(tables: set[str], version: int | None, where: str) -> None:
    """Raise unless this is an empty database or ours at a version we know."""
    if version is None:
        if tables:
            raise store_foreign(where, sorted(tables))
        return
    if version > SCHEMA_VERSION:
        raise store_too_new(where, version, SCHEMA_VERSION)


def read_version(ex: Executor, where: str) -> int:
    rows = ex.execute(f"SELECT version FROM {SCHEMA_TABLE}")
    if len(rows) != 1 or not isinstance(rows[0][0], int):
        raise store_invalid(where, f"its `{SCHEMA_TABLE}` table does not hold one version")
    return int(rows[0][0])
