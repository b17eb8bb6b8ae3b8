"""The build cache's entries: one SQLite database, `cache.sqlite3`, in the cache folder.

A row per key, so a cold build of 1000 modules writes one file in one transaction
(instead of 1000 files) and a rebuild reads its hits with a few SELECTs (instead of
opening 1000 files). The database runs in WAL mode with a busy timeout: builds read
while another writes, and writers wait for each other; every write is one
`BEGIN IMMEDIATE` transaction, never half an entry. `synchronous = NORMAL`: in WAL mode
a commit then costs no fsync (only checkpoints do) and a crashed process never damages
the database; a power cut may lose the last commits, which only costs a re-import.
OFF would also skip the checkpoint's fsync, but lets an OS crash corrupt the file.

Nothing read is trusted: each row carries an HMAC-SHA256 over its key and value, keyed
with the cache's own secret (`cache.key`, 32 random bytes, created with mode 0600 beside
the database), checked on read: whoever can write the database but not read the secret
cannot forge a row that lands in a manifest (a plain sha256 anyone can compute). A
secret that is not a private regular file of this user is not trusted: the build then
goes on without the cache. A row whose digest does not match or whose value does not
parse is ignored (and replaced by the next write of that key); a file that is not a
database, or a damaged one, is deleted and counts as empty (and a value that passes its
digest is right whichever build wrote it, since keys are content addresses). A folder
that cannot be written is skipped: the build goes on without a cache. Entries are kept
under MAX_BYTES by dropping the least recently written or read. The files of the
previous layout (one `<2 hex>/<key>.json` per entry) are removed when the database is
created.
The folder must be the cache's own (engine.cache_folder, checked by the build before
any use): nothing is deleted anywhere else, and only names the cache writes.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import stat
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from eve_build.engine.cache_folder import is_old_entry
from eve_build.engine.waits import tell_waiting

DATABASE = "cache.sqlite3"
SECRET_FILE = "cache.key"
SECRET_BYTES = 32
MAX_BYTES = 200 * 1024 * 1024
"""Beyond this many bytes of entries (keys, digests and values), the least recently
used are removed until they hold 3/4 of it."""
BUSY_TIMEOUT = 60.0
"""Seconds a build waits for another build's write to the same cache."""
WAIT_NOTICE_AFTER = 2.0
"""Seconds a write waits for another build's lock before the build says it is waiting."""
CHUNK = 500
"""Keys per SELECT: below SQLite's oldest limit on bound parameters (999)."""
TOUCH_AFTER = 3600.0
"""A hit is marked as used when it was last marked longer ago than this, so a rebuild
with nothing changed writes nothing."""
_SCHEMA = """CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY, used REAL NOT NULL, size INTEGER NOT NULL,
    digest TEXT NOT NULL, value BLOB NOT NULL)"""


