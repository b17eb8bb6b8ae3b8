"""Class 3: the output is always the old one or the new one, whole; builds never write
into their own sources."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.errors import DiagnosticsError
from eve_build.extension.build import build_extension
from eve_build.formats.writer import recover_target, write_tree

Copy = Callable[[str], Path]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_build_symlink_into_the_sources_is_refused(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    before = snapshot(root / "extension")
    (root / "build").symlink_to("extension")  # build/eve would be extension/eve
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)
    [found] = caught.value.diagnostics
    assert found.code == "project/option-invalid"
    assert "leads through a symlink to" in found.message
    assert snapshot(root / "extension") == before


def test_an_output_symlink_to_the_package_root_is_refused(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    (root / "build").mkdir()
    (root / "build" / "eve").symlink_to("..")  # the package root itself
    with pytest.raises(DiagnosticsError) as caught:
        build_extension(root)
    assert [d.code for d in caught.value.diagnostics] == ["project/option-invalid"]
    assert (root / "pyproject.toml").is_file()


def test_a_missing_output_is_restored_from_the_previous_folder(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    build_extension(root)
    output = root / "build" / "eve"
    old = snapshot(output)
    # a build killed between the two renames of its swap leaves exactly this:
    output.replace(root / "build" / ".eve.previous-0badf00d")
    (root / "build" / ".eve.staging-1234").mkdir()
    (root / "extension" / "tools" / "broken.py").write_text("this is not python\n")
    with pytest.raises(DiagnosticsError):
        build_extension(root)  # even a failing build repairs first
    assert snapshot(output) == old
    assert sorted(p.name for p in (root / "build").iterdir()) == [".eve-cache", "eve"]


def test_leftover_staging_and_previous_folders_are_cleaned(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_tree(target, {"a.txt": b"old"})
    (tmp_path / ".out.staging-dead").mkdir()
    (tmp_path / ".out.staging-dead" / "half.txt").write_bytes(b"ha")
    (tmp_path / ".out.previous-dead").mkdir()
    write_tree(target, {"a.txt": b"new"})
    assert snapshot(target) == {"a.txt": b"new"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_recovery_keeps_an_output_that_is_in_place(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_tree(target, {"a.txt": b"current"})
    (tmp_path / ".out.previous-old").mkdir()
    assert recover_target(target) == ["removed .out.previous-old"]
    assert snapshot(target) == {"a.txt": b"current"}


def test_concurrent_writers_take_turns_and_leave_one_whole_tree(tmp_path: Path) -> None:
    target = tmp_path / "out"
    trees = [{f"f{n:03d}.txt": bytes([writer]) * 64 for n in range(200)} for writer in range(4)]
    errors: list[BaseException] = []

    def write(files: dict[str, bytes]) -> None:
        try:
            write_tree(target, files)
        except BaseException as exc:  # collected: the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(files,)) for files in trees]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert snapshot(target) in trees
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
