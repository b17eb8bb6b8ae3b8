"""The content-addressed build cache: each invalidation rule, and never a wrong hit."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.engine import cache as caching
from eve_build.engine.cache import BuildCache
from eve_build.engine.cache_folder import TAG_FILE
from eve_build.engine.cache_store import DATABASE, SECRET_FILE, _digest, read_cache_secret
from eve_build.engine.stamp import STAMP_FILE
from eve_build.extension.build import BuildResult, build_extension
from tests.golden_files import read_files

ALL_MODULES = 16  # modules acme-crm imports: extension.py and every contribution


@pytest.fixture
def acme(copy_fixture: Callable[[str], Path], tmp_path: Path,
         monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    root = copy_fixture("extensions/acme-crm")
    first = build_extension(root)
    assert len(first.imported) == ALL_MODULES
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _rebuild(root: Path) -> BuildResult:
    return build_extension(root)


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(root).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted((root / "build" / "eve").rglob("*"))}


def test_a_rebuild_with_nothing_changed_imports_nothing_and_rewrites_nothing(acme: Path) -> None:
    before = _snapshot(acme)

    result = _rebuild(acme)

    assert result.imported == ()
    assert result.written is False
    assert _snapshot(acme) == before


def test_cached_and_uncached_builds_write_the_same_bytes(acme: Path) -> None:
    fresh = read_files(acme / "build" / "eve")
    shutil.rmtree(acme / "build" / "eve")

    from_cache = build_extension(acme)

    assert from_cache.imported == ()
    assert read_files(acme / "build" / "eve") == fresh
    build_extension(acme, use_cache=False)
    assert read_files(acme / "build" / "eve") == fresh


def test_editing_one_tool_reimports_only_that_tool(acme: Path) -> None:
    _edit(acme / "extension" / "tools" / "lookup.py", '"""', '"""Edited. ')

    result = _rebuild(acme)

    assert result.imported == ("tools/lookup.py",)
    assert result.written is True


def test_a_new_description_reaches_the_manifest_through_the_cache(acme: Path) -> None:
    tool = acme / "extension" / "tools" / "search.py"
    text = tool.read_text()
    start = text.index('description="') + len('description="')
    _edit(tool, text[start:text.index('"', start)], "Search contacts (edited).")

    result = _rebuild(acme)

    assert result.imported == ("tools/search.py",)
    [search] = [t for t in result.manifest.contributions["tools"] if t["name"] == "search"]
    assert search["description"] == "Search contacts (edited)."


@pytest.mark.parametrize("shared", ["lib/http.py", "extension.py", "tools/_shared.py"])
def test_editing_a_shared_module_reimports_everything(acme: Path, shared: str) -> None:
    path = acme / "extension" / shared
    path.write_text(path.read_text() + "\n# edited\n")

    assert len(_rebuild(acme).imported) == ALL_MODULES


def test_editing_pyproject_reimports_everything(acme: Path) -> None:
    _edit(acme / "pyproject.toml", 'version = "0.3.0"', 'version = "0.3.1"')

    assert len(_rebuild(acme).imported) == ALL_MODULES


def test_a_new_version_of_a_declared_dependency_reimports_everything(
    acme: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    upgraded = tmp_path / "site-packages"
    (upgraded / "packaging-999.0.dist-info").mkdir(parents=True)
    real = caching._site_folders()
    monkeypatch.setattr(caching, "_site_folders", lambda: [str(upgraded), *real])

    assert len(_rebuild(acme).imported) == ALL_MODULES


def test_installed_versions_are_those_importlib_metadata_reads() -> None:
    # the environment's site-packages only: a test that imported setuptools may have put
    # its vendored distributions (`setuptools/_vendor`) on sys.path in this worker
    for distribution in importlib.metadata.distributions(path=caching._site_folders()):
        name = distribution.metadata["Name"]
        assert caching._version_of(name) == distribution.version, name
    assert caching._version_of("no-such-distribution-here") == "missing"


def test_a_new_eve_build_version_reimports_everything(
    acme: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(caching, "__version__", "99.0.0")

    assert len(_rebuild(acme).imported) == ALL_MODULES


def _rows(folder: Path) -> dict[str, tuple[str, bytes]]:
    """Every row of the cache's database, read with sqlite3 directly."""
    with contextlib.closing(sqlite3.connect(folder / DATABASE)) as db:
        return {key: (digest, value)
                for key, digest, value in db.execute("SELECT key, digest, value FROM entries")}


