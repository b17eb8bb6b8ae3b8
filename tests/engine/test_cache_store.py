"""The build cache's store on its own: the size bound, batch reads, concurrent writers."""

from __future__ import annotations

import contextlib
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

from eve_build.engine.cache_store import CHUNK, DATABASE, SECRET_FILE, BuildCache

PAYLOAD = {"payload": "x" * 200}

WRITER = """
import sys
from pathlib import Path
from eve_build.engine.cache_store import BuildCache
store, name = BuildCache(Path(sys.argv[1])), sys.argv[2]
for batch in range(40):
    store.write({f"{name}-{batch}-{index}": {"n": index, "by": name} for index in range(25)})
"""


def _key(index: int) -> str:
    return f"{index:064x}"


def _set_used(folder: Path, used: dict[str, float]) -> None:
    with contextlib.closing(sqlite3.connect(folder / DATABASE)) as db, db:
        db.executemany("UPDATE entries SET used = ? WHERE key = ?",
                       [(when, key) for key, when in used.items()])


def _stored_bytes(folder: Path) -> int:
    with contextlib.closing(sqlite3.connect(folder / DATABASE)) as db:
        (total,) = db.execute(
            "SELECT sum(length(key) + length(digest) + length(value)) FROM entries").fetchone()
    return int(total)


def test_the_cache_stays_under_its_size_limit_dropping_the_oldest(tmp_path: Path) -> None:
    store = BuildCache(tmp_path / "cache", max_bytes=2000)
    for index in range(20):
        store.write({_key(index): PAYLOAD})
        _set_used(tmp_path / "cache", {_key(index): float(index)})

    assert _stored_bytes(tmp_path / "cache") <= 2000
    assert store.read(_key(19)) == PAYLOAD
    assert store.read(_key(0)) is None


def test_pruning_gives_the_freed_pages_back(tmp_path: Path) -> None:
    BuildCache(tmp_path / "cache").write({_key(index): {"payload": "x" * 2000}
                                          for index in range(300)})
    before = (tmp_path / "cache" / DATABASE).stat().st_size

    BuildCache(tmp_path / "cache", max_bytes=20_000).write({_key(300): PAYLOAD})

    assert _stored_bytes(tmp_path / "cache") <= 20_000
    assert (tmp_path / "cache" / DATABASE).stat().st_size < before // 4


def test_an_entry_read_recently_outlives_older_writes(tmp_path: Path) -> None:
    store = BuildCache(tmp_path / "cache", max_bytes=2000)
    store.write({_key(index): PAYLOAD for index in range(5)})
    _set_used(tmp_path / "cache", {_key(index): float(index) for index in range(5)})

    assert store.read(_key(0)) == PAYLOAD  # marks it used now
    store.write({_key(5): PAYLOAD})  # over the limit: drops down to 3/4 of it

    assert store.read(_key(0)) == PAYLOAD
    assert store.read(_key(1)) is None
    assert store.read(_key(5)) == PAYLOAD


def test_a_batch_read_returns_the_entries_present_across_chunks(tmp_path: Path) -> None:
    store = BuildCache(tmp_path / "cache")
    stored = {_key(index): {"n": index} for index in range(0, 3 * CHUNK, 2)}
    store.write(stored)

    found = store.read_many(_key(index) for index in range(3 * CHUNK))

    assert found == stored


def test_reading_a_missing_cache_creates_nothing(tmp_path: Path) -> None:
    store = BuildCache(tmp_path / "cache")

    assert store.read_many([_key(1), _key(2)]) == {}
    assert store.read(_key(1)) is None
    assert not (tmp_path / "cache").exists()


def test_two_processes_writing_at_once_both_succeed_and_keep_every_entry(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "cache"
    racing = [subprocess.Popen([sys.executable, "-c", WRITER, str(folder), name],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for name in ("first", "second")]
    outputs = [process.communicate(timeout=120) for process in racing]

    assert [process.returncode for process in racing] == [0, 0]
    assert outputs == [("", ""), ("", "")]
    keys = {f"{name}-{batch}-{index}": {"n": index, "by": name}
            for name in ("first", "second") for batch in range(40) for index in range(25)}
    assert BuildCache(folder).read_many(keys) == keys
    with contextlib.closing(sqlite3.connect(folder / DATABASE)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_the_rows_are_keyed_with_a_private_secret_of_the_cache(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    BuildCache(folder).write({_key(1): PAYLOAD})

    secret = folder / SECRET_FILE
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert len(secret.read_bytes()) == 32
    assert BuildCache(folder).read(_key(1)) == PAYLOAD
    other = tmp_path / "other"  # the same row under another secret is not trusted
    BuildCache(other).write({_key(2): PAYLOAD})
    with contextlib.closing(sqlite3.connect(folder / DATABASE)) as db:
        row = db.execute("SELECT key, used, size, digest, value FROM entries").fetchone()
    with contextlib.closing(sqlite3.connect(other / DATABASE)) as db, db:
        db.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?)", (_key(3), *row[1:]))
    assert BuildCache(other).read_many([_key(2), _key(3)]) == {_key(2): PAYLOAD}


def test_a_secret_others_may_read_or_a_link_is_not_trusted(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    BuildCache(folder).write({_key(1): PAYLOAD})
    secret = folder / SECRET_FILE

    secret.chmod(0o644)
    assert BuildCache(folder).read(_key(1)) is None
    secret.chmod(0o600)
    assert BuildCache(folder).read(_key(1)) == PAYLOAD
    moved = tmp_path / "elsewhere.key"
    secret.rename(moved)
    secret.symlink_to(moved)
    assert BuildCache(folder).read(_key(1)) is None
