"""The SQLite engine of the store: one file, WAL, every write `BEGIN IMMEDIATE`.

The file is checked before anything writes to it: a file that is not SQLite (its
first 16 bytes are not the SQLite header), SQLite that cannot be read, or SQLite
holding someone else's tables is reported and left byte for byte as it was (turning
WAL on would already change its header). `synchronous=FULL` makes each commit durable
once `commit` returns, so a process killed with SIGKILL (or a power cut) loses no
committed turn; a half-written transaction is rolled back by SQLite on the next open.
Writers on one host take turns on SQLite's own file lock, waiting up to BUSY_TIMEOUT.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from eve_build.errors import DiagnosticsError
from eve_build.session.problems import store_disk_full, store_invalid, store_unwritable
from eve_build.session.schema import apply_schema, check_schema, read_version
from eve_build.session.sql import SqlSessionStore

HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT = 30.0
"""Seconds a write waits for another process's write to finish."""


def open_sqlite_store(path: Path) -> SqlSessionStore:
    """Open (creating when missing) the store in `path` (raises DiagnosticsError)."""
    return SqlSessionStore(SqliteDatabase(path))


class _Cursor:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, params).fetchall()

    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.conn.executemany(sql, rows)


class SqliteDatabase:
    for_update = ""

    def __init__(self, path: Path) -> None:
        self.path, self.where = path, str(path)
        self._lock = threading.RLock()  # one connection, shared by the process's threads
        _check_file(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None,
                                        check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise store_unwritable(self.where, str(exc)) from None
        try:
            self._open()
        except BaseException:
            self.conn.close()
            raise

    def _open(self) -> None:
        cursor = _Cursor(self.conn)
        try:  # read only, before any pragma writes: a foreign file stays as it was
            tables = _tables(cursor)
            version = read_version(cursor, self.where) if "eve_schema" in tables else None
        except sqlite3.DatabaseError as exc:
            raise diagnose_sqlite(self.where, exc) from None
        check_schema(tables, version, self.where)
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as exc:
            raise diagnose_sqlite(self.where, exc, damaged=False) from None
        with self.transaction(write=True) as ex:  # again under the lock: another may have won
            apply_schema(ex, _tables(ex), self.where)

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[_Cursor]:
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.OperationalError as exc:
                raise diagnose_sqlite(self.where, exc, damaged=False) from None
            try:
                yield _Cursor(self.conn)
            except sqlite3.DatabaseError as exc:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise diagnose_sqlite(self.where, exc) from None
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            try:
                self.conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise diagnose_sqlite(self.where, exc, damaged=False) from None

    def close(self) -> None:
        with self._lock:
            self.conn.close()


UNAVAILABLE = {"SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY",
               "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_PERM", "SQLITE_NOMEM", "SQLITE_AUTH"}
"""SQLite's errors that say nothing about the file: the disk, permissions, a lock."""


def diagnose_sqlite(where: str, exc: sqlite3.Error, *, damaged: bool = True
                    ) -> DiagnosticsError:
    """The diagnostic of an SQLite error: a full disk says so (the store is healthy),
    other failures of the disk or the lock are store-unwritable, and only the rest
    (a damaged file, not a database) is store-invalid (store-unwritable when not
    `damaged`: a BEGIN or COMMIT that failed says nothing about the file)."""
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    base = "_".join(name.split("_")[:2])  # SQLITE_IOERR_WRITE -> SQLITE_IOERR
    if base == "SQLITE_FULL" or (base == "SQLITE_IOERR" and "full" in str(exc)):
        return store_disk_full(where)
    if base in UNAVAILABLE or not damaged:
        return store_unwritable(where, str(exc))
    return store_invalid(where, str(exc))


def _check_file(path: Path) -> None:
    if path.is_dir():
        raise store_invalid(str(path), "it is a folder")
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(HEADER))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise store_unwritable(str(path), exc.strerror or str(exc)) from None
    if head and head != HEADER:
        raise store_invalid(str(path), "the file does not start with the SQLite header")


def _tables(ex: Any) -> set[str]:
    rows = ex.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {name for (name,) in rows if not name.startswith("sqlite_")}
