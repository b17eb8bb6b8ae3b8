"""What hatchling is about to pack must be the project's own files.

hatchling follows symlinks and takes any path its options name: a symlink
`extension/lib/users.txt -> /etc/passwd`, `force-include = {"/etc/passwd" = ...}` or
`only-include` of a folder elsewhere would put a host file in the sdist or the
wheel. The `eve` hook asks hatchling for the files of the target it runs for
(`recurse_included_files`, which applies `include`, `exclude`, `only-include`,
`force-include` and `.gitignore` exactly as the build will) and refuses, with each
path named (`pack/path-outside-project`):

- a file whose real path (every symlink followed) is outside the project root;
- anything that is not a regular file (a FIFO or a device would hang or fill the
  archive), `pack/file-not-regular`;
- a regular file with other hard links than those among the shipped files (the
  rule of `eve_build.source.links`: a file's other names cannot be found cheaply).

Plain paths in, diagnostics out: nothing here imports hatchling.
"""

from __future__ import annotations

import os
import stat
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from eve_build.diagnostics import Diagnostic, error

HINT = ("ship only the project's own files: replace a link with a copy of the file, or "
        "remove the path from `[tool.hatch.build]` (`include`, `only-include`, "
        "`force-include`)")


def find_unsafe_inclusions(root: Path, files: Iterable[tuple[str, str]]) -> list[Diagnostic]:
    """`(absolute path, path in the archive)` of every file a target ships -> an error
    for each that is outside `root`, not a regular file, or hard-linked elsewhere."""
    project = os.path.realpath(root)
    found: list[Diagnostic] = []
    linked: dict[tuple[int, int], set[str]] = defaultdict(set)
    counted: list[tuple[str, tuple[int, int], int]] = []
    for path, shipped in files:
        real = os.path.realpath(path)
        if os.path.commonpath([project, real]) != project:
            found.append(error(
                "pack/path-outside-project", shipped,
                f"`{shipped}` would ship `{real}`, outside the project{_how(path, project)}",
                HINT))
            continue
        try:
            info = Path(real).stat()
        except OSError as exc:
            found.append(error("pack/path-outside-project", shipped,
                               f"`{shipped}` cannot be read: {exc.strerror}", HINT))
            continue
        if not stat.S_ISREG(info.st_mode):
            found.append(error(
                "pack/file-not-regular", shipped,
                f"`{shipped}` is not a regular file (a FIFO, socket or device), so no archive "
                "can hold it", f"remove `{shipped}`, or exclude it in `[tool.hatch.build]` "
                "(`exclude`)"))
        elif info.st_nlink > 1:
            linked[(info.st_dev, info.st_ino)].add(real)
            counted.append((shipped, (info.st_dev, info.st_ino), info.st_nlink))
    for shipped, inode, count in counted:
        if len(linked[inode]) < count:
            found.append(error(
                "pack/path-outside-project", shipped,
                f"`{shipped}` is a hard link with other names outside what the archive ships, "
                "so it may be another file of this machine", HINT))
    return found


def _how(path: str, project: str) -> str:
    """How an outside file got in: a symlink inside the project, or an option naming it."""
    relative = os.path.relpath(Path(path).absolute(), project)
    if relative == ".." or relative.startswith(("../", "..\\")):
        return f" (`{path}` is named by a hatchling option)"
    return f" (through a symlink at `{Path(relative).as_posix()}`)"
