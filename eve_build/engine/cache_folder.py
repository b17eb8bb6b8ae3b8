"""Whose folder is the cache folder? Only one eve-build made, or one holding only its names.

    problem = claim_cache_folder(folder)   # None: the cache may read, write and delete here

`EVE_CACHE_DIR` may point anywhere, `~/data` included, and the cache deletes files it
finds broken (a `cache.sqlite3` that is no database, entries of the old one-file-per-key
layout). So before the cache or the build stamp touches a folder, the folder must be
the cache's own: absent (it is created), empty, tagged with eve-build's
`CACHEDIR.TAG` (the Cache Directory Tagging spec, https://bford.info/cachedir/, which
backup tools honour too), or holding nothing but the cache's own names (a cache made
before the tag existed). Such a folder is tagged; any other is left untouched and the
build goes on without a cache, with a warning naming the folder.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from pathlib import Path

from eve_build.diagnostics import Diagnostic, warning
from eve_build.userfile import read_user_bytes

TAG_FILE = "CACHEDIR.TAG"
SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"
TAG = (SIGNATURE + b"\n# This file is a cache directory tag created by eve-build (its build "
       b"cache).\n# For information about cache directory tags, see "
       b"https://bford.info/cachedir/\n")
OWN_FILES = frozenset({"cache.sqlite3", "cache.sqlite3-wal", "cache.sqlite3-shm",
                       "build-stamp.json", "cache.key"})
"""Not the tag: an untagged folder is another's."""
OWN_TEMPORARY = re.compile(r"\.stamp-.*\.tmp")
OLD_ENTRY_FOLDER = re.compile(r"[0-9a-f]{2}")
OLD_ENTRY = re.compile(r"[0-9a-f]{64}\.json|\.entry-.*\.tmp")


def claim_cache_folder(folder: Path) -> Diagnostic | None:
    """None when `folder` is (now) the cache's own; else a warning: do not use it."""
    try:
        if not folder.exists() and not folder.is_symlink():
            folder.mkdir(parents=True, exist_ok=True)
            _tag(folder)
            return None
        if not folder.is_dir():
            return _foreign(folder, "it is not a folder")
        if _is_tagged(folder):
            return None
        stranger = _find_stranger(folder)
        if stranger is not None:
            return _foreign(folder, f"it holds `{stranger}`, which the cache did not write")
        _tag(folder)
    except OSError:
        return None  # a folder that cannot be written: the cache skips it by itself
    return None


def is_old_entry(name: str) -> bool:
    """A file name of the one-file-per-key layout (`<64 hex>.json`, or its temporary)."""
    return OLD_ENTRY.fullmatch(name) is not None


def is_cache_folder(folder: Path) -> bool:
    """Whether `folder` carries the cache's tag: only then may eve-build delete in it."""
    return _is_tagged(folder)


def _is_tagged(folder: Path) -> bool:
    try:
        data = read_user_bytes(folder / TAG_FILE, what="cache tag", limit=4096).data
    except OSError:
        return False
    return data.startswith(SIGNATURE) and b"eve-build" in data


def _find_stranger(folder: Path) -> str | None:
    """The first name in `folder` that the cache would not have written, or None."""
    with os.scandir(folder) as listing:
        entries = sorted(listing, key=lambda e: e.name)
    for entry in entries:
        if entry.is_symlink():
            return entry.name
        if entry.is_dir():
            if OLD_ENTRY_FOLDER.fullmatch(entry.name) is None:
                return f"{entry.name}/"
            with os.scandir(entry.path) as inner:
                odd = sorted(i.name for i in inner if not (i.is_file(follow_symlinks=False)
                                                           and is_old_entry(i.name)))
            if odd:
                return f"{entry.name}/{odd[0]}"
        elif not entry.is_file(follow_symlinks=False) or not _is_own_file(Path(entry.path)):
            return entry.name
    return None


def _is_own_file(path: Path) -> bool:
    """One of the cache's names, holding what the cache writes there (a user's own
    `cache.sqlite3` is not adopted: the cache would delete it as damaged)."""
    if OWN_TEMPORARY.fullmatch(path.name) is not None:
        return True
    if path.name == "cache.sqlite3":
        return _is_cache_database(path)
    if path.name == "build-stamp.json":
        try:
            head = read_user_bytes(path, what="build stamp").data[:200]
        except OSError:
            return False
        return b'"format": "eve-build-stamp' in head
    return path.name in OWN_FILES


def _is_cache_database(path: Path) -> bool:
    try:
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        row = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND "
                         "name = 'entries'").fetchone()
    except sqlite3.Error:
        return False
    finally:
        db.close()
    return row is not None and "digest TEXT NOT NULL" in str(row[0])


def _tag(folder: Path) -> None:
    path = folder / TAG_FILE
    with contextlib.suppress(FileExistsError):  # a concurrent build tagged it first
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(TAG)


def _foreign(folder: Path, why: str) -> Diagnostic:
    return warning(
        "engine/cache-folder-foreign", str(folder),
        f"the build cache folder `{folder}` is not the cache's own ({why}); the build goes "
        "on without the cache and changes nothing there",
        "point EVE_CACHE_DIR at an empty or new folder (the cache tags it with "
        f"`{TAG_FILE}`), or unset it")
