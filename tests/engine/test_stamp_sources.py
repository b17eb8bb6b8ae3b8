"""The stamp covers what the build reads (issue 23 item 20): linked folders, link
texts and link counts; what it cannot vouch for, and a mismatch found by any other
check, make the build run in full."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.consumer.build import build_agent
from eve_build.engine.stamp import (
    STAMP_FILE,
    Stamp,
    derive_build_fingerprint,
    read_output_state,
    read_stamp,
    write_stamp,
)
from eve_build.extension.build import build_extension
from eve_build.formats.freshness import read_inputs
from tests.conftest import FIXTURES, copy_fixture_tree
from tests.edits import edit_keeping_size_and_mtime

Copy = Callable[[str], Path]


@pytest.fixture
def gizmo(copy_fixture: Copy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    root = copy_fixture("extensions/gizmo")
    (root / "shared").mkdir()
    (root / "shared" / "notes.md").write_text("first\n")
    (root / "extension" / "lib").symlink_to("../shared")
    assert build_extension(root).checked
    return root


def _fingerprint(root: Path) -> str | None:
    inputs = read_inputs(root, "extension")
    return derive_build_fingerprint(inputs, "env") if inputs is not None else None


def test_an_edit_under_a_symlinked_source_folder_is_rebuilt(gizmo: Path) -> None:
    assert build_extension(gizmo).checked is False
    (gizmo / "shared" / "notes.md").write_text("second\n")

    result = build_extension(gizmo)

    assert result.checked is True
    assert (gizmo / "build/eve/gizmo/extension/lib/notes.md").read_text() == "second\n"


def test_re_pointing_a_link_or_adding_a_hard_link_changes_the_fingerprint(gizmo: Path) -> None:
    before = _fingerprint(gizmo)
    (gizmo / "shared2").mkdir()
    (gizmo / "shared2" / "notes.md").write_text("first\n")  # the same bytes behind it
    (gizmo / "extension" / "lib").unlink()
    (gizmo / "extension" / "lib").symlink_to("../shared2")
    repointed = _fingerprint(gizmo)
    os.link(gizmo / "shared2" / "notes.md", gizmo / "elsewhere.md")

    assert None not in (before, repointed)
    assert len({before, repointed, _fingerprint(gizmo)}) == 3


def test_what_the_stamp_cannot_vouch_for_gives_no_fingerprint(gizmo: Path) -> None:
    """A FIFO is never opened for reading (a plain read would wait for a writer) and a
    link out of the package is left to discovery: both give no fingerprint."""
    os.mkfifo(gizmo / "extension" / "pipe")
    done: list[str | None] = []
    walker = threading.Thread(target=lambda: done.append(_fingerprint(gizmo)), daemon=True)
    walker.start()
    walker.join(10)
    assert done == [None]
    (gizmo / "extension" / "pipe").unlink()
    (gizmo / "extension" / "out").symlink_to("/etc")
    assert _fingerprint(gizmo) is None


def test_a_stale_output_found_by_eve_build_discards_the_stamp(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Even a stamp recording the edited state is not trusted once the freshness rule (the
    record's content hashes, formats.freshness) finds the output stale: `eve build`
    rebuilds, not `Built`."""
    monkeypatch.setenv("EVE_CACHE_DIR", str(tmp_path / "cache"))
    root = copy_fixture_tree(FIXTURES / "apps" / "one-mount", tmp_path / "app")
    copy_fixture_tree(FIXTURES / "extensions" / "gizmo", root / "packages" / "gizmo")
    copy_fixture_tree(FIXTURES / "extensions" / "acme-crm", root / "packages" / "acme-crm")
    member = root / "packages" / "acme-crm"
    build_agent(root)
    build_extension(member)  # the stamp in the cache is acme-crm's
    shipped = member / "build/eve/acme_crm/extension/tools/search.py"
    original = edit_keeping_size_and_mtime(shipped)
    stamp = read_stamp(tmp_path / "cache" / STAMP_FILE)
    assert stamp is not None
    write_stamp(tmp_path / "cache", Stamp(
        stamp.fingerprint, read_output_state(member / "build" / "eve"), stamp.files,
        stamp.tools, stamp.requires, stamp.warnings, stamp.digests))

    result = build_agent(root)

    assert {m.name: m.state for m in result.extensions}["acme-crm"] == "built"
    assert shipped.read_bytes() == original
