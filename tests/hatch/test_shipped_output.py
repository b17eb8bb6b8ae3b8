"""The hook's wheel ships what was built, not an output edited keeping its size and
mtime (issue 23 item 3): real hatchling `WheelBuilder`."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hatchling.builders.wheel import WheelBuilder

from eve_build.extension_build import build_extension

SPIN = Path("build/eve/gizmo/extension/tools/spin.py")


def edit_keeping_size_and_mtime(path: Path) -> bytes:
    """Swap two bytes' case (same size), then put the mtime back; returns the original."""
    original = path.read_bytes()
    info = path.stat()
    index = original.index(b"def")
    path.write_bytes(original[:index] + b"DEF" + original[index + 3:])
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert path.stat().st_size == info.st_size and path.stat().st_mtime_ns == info.st_mtime_ns
    return original


@pytest.fixture
def gizmo(copy_fixture: Callable[[str], Path], tmp_path: Path,
          monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    root = copy_fixture("extensions/gizmo")
    assert build_extension(root).checked
    return root


def test_the_wheel_ships_what_was_built_not_the_edit(gizmo: Path, tmp_path: Path) -> None:
    original = edit_keeping_size_and_mtime(gizmo / SPIN)

    (wheel,) = WheelBuilder(str(gizmo)).build(directory=str(tmp_path / "w"),
                                              versions=["standard"])

    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("gizmo/extension/tools/spin.py") == original
