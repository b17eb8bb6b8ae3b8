"""The content-addressed build cache: each invalidation rule, and never a wrong hit."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.engine import cache as caching
from eve_build.engine.cache import BuildCache
from eve_build.engine.stamp import STAMP_FILE
from eve_build.extension_build import BuildResult, build_extension
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
    acme: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.metadata.version

    def upgraded(name: str) -> str:
        return "999.0" if name == "packaging" else real(name)

    monkeypatch.setattr(importlib.metadata, "version", upgraded)

    assert len(_rebuild(acme).imported) == ALL_MODULES


def test_a_new_eve_build_version_reimports_everything(
    acme: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(caching, "__version__", "99.0.0")

    assert len(_rebuild(acme).imported) == ALL_MODULES


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*/*.json"))


@pytest.mark.parametrize("damage", ["garbage", "truncated", "tampered", "other-key"])
def test_a_corrupt_entry_is_ignored_never_trusted(acme: Path, tmp_path: Path,
                                                  damage: str) -> None:
    good = read_files(acme / "build" / "eve")
    entries = _entries(tmp_path / "cache")
    for entry in entries:
        data = entry.read_bytes()
        head, _, body = data.partition(b"\n")
        if damage == "garbage":
            entry.write_bytes(b"\x00\xff not json")
        elif damage == "truncated":
            entry.write_bytes(data[: len(data) // 2])
        elif damage == "tampered":
            value = json.loads(body)
            value["record"] = {"name": "evil", "file": "tools/evil.py"}
            entry.write_bytes(head + b"\n" + json.dumps(value).encode())
        else:
            entry.write_bytes(b"0" * 64 + head[64:] + b"\n" + body)
    (tmp_path / "cache" / STAMP_FILE).unlink()  # else the build stamp skips the modules

    result = build_extension(acme)

    assert len(result.imported) == ALL_MODULES
    assert read_files(acme / "build" / "eve") == good
    assert all(BuildCache(tmp_path / "cache").read(e.stem) is not None
               for e in _entries(tmp_path / "cache"))  # replaced by good entries


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

    assert _entries(root / "build" / ".eve-cache")


def test_the_cache_stays_under_its_size_limit_dropping_the_oldest(tmp_path: Path) -> None:
    store = BuildCache(tmp_path / "cache", max_bytes=2000)
    for index in range(20):
        store.write({f"{index:064x}": {"payload": "x" * 200}})
        entry = tmp_path / "cache" / "00" / f"{index:064x}.json"
        if entry.exists():
            os.utime(entry, (index, index))

    kept = sum(p.stat().st_size for p in _entries(tmp_path / "cache"))
    assert kept <= 2000
    assert store.read(f"{19:064x}") == {"payload": "x" * 200}
    assert store.read(f"{0:064x}") is None


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
    store = BuildCache(tmp_path / "cache")
    entries = _entries(tmp_path / "cache")
    assert len(entries) == ALL_MODULES
    assert all(store.read(e.stem) is not None for e in entries)
    assert not list((tmp_path / "cache").glob("*/.entry-*"))  # no temporary files left
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    assert build_extension(root).imported == ()
