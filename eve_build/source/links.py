"""Hard links in a source tree: a file with other names must have them all in the tree.

A hard link is a second name for the same file, with nothing to tell which name is
the original. `ln /root/shadow-copy extension/lib/notes.txt` (root may link any file;
a user may where `fs.protected_hardlinks` is off) would ship a host file in the
output, the wheel and the sdist. Finding a file's other names would mean searching
the whole filesystem, so the rule is decided from what the walk sees:

- a regular file whose link count (`st_nlink`) is 1 is the package's own;
- a file with a higher count is accepted only when the walk met that many distinct
  names of it (by their real path, so a symlink or a linked folder leading to the
  same name twice counts once); otherwise it is refused with its path named,
  `discover/hard-link-outside`.

So hard links between two files of the source folder stay allowed; one to anything
outside it, or to a file elsewhere in the project, is not (docs/decisions.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from eve_build.diagnostics import Diagnostic, error
from eve_build.source.tree import HardLink


def find_outside_hard_links(found: Iterable[tuple[str, HardLink]],
                            shown: Callable[[str], str]) -> list[Diagnostic]:
    """`(relative path, its hard link)` of every multiply-linked file the walk met ->
    an error for each whose names are not all among them."""
    names: dict[tuple[int, int], set[str]] = defaultdict(set)
    paths: dict[tuple[int, int], list[tuple[str, int]]] = defaultdict(list)
    for relative, link in found:
        names[link.inode].add(link.real)
        paths[link.inode].append((relative, link.count))
    problems: list[Diagnostic] = []
    for inode, entries in paths.items():
        for relative, count in entries:
            if len(names[inode]) >= count:
                continue
            others = count - len(names[inode])
            problems.append(error(
                "discover/hard-link-outside", shown(relative),
                f"`{shown(relative)}` is a hard link with {others} other "
                f"name{'s' if others > 1 else ''} outside the source folder, so it may be "
                "another file of this machine; eve-build does not ship it",
                f"remove it, or replace it with a copy of its own: `cp "
                f"{shown(relative)} {shown(relative)}.new && mv {shown(relative)}.new "
                f"{shown(relative)}`",
            ))
    return problems
