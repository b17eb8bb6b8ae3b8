"""isolated_package and the host's sys.path entries, with two open at once (two agents
in one process) closed in either order: nothing of a closed one comes back, nothing of
the open one is taken away."""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from eve_build.load.importer import isolated_package
from eve_build.runtime.modules import ModuleScope

TOP = "eve_isolation_probe"


def _entries() -> dict[str, str]:
    """The probe package's entries in sys.modules, by name: where each came from."""
    return {k: str(getattr(v, "WHO", getattr(v, "__path__", ["?"])[0]))
            for k, v in sys.modules.items() if k == TOP or k.startswith(f"{TOP}.")}


@pytest.fixture
def sources(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """Two source folders, `a` and `b`, each with a module `probe` saying which it is."""
    found = {}
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "probe.py").write_text(f"WHO = {name!r}\n")
        found[name] = folder
    yield found
    for key in [k for k in sys.modules if k == TOP or k.startswith(f"{TOP}.")]:
        del sys.modules[key]


def _open(source: Path) -> contextlib.AbstractContextManager[None]:
    isolation = isolated_package(TOP, source)
    isolation.__enter__()
    importlib.import_module(f"{TOP}.probe")
    return isolation


def _close(isolation: contextlib.AbstractContextManager[None]) -> None:
    isolation.__exit__(None, None, None)


def test_closing_the_newer_first_gives_back_the_older(sources: dict[str, Path]) -> None:
    a = _open(sources["a"])
    b = _open(sources["b"])
    assert _entries() == {TOP: str(sources["b"]), f"{TOP}.probe": "b"}
    _close(b)
    assert _entries() == {TOP: str(sources["a"]), f"{TOP}.probe": "a"}
    _close(a)
    assert _entries() == {}


def test_closing_the_older_first_leaves_the_newer_and_never_brings_it_back(
        sources: dict[str, Path]) -> None:
    a = _open(sources["a"])
    b = _open(sources["b"])
    _close(a)
    assert _entries() == {TOP: str(sources["b"]), f"{TOP}.probe": "b"}
    _close(b)
    assert _entries() == {}


def test_what_was_there_before_both_comes_back_in_either_order(
        sources: dict[str, Path], tmp_path: Path) -> None:
    before = (tmp_path / "before")
    before.mkdir()
    (before / "probe.py").write_text("WHO = 'before'\n")
    outer = _open(before)
    a = _open(sources["a"])
    b = _open(sources["b"])
    _close(a)
    _close(b)
    assert _entries() == {TOP: str(before), f"{TOP}.probe": "before"}
    _close(outer)
    assert _entries() == {}


def test_a_folder_two_hosts_put_on_sys_path_stays_until_both_close(tmp_path: Path) -> None:
    before = list(sys.path)
    first, second = ModuleScope(), ModuleScope()
    first.add_paths([tmp_path])
    second.add_paths([tmp_path])
    first.close()
    assert sys.path[0] == str(tmp_path.resolve())
    second.close()
    assert sys.path == before


def test_a_folder_on_sys_path_before_any_host_stays(tmp_path: Path) -> None:
    sys.path.append(str(tmp_path.resolve()))
    try:
        scope = ModuleScope()
        scope.add_paths([tmp_path])
        scope.close()
        assert str(tmp_path.resolve()) in sys.path
    finally:
        sys.path.remove(str(tmp_path.resolve()))
