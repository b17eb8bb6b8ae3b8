"""Discovery and the trust hash, in memory (MemoryTree): names, skips, order, content."""

from __future__ import annotations

from pathlib import Path

from eve_build.local.discovery import discover_folder
from eve_build.local.trust import derive_content_hash
from eve_build.source.tree import MemoryTree

BASE = Path("/home/me/.eve/extensions")


def discover(files: dict[str, str]) -> list[tuple[str, bool, tuple[str, ...]]]:
    found = discover_folder(BASE, "global", "~/.eve/extensions", MemoryTree(files))
    return [(c.name, c.package, tuple(d.code for d in c.problems)) for c in found]


def test_scripts_and_folders_sorted_and_private_files_skipped() -> None:
    assert discover({
        "zeta.py": "", "alpha/extension.py": "", "alpha/helpers.py": "", "_shared.py": "",
        ".hidden.py": "", "README.md": "", "__pycache__/zeta.cpython-311.pyc": "",
    }) == [("alpha", True, ()), ("zeta", False, ())]


def test_a_candidate_points_at_its_module_and_folder() -> None:
    (script, folder) = discover_folder(BASE, "global", "~/.eve/extensions", MemoryTree(
        {"notes/extension.py": "", "jot.py": ""}))
    assert (folder.name, folder.file, folder.folder, folder.shown) == (
        "notes", BASE / "notes" / "extension.py", BASE / "notes",
        "~/.eve/extensions/notes/extension.py")
    assert (script.name, script.file, script.folder) == ("jot", BASE / "jot.py", BASE)


def test_bad_names_and_a_folder_without_its_module_are_diagnostics() -> None:
    assert discover({"Notes.py": "", "my__notes.py": "", "empty/README.md": ""}) == [
        ("Notes", False, ("local/name-invalid",)), ("empty", True,
                                                    ("local/extension-module-missing",)),
        ("my__notes", False, ("local/name-invalid",))]


def test_a_missing_folder_has_no_extensions() -> None:
    assert discover_folder(BASE / "missing", "global", "x", MemoryTree({})) == []


def test_the_hash_changes_with_any_name_or_byte_and_ignores_bytecode() -> None:
    files = {"notes.py": "x = 1\n", "lib/helpers.py": "y = 2\n"}
    digest, names = derive_content_hash(MemoryTree(files))
    assert names == ("lib/helpers.py", "notes.py")
    assert derive_content_hash(MemoryTree({**files, "__pycache__/notes.pyc": "\0",
                                           "lib/helpers.pyc": "\0"}))[0] == digest
    assert derive_content_hash(MemoryTree({**files, "notes.py": "x = 2\n"}))[0] != digest
    assert derive_content_hash(MemoryTree({**files, "new.txt": ""}))[0] != digest
    assert derive_content_hash(MemoryTree({"notes.py": "x = 1\n"}))[0] != digest
    moved = {"notes.py": "x = 1\n", "lib/helper.py": "y = 2\n"}
    assert derive_content_hash(MemoryTree(moved))[0] != digest
