"""The SourceTree seam: the disk and memory trees read the same tree the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from eve_build.source.discover import discover_source, discover_tree
from eve_build.source.tree import DiskTree, MemoryTree, SourceTree, TreeEntry

FILES = {
    "extension.py": "extension = 1\n", "tools/search.py": "", "lib/http.py": "get\n",
    "skills/triage/SKILL.md": "---\ndescription: x\n---\n", ".hidden": "",
}


def _links(outside: Path) -> dict[str, str]:
    return {
        "tools/alias.py": "search.py",  # inside, to a file
        "shared": "lib",  # inside, to a folder
        "lib/up.py": "../../../outside.txt",  # climbs out of the package
        "lib/abs.py": str(outside),  # absolute, out of the package
    }


def _trees(tmp_path: Path) -> tuple[DiskTree, MemoryTree]:
    package = tmp_path / "package"
    root = package / "extension"
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    for relative, text in FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    links = _links(outside)
    for relative, target in links.items():
        (root / relative).symlink_to(target)
    return DiskTree(root, package), MemoryTree(FILES, links)


def _listing(tree: SourceTree, directory: str = "") -> dict[str, list[TreeEntry]]:
    found = {directory: tree.entries(directory)}
    for entry in found[directory]:
        if entry.kind == "dir" and not entry.leaves_package:
            child = f"{directory}/{entry.name}" if directory else entry.name
            found.update(_listing(tree, child))
    return found


def test_disk_and_memory_list_the_same_entries(tmp_path: Path) -> None:
    disk, memory = _trees(tmp_path)

    assert _listing(disk) == _listing(memory)
    assert [e.name for e in memory.entries("")] == [
        ".hidden", "extension.py", "lib", "shared", "skills", "tools"]
    assert memory.entries("tools") == [
        TreeEntry("alias.py", "file", link="search.py"), TreeEntry("search.py", "file")]


def test_links_leaving_the_package_are_flagged_in_both(tmp_path: Path) -> None:
    disk, memory = _trees(tmp_path)

    for tree in (disk, memory):
        leaving = {e.name: e.link for e in tree.entries("lib") if e.leaves_package}
        assert leaving == {"abs.py": str(tmp_path / "outside.txt"),
                           "up.py": "../../../outside.txt"}
        # through a link to a folder, the links in it still leave
        assert [e.leaves_package for e in tree.entries("shared")] == [True, False, True]


@pytest.mark.parametrize("relative", ["extension.py", "shared/http.py", "tools/alias.py",
                                      "lib", "shared", "", "missing.py"])
def test_disk_and_memory_answer_the_same_reads(tmp_path: Path, relative: str) -> None:
    disk, memory = _trees(tmp_path)

    assert disk.is_file(relative) == memory.is_file(relative)
    assert disk.is_dir(relative) == memory.is_dir(relative)
    if memory.is_file(relative):
        assert disk.read_text(relative) == memory.read_text(relative)


def test_memory_tree_refuses_reads_outside_it() -> None:
    tree = MemoryTree({"a.txt": "a"}, {"b.txt": "/etc/passwd"})

    with pytest.raises(FileNotFoundError):
        tree.read_text("b.txt")
    with pytest.raises(FileNotFoundError):
        tree.entries("nowhere")


def test_discovery_reports_leaving_links_the_same_way(tmp_path: Path) -> None:
    disk, memory = _trees(tmp_path)

    on_disk = discover_source(disk.root, display="extension/", package_root=disk.package_root)
    in_memory = discover_tree(memory, display="extension/")

    assert on_disk == in_memory
    layout, found = in_memory
    assert sorted((d.code, d.file) for d in found) == [
        ("discover/path-outside-package", "extension/lib/abs.py"),
        ("discover/path-outside-package", "extension/lib/up.py"),
        ("discover/path-outside-package", "extension/shared/abs.py"),
        ("discover/path-outside-package", "extension/shared/up.py"),
    ]
    assert "symlink to `../../../outside.txt`" in found[-1].message
    assert "shared/http.py" in layout.files
    assert [m.path for m in layout.tree.modules] == ["tools/alias.py", "tools/search.py"]