def _damage_rows(folder: Path, damage: str) -> None:
    rows = _rows(folder)
    keys = sorted(rows)
    changed: dict[str, tuple[str, bytes]] = {}
    for index, key in enumerate(keys):
        digest, value = rows[key]
        if damage == "garbage":
            changed[key] = (digest, b"\x00\xff not json")
        elif damage == "truncated":
            changed[key] = (digest, value[: len(value) // 2])
        elif damage == "tampered":
            record = json.loads(value)
            record["record"] = {"name": "evil", "file": "tools/evil.py"}
            changed[key] = (digest, json.dumps(record).encode())
        elif damage == "other-key":  # each row holds the next row's value and digest
            changed[key] = rows[keys[(index + 1) % len(keys)]]
        elif damage == "forged":  # a tampered row with the plain sha256 anyone computes
            record = json.loads(value)
            record["record"] = {"name": "evil", "file": "tools/evil.py"}
            body = json.dumps(record).encode()
            plain = hashlib.sha256(len(key).to_bytes(8, "big") + key.encode() + body)
            changed[key] = (plain.hexdigest(), body)
        else:  # "unparsable": the digest matches, the JSON does not parse
            body = value[: len(value) // 2]
            secret = read_cache_secret(folder, create=False)
            assert secret is not None
            changed[key] = (_digest(secret, key, body), body)
    with contextlib.closing(sqlite3.connect(folder / DATABASE)) as db, db:
        db.executemany("UPDATE entries SET digest = ?, value = ? WHERE key = ?",
                       [(digest, value, key) for key, (digest, value) in changed.items()])


@pytest.mark.parametrize("damage", ["garbage", "truncated", "tampered", "other-key",
                                    "forged", "unparsable"])
def test_a_corrupt_entry_is_ignored_never_trusted(acme: Path, tmp_path: Path,
                                                  damage: str) -> None:
    good = read_files(acme / "build" / "eve")
    _damage_rows(tmp_path / "cache", damage)
    (tmp_path / "cache" / STAMP_FILE).unlink()  # else the build stamp skips the modules

    result = build_extension(acme)

    assert len(result.imported) == ALL_MODULES
    assert read_files(acme / "build" / "eve") == good
    keys = list(_rows(tmp_path / "cache"))
    assert len(keys) == ALL_MODULES
    assert len(BuildCache(tmp_path / "cache").read_many(keys)) == ALL_MODULES  # replaced


@pytest.mark.parametrize("damage", ["garbage", "truncated", "header-only", "zeroed-pages"])
def test_a_database_that_is_not_one_counts_as_empty_and_is_replaced(
    acme: Path, tmp_path: Path, damage: str
) -> None:
    good = read_files(acme / "build" / "eve")
    database = tmp_path / "cache" / DATABASE
    data = database.read_bytes()
    if damage == "garbage":
        database.write_bytes(os.urandom(len(data)))
    elif damage == "truncated":
        database.write_bytes(data[: len(data) // 2])
    elif damage == "header-only":
        database.write_bytes(data[:100])
    else:  # every page after the first two zeroed: the schema survives, the rows do not
        database.write_bytes(data[:8192] + bytes(len(data) - 8192))
    (tmp_path / "cache" / STAMP_FILE).unlink()  # else the build stamp skips the modules

    result = build_extension(acme)

    assert len(result.imported) == ALL_MODULES
    assert read_files(acme / "build" / "eve") == good
    with contextlib.closing(sqlite3.connect(database)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert len(BuildCache(tmp_path / "cache").read_many(_rows(tmp_path / "cache"))) \
        == ALL_MODULES
    assert build_extension(acme).imported == ()


def test_a_cold_build_leaves_one_database_not_a_file_per_module(acme: Path,
                                                                tmp_path: Path) -> None:
    assert sorted(p.name for p in (tmp_path / "cache").rglob("*")) == sorted(
        [DATABASE, SECRET_FILE, STAMP_FILE, TAG_FILE])
    assert len(_rows(tmp_path / "cache")) == ALL_MODULES


def test_entries_of_the_per_file_layout_are_removed_with_the_new_database(
    copy_fixture: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    old = tmp_path / "cache" / "ab" / f"ab{'0' * 62}.json"
    old.parent.mkdir(parents=True)
    old.write_text(f"ab{'0' * 62} {'0' * 64}\n{{}}")
    root = copy_fixture("extensions/acme-crm")

    assert len(build_extension(root).imported) == ALL_MODULES

    assert sorted(p.name for p in (tmp_path / "cache").rglob("*")) == sorted(
        [DATABASE, SECRET_FILE, STAMP_FILE, TAG_FILE])


def test_a_cache_folder_that_cannot_be_written_is_skipped(
    copy_fixture: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("EVE_CACHE_DIR", str(blocker / "cache"))
    root = copy_fixture("extensions/acme-crm")
    build_extension(root, use_cache=False)
    good = read_files(root / "build" / "eve")

    for _ in range(2):
        assert len(build_extension(root).imported) == ALL_MODULES

    assert read_files(root / "build" / "eve") == good
    assert blocker.read_text() == "not a folder"


def test_no_cache_builds_without_reading_or_writing_it(
    copy_fixture: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    root = copy_fixture("extensions/acme-crm")

    for _ in range(2):
        assert len(build_extension(root, use_cache=False).imported) == ALL_MODULES

    assert not (tmp_path / "cache").exists()


def test_the_cache_lives_beside_the_output_by_default(
    copy_fixture: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EVE_CACHE_DIR", raising=False)
    root = copy_fixture("extensions/gizmo")

    build_extension(root)

    assert _rows(root / "build" / ".eve-cache")


def test_concurrent_builds_share_the_cache_safely(
    copy_fixture: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_fixture("extensions/acme-crm")
    env = {**os.environ, "EVE_CACHE_DIR": str(tmp_path / "cache"),
           "EVE_HOME": str(tmp_path / "home")}
    command = [sys.executable, "-m", "eve_build", "extension", "build", "--path", str(root)]
    racing = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE) for _ in range(3)]
    codes = [process.wait(timeout=120) for process in racing]
    for process in racing:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        process.stderr.close()

    assert codes == [0, 0, 0]
    keys = list(_rows(tmp_path / "cache"))
    assert len(keys) == ALL_MODULES
    assert len(BuildCache(tmp_path / "cache").read_many(keys)) == ALL_MODULES
    with contextlib.closing(sqlite3.connect(tmp_path / "cache" / DATABASE)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    assert build_extension(root).imported == ()
