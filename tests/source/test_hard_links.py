"""Hard links in a source tree (issue 23 item 2): a file with a name outside is refused."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.extension.build import build_extension

Copy = Callable[[str], Path]


def _host_file(tmp_path: Path) -> Path:
    secret = tmp_path / "host" / "shadow"
    secret.parent.mkdir()
    secret.write_text("root:$6$not-for-any-artifact\n")
    secret.chmod(0o600)
    return secret


def _output_bytes(root: Path) -> dict[str, bytes]:
    output = root / "build" / "eve"
    return {p.relative_to(output).as_posix(): p.read_bytes()
            for p in sorted(output.rglob("*")) if p.is_file()}


def test_a_hard_link_to_a_file_outside_is_refused_and_the_output_is_kept(
        copy_fixture: Copy, tmp_path: Path) -> None:
    root = copy_fixture("extensions/gizmo")
    build_extension(root)
    before = _output_bytes(root)
    (root / "extension" / "lib").mkdir()
    os.link(_host_file(tmp_path), root / "extension" / "lib" / "notes.txt")

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    [problem] = caught.value.diagnostics
    assert problem.code == "discover/hard-link-outside"
    assert problem.file == "extension/lib/notes.txt"
    assert "hard link with 1 other name outside the source folder" in problem.message
    assert "cp extension/lib/notes.txt" in problem.hint
    assert _output_bytes(root) == before
    assert not any(b"not-for-any-artifact" in data for data in before.values())


def test_hard_links_between_files_of_the_source_folder_are_allowed(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "lib").mkdir()
    os.link(root / "extension" / "instructions.md", root / "extension" / "lib" / "same.md")

    result = build_extension(root)

    assert "extension/lib/same.md" in " ".join(result.files)


def test_one_name_reached_twice_through_a_folder_link_counts_once(
        copy_fixture: Copy, tmp_path: Path) -> None:
    """`lib2 -> lib` shows `notes.txt` twice; its other name outside still counts."""
    root = copy_fixture("extensions/gizmo")
    (root / "extension" / "lib").mkdir()
    os.link(_host_file(tmp_path), root / "extension" / "lib" / "notes.txt")
    (root / "extension" / "lib2").symlink_to("lib")

    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)

    files = sorted(d.file for d in caught.value.diagnostics
                   if d.code == "discover/hard-link-outside")
    assert files == ["extension/lib/notes.txt", "extension/lib2/notes.txt"]
    assert not (root / "build" / "eve").exists()
