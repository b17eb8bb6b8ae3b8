"""`eve extension pack` (real `python -m build`) ships what was built, not an output
edited keeping its size and mtime (issue 23 item 3)."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.extension.build import build_extension
from eve_build.hatch.pack import pack_extension
from tests.edits import SPIN, edit_keeping_size_and_mtime

pytestmark = pytest.mark.integration


def test_pack_ships_the_built_bytes_after_an_edit_keeping_size_and_mtime(
        copy_fixture: Callable[[str], Path], tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    build_extension(root)
    original = edit_keeping_size_and_mtime(root / SPIN)

    result = pack_extension(root, outdir=tmp_path / "dist", isolation=False)

    with zipfile.ZipFile(result.wheel.path) as archive:
        assert archive.read("gizmo/extension/tools/spin.py") == original
    assert (root / SPIN).read_bytes() == original
