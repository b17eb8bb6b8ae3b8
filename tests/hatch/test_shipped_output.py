"""The hook's wheel ships what was built, not an output edited keeping its size and
mtime (issue 23 item 3): real hatchling `WheelBuilder`."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hatchling.builders.wheel import WheelBuilder

from eve_build.extension.build import build_extension
from tests.edits import SPIN, edit_keeping_size_and_mtime


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