class BuildCache:
    """Entries in `folder`/cache.sqlite3, one row per key."""

    def __init__(self, folder: Path, max_bytes: int = MAX_BYTES) -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self.path = folder / DATABASE
        self._secret: bytes | None = None

    def _read_secret(self, *, create: bool) -> bytes | None:
        """The cache's HMAC key (made now when `create` and missing), or None: missing,
        or not a private regular file of this user (then the cache is not used)."""
        if self._secret is None:
            self._secret = read_cache_secret(self.folder, create=create)
        return self._secret

    def read(self, key: str) -> Any:
        """The value stored under `key`, or None (missing, unreadable or corrupt)."""
        return self.read_many([key]).get(key)

    def read_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The valid entries among `keys`, one SELECT per chunk of keys; the hits not
        read for TOUCH_AFTER seconds are marked as used now."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        stale: list[str] = []
        if not wanted or not self.path.is_file():
            return found
        secret = self._read_secret(create=False)
        if secret is None:
            return found
        now = time.time()
        try:
            with self._connect(create=False) as db:
                for chunk in _chunks(wanted):
                    marks = ",".join("?" * len(chunk))
                    for key, used, digest, body in db.execute(
                            f"SELECT key, used, digest, value FROM entries "
                            f"WHERE key IN ({marks})", chunk):
                        value = _verified(secret, key, digest, body)
                        if value is not None:
                            found[key] = value
                            if not isinstance(used, float) or used < now - TOUCH_AFTER:
                                stale.append(key)
                if stale:
                    with contextlib.suppress(sqlite3.Error):  # a read-only cache still reads
                        _touch(db, stale, now)
        except sqlite3.Error as problem:
            self._recover(problem)
            return {}
        except OSError:
            return {}
        return found

    def write(self, entries: dict[str, Any]) -> None:
        """Store each value in one transaction, then keep the size bound; a cache that
        cannot be written is skipped, never an error."""
        if not entries:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return
        secret = self._read_secret(create=True)
        if secret is None:
            return
        now = time.time()
        rows = []
        for key, value in entries.items():
            body = json.dumps(value).encode()  # key order kept: it reaches the manifest
            digest = _digest(secret, key, body)
            rows.append((key, now, len(key) + len(digest) + len(body), digest, body))
        for _ in range(2):  # a second time after replacing a damaged database
            try:
                with self._connect(create=True) as db:
                    self._begin_write(db)
                    db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?)",
                                   rows)
                    pruned = self._prune(db)
                    db.execute("COMMIT")
                    if pruned:  # free pages back to the file system; executescript
                        db.executescript("PRAGMA incremental_vacuum;")  # runs it to the end
                return
            except sqlite3.Error as problem:
                if not self._recover(problem):
                    return
            except OSError:
                return

    def _begin_write(self, db: sqlite3.Connection) -> None:
        """BEGIN IMMEDIATE; when another build holds the lock longer than
        WAIT_NOTICE_AFTER, say so (WAIT_LISTENERS), then wait up to BUSY_TIMEOUT."""
        db.execute(f"PRAGMA busy_timeout = {int(WAIT_NOTICE_AFTER * 1000)}")
        try:
            db.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorname", "") != "SQLITE_BUSY":
                raise
        tell_waiting(f"waiting for the build cache `{self.path}`: another build is writing "
                     f"it (up to {BUSY_TIMEOUT:g} s more, then this build goes on without "
                     "writing it)")
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
        db.execute("BEGIN IMMEDIATE")

    def _prune(self, db: sqlite3.Connection) -> bool:
        """Drop the least recently used entries while they hold more than `max_bytes`,
        down to 3/4 of it."""
        (total,) = db.execute("SELECT coalesce(sum(size), 0) FROM entries").fetchone()
        if total <= self.max_bytes:
            return False
        dropped: list[tuple[str]] = []
        for key, size in db.execute("SELECT key, size FROM entries ORDER BY used, key"):
            if total <= self.max_bytes * 3 // 4:
                break
            dropped.append((key,))
            total -= size
        db.executemany("DELETE FROM entries WHERE key = ?", dropped)
        return True

    @contextlib.contextmanager
    def _connect(self, *, create: bool) -> Iterator[sqlite3.Connection]:
        new = not self.path.exists()
        if create:
            self.folder.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous = NORMAL")
            if new:
                db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # before the first table
            db.execute("PRAGMA journal_mode = WAL")  # kept in the file; reads its header
            db.execute(_SCHEMA)
            if new:
                _remove_file_entries(self.folder)
            yield db
        finally:
            db.close()

    def _recover(self, problem: sqlite3.Error) -> bool:
        """Delete a database that is not one or is damaged (True); other failures (locked
        past the timeout, read-only, full disk) leave it alone (False)."""
        code = getattr(problem, "sqlite_errorcode", 0) & 0xFF
        if code not in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
            return False
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                self.path.with_name(self.path.name + suffix).unlink()
        return True


def _chunks(keys: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(keys), CHUNK):
        yield keys[start:start + CHUNK]


def _verified(secret: bytes, key: str, digest: object, body: object) -> Any:
    """The value of a row whose digest matches its key and value, else None."""
    if not isinstance(body, bytes) or not isinstance(digest, str) \
            or not hmac.compare_digest(digest, _digest(secret, key, body)):
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def _touch(db: sqlite3.Connection, keys: list[str], now: float) -> None:
    db.execute("BEGIN IMMEDIATE")
    for chunk in _chunks(keys):
        marks = ",".join("?" * len(chunk))
        db.execute(f"UPDATE entries SET used = ? WHERE key IN ({marks})",
                   [now, *chunk])
    db.execute("COMMIT")


def _remove_file_entries(folder: Path) -> None:
    """The entries of FORMAT 2, one JSON file per key under a folder named for its first
    two hex digits, and their temporary files."""
    for sub in folder.glob("[0-9a-f][0-9a-f]"):  # in a folder engine.cache_folder claimed
        for stray in [*sub.glob("*.json"), *sub.glob(".entry-*.tmp")]:
            if is_old_entry(stray.name) and not stray.is_symlink():  # only its own names
                with contextlib.suppress(OSError):
                    stray.unlink()
        with contextlib.suppress(OSError):
            sub.rmdir()


def _digest(secret: bytes, key: str, body: bytes) -> str:
    """HMAC-SHA256 over the key and the value: a value moved to another key does not
    match, and nobody without the secret can make a row that does."""
    message = len(key).to_bytes(8, "big") + key.encode() + body
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def read_cache_secret(folder: Path, *, create: bool) -> bytes | None:
    """The secret in `folder`/cache.key, made (mode 0600, never replacing one) when
    `create`; None when missing or not trusted (a link, another owner's, readable by
    others, the wrong size)."""
    path = folder / SECRET_FILE
    if create:
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                                 0o600)
        except FileExistsError:
            pass  # another build made it: read theirs
        except OSError:
            return None
        else:
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(secrets.token_bytes(SECRET_BYTES))
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077 \
                or info.st_uid != os.getuid():
            return None
        data = stream.read(SECRET_BYTES + 1)
    return data if len(data) == SECRET_BYTES else None
