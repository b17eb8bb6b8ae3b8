"""The state of one walk over a source tree: where it is, how it is shown, what it found.

A walk reads only through a `SourceTree` (STYLE R7): no disk access happens here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from eve_build import slots
from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.naming import find_segment_problems, suggest_segment
from eve_build.source.links import find_outside_hard_links
from eve_build.source.tree import HardLink, SourceTree, TreeEntry, join
from eve_build.userfile import FILE_HINT


@dataclass(frozen=True)
class Node:
    """An entry with its relative POSIX path from the source root."""

    path: str
    entry: TreeEntry

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def is_file(self) -> bool:
        return self.entry.kind == "file"

    @property
    def is_dir(self) -> bool:
        return self.entry.kind == "dir"

    @property
    def suffix(self) -> str:
        return _split_suffix(self.name)[1]

    @property
    def stem(self) -> str:
        return _split_suffix(self.name)[0]

    def child(self, name: str) -> str:
        return join(self.path, name)


def _split_suffix(name: str) -> tuple[str, str]:
    """(stem, suffix) as PurePosixPath gives them, without building a path (hot: every
    entry of a 1000-module tree asks several times)."""
    dot = name.rfind(".")
    return (name[:dot], name[dot:]) if 0 < dot < len(name) - 1 else (name, "")


@dataclass
class Walk:
    tree: SourceTree
    display: str  # how the source root is shown in diagnostics ("extension/")
    found: list[Diagnostic] = field(default_factory=list)
    qualified: bool = False  # agent trees: `<ns>__<name>` modules are overrides, not errors

    def shown(self, path: str) -> str:
        return f"{self.display}{path}"

    def entries(self, directory: str) -> list[Node]:
        """Sorted entries that are not ignored (caches, tests, dotfiles); broken symlinks
        and folders nested past MAX_DEPTH are reported and left out."""
        if directory.count("/") >= MAX_DEPTH:
            self.found.append(error(
                "discover/tree-too-deep", self.shown(directory),
                f"`{self.shown(directory)}` is nested more than {MAX_DEPTH} folders deep; "
                "eve-build does not look inside", "flatten the folder tree"))
            return []
        nodes = [
            Node(join(directory, entry.name), entry)
            for entry in self.tree.entries(directory)
            if not slots.is_ignored(entry.name, is_dir=entry.kind == "dir")
        ]
        for node in nodes:
            if node.entry.broken is not None:
                self.found.append(derive_broken_link(self, node))
            elif node.entry.special is not None:
                self.found.append(derive_special_file(self, node))
        return [node for node in nodes
                if node.entry.broken is None and node.entry.special is None]

    def children(self, directory: str) -> list[Node]:
        """Sorted entries that discovery looks at; symlinks leaving the package are skipped."""
        return [node for node in self.entries(directory) if not node.entry.leaves_package]

    def check_segment(self, node: Node, segment: str) -> bool:
        problems = find_segment_problems(segment)
        for problem in problems:
            self.found.append(error(
                "discover/name-invalid", self.shown(node.path), problem,
                f"rename it to `{suggest_segment(segment)}"
                f"{node.suffix if node.is_file else ''}`",
            ))
        return not problems


MAX_DEPTH = 100
"""How deep discovery follows folders (a deeper tree is reported, not walked)."""


def derive_broken_link(walk: Walk, node: Node) -> Diagnostic:
    shown = walk.shown(node.path)
    if node.entry.broken == "loop":
        return warning("discover/symlink-broken", shown,
                       f"`{shown}` is a symlink that loops (to `{node.entry.link}`); it is "
                       "skipped", "remove the link, or point it at a file or folder that "
                       "does not contain it")
    return warning("discover/symlink-broken", shown,
                   f"`{shown}` is a symlink to `{node.entry.link}`, which does not exist; it "
                   "is skipped", "remove the link, or create what it points to")


def derive_special_file(walk: Walk, node: Node) -> Diagnostic:
    return describe_special_entry(walk.shown(node.path), node.entry)


def describe_special_entry(shown: str, entry: TreeEntry) -> Diagnostic:
    """`source/special-file` for an entry that is a FIFO, a device or a socket."""
    via = f" (a symlink to `{entry.link}`)" if entry.link else ""
    return error("source/special-file", shown,
                 f"`{shown}`{via} is {entry.special}, not a regular file; eve-build "
                 "does not read it (it could block or never end)", FILE_HINT)


def discover_files(walk: Walk) -> list[str]:
    """Every file the output ships, sorted; reports symlinks that leave the package and
    hard links with names outside the tree (`eve_build.source.links`)."""
    files: list[str] = []
    linked: list[tuple[str, HardLink]] = []

    def visit(directory: str) -> None:
        for node in walk.entries(directory):
            if node.entry.leaves_package:
                walk.found.append(error(
                    "discover/path-outside-package", walk.shown(node.path),
                    f"`{walk.shown(node.path)}` is a symlink to `{node.entry.link}`, outside "
                    "the package, so the build and the wheel cannot ship it",
                    "copy the file into the package, or make the link point inside it",
                ))
                continue
            if node.is_dir:
                visit(node.path)
            elif node.is_file:
                files.append(node.path)
                if node.entry.hard_link is not None:
                    linked.append((node.path, node.entry.hard_link))

    visit("")
    if linked:
        refused = find_outside_hard_links(linked, walk.shown)
        walk.found.extend(refused)
        dropped = {d.file for d in refused}
        files = [path for path in files if walk.shown(path) not in dropped]
    return files
