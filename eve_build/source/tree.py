"""The seam discovery reads through: a source tree on disk or in memory (STYLE R7).

Paths are relative POSIX strings from the tree root, `""` being the root itself.
Entries come back sorted by name, whatever the tree, so walks are deterministic.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from eve_build.userfile import describe_special, read_user_bytes, read_user_text

EntryKind = Literal["file", "dir"]


@dataclass(frozen=True)
class TreeEntry:
    """One name in a directory. `link` is the symlink text, when the entry is one."""

    name: str
    kind: EntryKind
    link: str | None = None
    leaves_package: bool = False  # a link whose target lies outside the package
    broken: str | None = None  # why a link cannot be followed: "loop" or "dangling"
    hard_link: HardLink | None = None  # set only for a regular file with other names
    special: str | None = None  # "a FIFO (named pipe)", "a character device": never read


@dataclass(frozen=True)
class HardLink:
    """A regular file whose inode has more than one name (`st_nlink > 1`).

    The walk accepts it only when it saw every one of those names inside the tree
    (`eve_build.source.links`): another name elsewhere may be a root-only host file.
    """

    inode: tuple[int, int]  # (st_dev, st_ino)
    count: int  # st_nlink
    real: str  # the entry's path with every symlink resolved (one name, however reached)


class SourceTree(Protocol):
    """The few reads discovery needs."""

    def entries(self, relative: str) -> list[TreeEntry]: ...

    def is_file(self, relative: str) -> bool: ...

    def is_dir(self, relative: str) -> bool: ...

    def read_text(self, relative: str) -> str: ...

    def read_bytes(self, relative: str) -> bytes: ...


def join(directory: str, name: str) -> str:
    """`directory/name`, where `""` is the root."""
    return f"{directory}/{name}" if directory else name


class DiskTree:
    """A directory on disk; symlinks resolving outside `package_root` leave the package."""

    def __init__(self, root: Path, package_root: Path) -> None:
        self.root = root
        self.package_root = package_root
        self._resolved: Path | None = None

    def _path(self, relative: str) -> Path:
        return self.root / relative if relative else self.root

    def entries(self, relative: str) -> list[TreeEntry]:
        """Read with os.scandir: the entry's type comes with the listing, so a plain file
        or folder costs no further system call (1000-tool trees are walked on every build)."""
        found: list[TreeEntry] = []
        with os.scandir(self._path(relative)) as listing:
            items = sorted(listing, key=lambda item: item.name)
        for item in items:
            link = leaves = None
            if item.is_symlink():
                path = Path(item.path)
                link = str(path.readlink())
                broken = find_broken_link(path)
                if broken is not None:
                    found.append(TreeEntry(item.name, "file", link, broken=broken))
                    continue
                leaves = not path.resolve().is_relative_to(self._package())
            if item.is_dir():
                found.append(TreeEntry(item.name, "dir", link, bool(leaves)))
            elif leaves and item.is_file():
                found.append(TreeEntry(item.name, "file", link, True))
            elif item.is_file():
                found.append(TreeEntry(item.name, "file", link, hard_link=_hard_link(item)))
            else:  # a FIFO, a device, a socket (or a link to one, `/dev/zero`): never read
                found.append(TreeEntry(item.name, "file", link, bool(leaves),
                                       special=_special(item)))
        return found

    def _package(self) -> Path:
        if self._resolved is None:
            self._resolved = self.package_root.resolve()
        return self._resolved

    def is_file(self, relative: str) -> bool:
        return self._path(relative).is_file()

    def is_dir(self, relative: str) -> bool:
        return self._path(relative).is_dir()

    def read_text(self, relative: str) -> str:
        return read_user_text(self._path(relative), what="source file")

    def read_bytes(self, relative: str) -> bytes:
        return read_user_bytes(self._path(relative), what="source file").data


def _special(item: os.DirEntry[str]) -> str:
    try:
        return describe_special(item.stat().st_mode) or "not a regular file"
    except OSError:
        return "not a regular file"


def _hard_link(item: os.DirEntry[str]) -> HardLink | None:
    """The file's other names, when it has any (one stat per file: ~1 µs)."""
    try:
        info = item.stat()
    except OSError:
        return None
    if info.st_nlink < 2:
        return None
    return HardLink((info.st_dev, info.st_ino), info.st_nlink, os.path.realpath(item.path))


def find_broken_link(path: Path) -> str | None:
    """"loop" for a link that loops or leads to its own ancestor, "dangling" for one that
    points to nothing, None for a link that can be followed."""
    try:
        target = path.resolve(strict=True)
    except FileNotFoundError:
        return "dangling"
    except (RuntimeError, OSError):  # RuntimeError: Python's "Symlink loop"; ELOOP
        return "loop"
    if target.is_dir() and path.parent.resolve().is_relative_to(target):
        return "loop"  # a folder link to an ancestor: walking it would never end
    return None


class MemoryTree:
    """Files held as `{relative path: text}`, links as `{relative path: target}`.

    A link target is read from the link's folder, as on disk. One starting with `/`,
    or climbing above the root with `..`, leaves the package and is listed as a file.
    """

    def __init__(self, files: Mapping[str, str], links: Mapping[str, str] | None = None) -> None:
        self.files = dict(files)
        self.links = dict(links or {})
        self._dirs = {""}
        for path in [*self.files, *self.links]:
            parent = posixpath.dirname(path)
            while parent not in self._dirs:
                self._dirs.add(parent)
                parent = posixpath.dirname(parent)

    def _target(self, link: str) -> str | None:
        """Where the link at `link` points, from the root; None when it leaves the package."""
        target = self.links[link]
        if target.startswith("/"):
            return None
        joined = posixpath.normpath(join(posixpath.dirname(link), target))
        if joined == ".." or joined.startswith("../"):
            return None
        return "" if joined == "." else joined

    def _resolve(self, relative: str, depth: int = 0) -> str | None:
        """`relative` with every link on the way followed; None when one leaves."""
        if depth > 40:
            return None  # a link loop
        parts = [p for p in relative.split("/") if p]
        for index in range(len(parts)):
            prefix = "/".join(parts[: index + 1])
            if prefix in self.links:
                target = self._target(prefix)
                if target is None:
                    return None
                rest = "/".join(parts[index + 1:])
                return self._resolve(join(target, rest) if rest else target, depth + 1)
        return "/".join(parts)

    def entries(self, relative: str) -> list[TreeEntry]:
        directory = self._resolve(relative)
        if directory is None or directory not in self._dirs:
            raise FileNotFoundError(relative)
        names = {
            path[len(directory) + 1:].split("/")[0] if directory else path.split("/")[0]
            for path in [*self.files, *self.links, *self._dirs]
            if path and (not directory or path.startswith(f"{directory}/"))
        }
        found: list[TreeEntry] = []
        for name in sorted(names):
            path = join(directory, name)
            link = self.links.get(path)
            if link is not None and self._target(path) is None:
                found.append(TreeEntry(name, "file", link, leaves_package=True))
            elif self.is_dir(path):
                found.append(TreeEntry(name, "dir", link))
            elif self.is_file(path):
                found.append(TreeEntry(name, "file", link))
        return found

    def is_file(self, relative: str) -> bool:
        return self._resolve(relative) in self.files

    def is_dir(self, relative: str) -> bool:
        return self._resolve(relative) in self._dirs

    def read_text(self, relative: str) -> str:
        resolved = self._resolve(relative)
        if resolved is None or resolved not in self.files:
            raise FileNotFoundError(relative)
        return self.files[resolved]

    def read_bytes(self, relative: str) -> bytes:
        return self.read_text(relative).encode()
