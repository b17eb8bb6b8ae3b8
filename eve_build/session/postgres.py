"""The PostgreSQL engine of the store (psycopg 3, extra `eve-build[postgres]`).

The same tables and queries as SQLite (eve_build.session.sql); rows are locked with
`SELECT ... FOR UPDATE`, and creating or migrating the schema holds a transaction-level
advisory lock, so replicas starting together create it once. A connection that fails
is a `session/store-unreachable` diagnostic naming the URL without its password
(during a request a 503 with `Retry-After`). A connection lost between requests (the
server restarted or ended it) is found out by the next transaction's BEGIN, before any
work, and opened again once there; one lost in the middle of a transaction fails it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from eve_build.runtime.redaction import redact_url_credentials
from eve_build.session.problems import (
    store_extra_missing,
    store_unreachable,
    store_url_malformed,
)
from eve_build.session.schema import apply_schema
from eve_build.session.sql import SqlSessionStore

if TYPE_CHECKING:
    import psycopg

SCHEMA_LOCK = 0x65766573  # "eves": the advisory lock taken while creating the schema
CONNECT_TIMEOUT = 10


def open_postgres_store(url: str) -> SqlSessionStore:
    """Connect, create or migrate the schema (raises DiagnosticsError)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port that is no number)
    except ValueError as exc:  # `postgresql://[::1`: no host can be read from it
        raise store_url_malformed(redact_url_credentials(url), str(exc)) from None
    return SqlSessionStore(PostgresDatabase(url))


def redact_url(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_url_credentials(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


class _Cursor:
    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cursor = self.conn.execute(sql.replace("?", "%s"), params)
        return cursor.fetchall() if cursor.description else []

    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.conn.cursor() as cursor:
            cursor.executemany(sql.replace("?", "%s"), rows)


class PostgresDatabase:
    for_update = " FOR UPDATE"

    def __init__(self, url: str) -> None:
        self.url, self.where = url, redact_url(url)
        try:
            import psycopg
        except ImportError:
            raise store_extra_missing(self.where) from None
        self._psycopg = psycopg
        self._lock = threading.RLock()
        self._conn: psycopg.Connection[Any] | None = None
        with self.transaction(write=True) as ex:
            ex.execute("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK,))
            rows = ex.execute("SELECT table_name FROM information_schema.tables "
                              "WHERE table_schema = current_schema()")
            apply_schema(ex, {name for (name,) in rows}, self.where)

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            try:
                self._conn = self._psycopg.connect(self.url, autocommit=True,
                                                   connect_timeout=CONNECT_TIMEOUT)
            except self._psycopg.Error as exc:
                raise store_unreachable(self.where, _first_line(exc)) from None
        return self._conn

    def _begin(self, stack: ExitStack) -> psycopg.Connection[Any]:
        """A connection inside a new transaction (BEGIN sent). A connection the server
        dropped since its last use (a restart: "terminating connection due to
        administrator command") fails right here, before any work: it is opened again
        and BEGIN retried once, so the first request after the database returns succeeds."""
        conn = self._connection()
        try:
            stack.enter_context(conn.transaction())
            return conn
        except self._psycopg.OperationalError as exc:
            if not (conn.broken or conn.closed):
                raise store_unreachable(self.where, _first_line(exc)) from None
        conn.close()
        self._conn = None
        conn = self._connection()
        try:
            stack.enter_context(conn.transaction())
        except self._psycopg.OperationalError as exc:
            raise store_unreachable(self.where, _first_line(exc)) from None
        return conn

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[_Cursor]:  # noqa: ARG002 (both lock rows)
        with self._lock:
            stack = ExitStack()
            conn = self._begin(stack)
            try:
                with stack:  # COMMIT, or ROLLBACK on an exception
                    yield _Cursor(conn)
            except self._psycopg.OperationalError as exc:  # lost in the middle: not retried
                raise store_unreachable(self.where, _first_line(exc)) from None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
