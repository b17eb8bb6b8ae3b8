"""`write_tree` hard-links the files that did not change from the output in place and
writes the others; no file of an old output is ever modified, and without hard links it
writes everything."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from eve_build.extension.build import build_extension
from eve_build.formats import writer
from eve_build.formats.writer import link_if_equal, write_tree

Copy = Callable[[str], Path]

OLD = {"a.txt": b"alpha", "b.txt": b"bravo", "sub/c.txt": b"charlie", "gone.txt": b"x"}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def inodes(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(folder).as_posix(): (p.lstat().st_dev, p.lstat().st_ino)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_unchanged_files_are_linked_and_changed_ones_written(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_tree(target, OLD)
    before = inodes(target)
    new = {"a.txt": b"alpha", "b.txt": b"BRAVO", "sub/c.txt": b"charlie", "d.txt": b"delta"}
    write_tree(target, new)  # b.txt: the same size, other bytes
    after = inodes(target)
    assert snapshot(target) == new
    assert after["a.txt"] == before["a.txt"]
    assert after["sub/c.txt"] == before["sub/c.txt"]
    assert after["b.txt"] != before["b.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert (target / "a.txt").stat().st_nlink == 1  # the previous output is gone


def test_a_reader_of_the_old_output_keeps_its_bytes_across_rebuilds(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_tree(target, OLD)
    with (target / "a.txt").open("rb") as kept, (target / "b.txt").open("rb") as edited:
        write_tree(target, {**OLD, "b.txt": b"bravo, edited"})  # a.txt linked, b.txt written
        write_tree(target, {**OLD, "a.txt": b"alpha, edited"})  # now a.txt is written
        assert kept.read() == b"alpha"
        assert edited.read() == b"bravo"
    assert snapshot(target) == {**OLD, "a.txt": b"alpha, edited"}


def test_a_second_name_for_a_linked_file_gets_a_new_file(tmp_path: Path) -> None:
    # two spellings of one file (as on a case-insensitive filesystem): the second write
    # replaces the linked name by a new file, it never writes into the old output's file
    target = tmp_path / "out"
    write_tree(target, {"a.txt": b"alpha", "sub/keep.txt": b"k"})
    with (target / "a.txt").open("rb") as reader:
        write_tree(target, {"a.txt": b"alpha", "sub/../a.txt": b"other", "sub/keep.txt": b"k"})
        assert reader.read() == b"alpha"
    assert (target / "a.txt").read_bytes() == b"other"


def test_an_edited_tool_is_written_and_the_rest_linked(copy_fixture: Copy) -> None:
    root = copy_fixture("extensions/gizmo")
    build_extension(root)
    output = root / "build" / "eve"
    before, old = inodes(output), snapshot(output)
    [copied] = [k for k in old if k.endswith("/extension/tools/spin.py")]
    spin = root / "extension" / "tools" / "spin.py"
    with (output / copied).open("rb") as reader:
        spin.write_text(spin.read_text() + "\n# edited\n")
        assert build_extension(root).written
        assert reader.read() == old[copied]  # a reader of the old copy keeps the old bytes
    after = inodes(output)
    assert set(after) == set(before)
    changed = {k for k in after if after[k] != before[k]}
    assert changed == {"gizmo/extension/tools/spin.py", "gizmo/extension/_manifest.json",
                       ".eve-freshness.json"}  # the freshness record names the new hash
    assert snapshot(output)[copied] == spin.read_bytes()


@pytest.mark.parametrize("failure", [OSError(errno.EXDEV, "cross-device link"),
                                     OSError(errno.EPERM, "not permitted"),
                                     OSError(errno.EMLINK, "too many links"),
                                     NotImplementedError("no follow_symlinks here")])
def test_files_are_written_when_linking_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException) -> None:
    target = tmp_path / "out"
    write_tree(target, OLD)
    before = inodes(target)

    def refuse(*args: object, **kwargs: object) -> None:
        raise failure

    monkeypatch.setattr(os, "link", refuse)
    write_tree(target, OLD)
    after = inodes(target)
    assert snapshot(target) == OLD
    assert all(after[k] != before[k] for k in OLD)


def test_links_never_reach_outside_the_output(tmp_path: Path) -> None:
    # an output holding symlinks (put there by hand) to files with the same bytes: the
    # new output gets files of its own, sharing no inode with a file outside it
    outside = tmp_path / "elsewhere"
    (outside / "sub").mkdir(parents=True)
    (outside / "a.txt").write_bytes(b"alpha")
    (outside / "sub" / "c.txt").write_bytes(b"charlie")
    target = tmp_path / "out"
    write_tree(target, OLD)
    (target / "a.txt").unlink()
    (target / "a.txt").symlink_to(outside / "a.txt")
    (target / "sub" / "c.txt").unlink()
    (target / "sub").rmdir()
    (target / "sub").symlink_to(outside / "sub")
    write_tree(target, OLD)
    assert snapshot(target) == OLD
    assert not (target / "a.txt").is_symlink() and not (target / "sub").is_symlink()
    found = inodes(target)
    assert found["a.txt"] != inodes(outside)["a.txt"]
    assert found["sub/c.txt"] != inodes(outside)["sub/c.txt"]


def test_a_link_to_a_file_with_other_bytes_is_undone(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_bytes(b"bravo")
    staged = tmp_path / "staged.txt"
    assert not link_if_equal(str(tmp_path / "old.txt"), str(staged), b"BRAVO")
    assert not staged.exists()
    assert link_if_equal(str(tmp_path / "old.txt"), str(staged), b"bravo")
    assert staged.stat().st_ino == (tmp_path / "old.txt").stat().st_ino


def test_write_staging_counts_what_it_linked(tmp_path: Path) -> None:
    write_tree(tmp_path / "out", OLD)
    staging = tmp_path / "staging"
    staging.mkdir()
    linked = writer.write_staging(staging, {**OLD, "b.txt": b"other"}, tmp_path / "out")
    assert linked == len(OLD) - 1
    assert snapshot(staging) == {**OLD, "b.txt": b"other"}
