"""The SQLite engine of the store: one file, WAL, every write `BEGIN IMMEDIATE`.

The file is checked before anything writes to it: a file that is not SQLite (its
first 16 bytes are not the SQLite header), SQLite that cannot be read, or SQLite
holding someone else's tables is reported and left byte for byte as it was (turning
WAL on would already change its header). `synchronous=FULL` makes each commit durable
once `commit` returns, so a process killed with SIGKILL (or a power cut) loses no
committed turn; a half-written transaction is rolled back by SQLite on the next open.
Writers on one host take turns on SQLite's own file lock, waiting up to BUSY_TIMEOUT.

A FIFO, device or socket at the store's path (or at its `-wal`, `-journal` or `-shm`
file) is refused before anything opens it (`session/store-special-file`): opening or
reading one could block forever. The file's identity (device and inode) is recorded
when it is opened and compared with the path's before and after every transaction: a
store deleted or replaced while in use (`rm .eve/sessions.sqlite3*`) fails the
transaction with `session/store-replaced` (rolled back), so nothing is committed into
an unlinked file that a restart would never see again.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from eve_build.errors import DiagnosticsError
from eve_build.session.problems import (
    store_disk_full,
    store_invalid,
    store_replaced,
    store_special_file,
    store_unwritable,
)
from eve_build.session.schema import apply_schema, check_schema, read_version
from eve_build.session.sql import SqlSessionStore
from eve_build.userfile import describe_special

HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT = 30.0
"""Seconds a write waits for another process's write to finish."""
SIDE_FILES = ("-wal", "-journal", "-shm")
"""The files SQLite keeps beside the database (checked like it)."""


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
        self.path, self.where = path.absolute(), str(path)  # absolute: a chdir changes nothing
        self._lock = threading.RLock()  # one connection, shared by the process's threads
        self._identity: tuple[int, int] | None = None  # (device, inode), once opened
        _check_file(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None,
                                        check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise store_unwritable(self.where, str(exc)) from None
        try:
            self._open()
            self._identity = _identity(path)
        except FileNotFoundError:
            self.conn.close()
            raise store_replaced(self.where, "was deleted") from None
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

    def check_identity(self) -> None:
        """Raise `session/store-replaced` unless the path still names the file opened."""
        identity = self._identity
        if identity is None:  # still opening
            return
        try:
            now = _identity(self.path)
        except FileNotFoundError:
            raise store_replaced(self.where, "was deleted") from None
        except OSError as exc:
            raise store_unwritable(self.where, exc.strerror or str(exc)) from None
        if now != identity:
            raise store_replaced(self.where, "was replaced by another file")

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[_Cursor]:
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.OperationalError as exc:
                raise diagnose_sqlite(self.where, exc, damaged=False) from None
            try:
                self.check_identity()  # under the lock: the file it opened is still the store
                yield _Cursor(self.conn)
                self.check_identity()  # and still is, now that the commit is due
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


def _identity(path: Path) -> tuple[int, int]:
    found = path.stat()
    return found.st_dev, found.st_ino


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
    """Refuse a folder, a special file or a file that is not SQLite, never blocking."""
    for candidate in (path, *(Path(f"{path}{suffix}") for suffix in SIDE_FILES)):
        try:
            mode = candidate.stat().st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise store_unwritable(str(candidate), exc.strerror or str(exc)) from None
        if stat.S_ISDIR(mode) and candidate == path:
            raise store_invalid(str(path), "it is a folder")
        kind = describe_special(mode)
        if kind is not None:
            raise store_special_file(str(candidate), kind)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise store_unwritable(str(path), exc.strerror or str(exc)) from None
    try:  # fstat on what was opened: a FIFO swapped in after the stat is still refused
        kind = describe_special(os.fstat(descriptor).st_mode)
        if kind is not None:
            raise store_special_file(str(path), kind)
        head = os.read(descriptor, len(HEADER))
    except OSError as exc:
        raise store_unwritable(str(path), exc.strerror or str(exc)) from None
    finally:
        os.close(descriptor)
    if head and head != HEADER:
        raise store_invalid(str(path), "the file does not start with the SQLite header")


def _tables(ex: Any) -> set[str]:
    rows = ex.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {name for (name,) in rows if not name.startswith("sqlite_")}
