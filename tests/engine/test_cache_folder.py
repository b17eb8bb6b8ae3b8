"""Issue 23.18: the cache deletes nothing it did not create (EVE_CACHE_DIR at user data)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.engine.cache_folder import SIGNATURE, TAG_FILE, claim_cache_folder
from eve_build.extension.build import build_extension
from tests.golden_files import read_files

Copy = Callable[[str], Path]
KEY_LIKE = f"ab{'0' * 62}.json"


def user_data(folder: Path) -> dict[str, bytes]:
    """A folder of someone's data that looks like the cache's names from afar."""
    (folder / "ab").mkdir(parents=True)
    (folder / "ab" / "notes.json").write_text('{"mine": true}\n')
    (folder / "ab" / KEY_LIKE).write_text('{"also mine": true}\n')
    (folder / "cache.sqlite3").write_bytes(b"my own file, not a database\n")
    (folder / "report.txt").write_text("quarterly numbers\n")
    return read_files(folder)


@pytest.mark.parametrize("strange", ["report.txt", "ab/notes.json", "cache.sqlite3"])
def test_a_build_with_the_cache_at_user_data_changes_nothing_there(
        copy_fixture: Copy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        strange: str) -> None:
    data = tmp_path / "data"
    user_data(data)
    for name in [n for n in ("report.txt", "ab/notes.json") if n != strange]:
        (data / name).unlink()  # each test keeps one kind of stranger
    if strange != "cache.sqlite3":
        (data / "cache.sqlite3").unlink()
    before = read_files(data)
    monkeypatch.setenv("EVE_CACHE_DIR", str(data))
    root = copy_fixture("extensions/gizmo")
    result = build_extension(root)
    assert read_files(data) == before  # not one byte deleted, added or changed
    assert [(d.code, d.file) for d in result.warnings] == [
        ("engine/cache-folder-foreign", str(data))]
    message = result.warnings[0].message
    assert "the build goes on without the cache and changes nothing there" in message
    assert (root / "build" / "eve" / "gizmo" / "extension" / "_manifest.json").is_file()
    assert build_extension(root).warnings == result.warnings  # said again: no stamp there


def test_a_real_eve_extension_build_leaves_user_data_alone(copy_fixture: Copy,
                                                           tmp_path: Path) -> None:
    data = tmp_path / "data"
    before = user_data(data)
    root = copy_fixture("extensions/gizmo")
    env = {**os.environ, "EVE_CACHE_DIR": str(data), "EVE_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "eve_build", "extension", "build"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert f"{data}: warning engine/cache-folder-foreign" in done.stderr
    assert "point EVE_CACHE_DIR at an empty or new folder" in done.stderr
    assert read_files(data) == before


def test_a_new_or_empty_folder_is_tagged_and_used(copy_fixture: Copy, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for folder in (tmp_path / "new" / "cache", empty):
        monkeypatch.setenv("EVE_CACHE_DIR", str(folder))
        root = copy_fixture("extensions/gizmo")
        assert build_extension(root).warnings == ()
        assert (folder / TAG_FILE).read_bytes().startswith(SIGNATURE)
        assert (folder / "cache.sqlite3").is_file()
        (folder / "mine.txt").write_text("added later by hand\n")  # tagged: still ours
        assert claim_cache_folder(folder) is None
        shutil.rmtree(root)


def test_a_cache_made_before_the_tag_is_adopted(tmp_path: Path) -> None:
    folder = tmp_path / "old-cache"
    folder.mkdir()
    with sqlite3.connect(folder / "cache.sqlite3") as db:
        db.execute("CREATE TABLE entries (key TEXT PRIMARY KEY, used REAL NOT NULL, "
                   "size INTEGER NOT NULL, digest TEXT NOT NULL, value BLOB NOT NULL)")
    db.close()
    (folder / "ab").mkdir()
    (folder / "ab" / KEY_LIKE).write_text("{}")
    assert claim_cache_folder(folder) is None
    assert (folder / TAG_FILE).is_file()


@pytest.mark.parametrize("make", ["another tool's tag", "a file", "a link"])
def test_other_folders_are_not_claimed(tmp_path: Path, make: str) -> None:
    folder = tmp_path / "cache"
    if make == "another tool's tag":
        folder.mkdir()
        (folder / TAG_FILE).write_bytes(SIGNATURE + b"\n# pip's cache\n")
    elif make == "a file":
        folder.write_text("not a folder")
    else:
        folder.mkdir()
        (folder / "cache.sqlite3").symlink_to(tmp_path / "elsewhere.db")
    problem = claim_cache_folder(folder)
    assert problem is not None and problem.code == "engine/cache-folder-foreign"


def test_discarding_a_stamp_deletes_nothing_in_a_folder_of_the_users(tmp_path: Path) -> None:
    from eve_build.engine.stamp import STAMP_FILE, discard_stamp

    data = tmp_path / "data"
    data.mkdir()
    (data / STAMP_FILE).write_text("the user's own file\n")
    discard_stamp(data)
    assert (data / STAMP_FILE).read_text() == "the user's own file\n"
