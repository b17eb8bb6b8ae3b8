"""An output edited keeping its size and mtime (issue 23 item 3) is never shipped or
trusted: the stamp sees the change time, and packing compares content hashes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from eve_build.engine.stamp import STAMP_FILE, Stamp, read_stamp, write_stamp
from eve_build.extension.build import build_extension
from eve_build.extension.shipping import find_output_unlike_build
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.edits import SPIN, edit_keeping_size_and_mtime

Copy = Callable[[str], Path]
@pytest.fixture
def gizmo(copy_fixture: Copy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    root = copy_fixture("extensions/gizmo")
    assert build_extension(root).checked
    return root


def test_eve_extension_build_rebuilds_an_output_edited_keeping_size_and_mtime(
        gizmo: Path) -> None:
    original = edit_keeping_size_and_mtime(gizmo / SPIN)

    result = build_extension(gizmo)

    assert result.checked and result.written
    assert (gizmo / SPIN).read_bytes() == original


def test_a_stamp_whose_hashes_do_not_hold_is_not_trusted_for_packing(
        gizmo: Path, tmp_path: Path) -> None:
    """Even a stamp that records the edited file's very size, times and inode (as if the
    edit came before the stamp was written) is checked by content before packing."""
    original = edit_keeping_size_and_mtime(gizmo / SPIN)
    stamp_path = tmp_path / "cache" / STAMP_FILE
    stamp = read_stamp(stamp_path)
    assert stamp is not None
    from eve_build.engine.stamp import read_output_state

    write_stamp(stamp_path.parent, Stamp(stamp.fingerprint, read_output_state(
        gizmo / "build" / "eve"), stamp.files, stamp.tools, stamp.requires, stamp.warnings,
        stamp.digests))
    assert build_extension(gizmo).checked is False  # an ordinary build trusts that stamp

    packed = build_extension(gizmo, verify=True)

    assert packed.checked and (gizmo / SPIN).read_bytes() == original
    assert find_output_unlike_build(packed) == []


def test_an_output_changed_after_its_build_is_refused_for_packing(gizmo: Path) -> None:
    result = build_extension(gizmo, use_cache=False)
    edit_keeping_size_and_mtime(gizmo / SPIN)

    [problem] = find_output_unlike_build(result)

    assert problem.code == "pack/output-edited"
    assert problem.file == "build/eve/gizmo/extension/tools/spin.py"
    assert "differs from what its build wrote" in problem.message


def test_eve_build_rebuilds_a_member_output_edited_keeping_size_and_mtime(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVE_CACHE_DIR", raising=False)
    root = copy_fixture_tree(FIXTURES / "apps" / "one-mount", tmp_path / "app")
    for name in ("acme-crm", "gizmo"):
        copy_fixture_tree(FIXTURES / "extensions" / name, root / "packages" / name)
    build_agent(root)
    shipped = root / "packages" / "acme-crm" / "build/eve/acme_crm/extension/tools/search.py"
    original = edit_keeping_size_and_mtime(shipped)

    result = build_agent(root)

    assert {m.name: m.state for m in result.extensions}["acme-crm"] == "built"
    assert shipped.read_bytes() == original
