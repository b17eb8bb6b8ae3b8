"""What the build stamp's fingerprint reads of a source folder: what the build reads.

Discovery follows symlinks that stay inside the package, so the fingerprint does
too: a file edited under a linked folder (`extension/lib -> ../shared`) changes the
fingerprint and the build runs. Besides each file's path and bytes it records:

- each symlink's text, so re-pointing a link is a change even when the bytes behind
  it are the same;
- a regular file's link count when it is above 1, so a new hard link to a source
  file makes the build run (and discovery decide, `eve_build.source.links`).

Anything a stamp cannot vouch for makes the walk give up (None), so the build runs
in full and reports it with discovery's own diagnostic: a symlink leaving the
package, a file that is not regular (a FIFO would hang a plain read), one that
cannot be read. A folder reached again through a link (a loop, or a second link to
the same folder) is read once.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

SKIPPED_DIRS = frozenset({"__pycache__"})
MAX_DEPTH = 100
"""Deeper than discovery walks (`eve_build.source.walk.MAX_DEPTH`): the build decides."""


class _GiveUp(Exception):
    """The stamp cannot vouch for this tree: build in full."""


def read_source_files(source_dir: Path, package_root: Path
                      ) -> tuple[dict[str, bytes], list[str]] | None:
    """(the bytes of every file by POSIX path under `source_dir`, notes on links and
    link counts), sorted by path; None when the full build must decide."""
    files: dict[str, bytes] = {}
    notes: list[str] = []
    package = os.path.realpath(package_root)
    try:
        _read_folder(os.path.realpath(source_dir), "", package, set(), files, notes)
    except (_GiveUp, OSError):
        return None
    return dict(sorted(files.items())), notes


def _read_folder(folder: str, prefix: str, package: str, seen: set[str],
                 files: dict[str, bytes], notes: list[str]) -> None:
    """Read `folder` (a real path, shown as `prefix`) once, however often it is reached."""
    if folder in seen:
        return
    if prefix.count("/") > MAX_DEPTH:
        raise _GiveUp
    seen.add(folder)
    with os.scandir(folder) as listing:
        entries = sorted(listing, key=lambda entry: entry.name)
    for entry in entries:
        relative = f"{prefix}{entry.name}"
        if entry.is_symlink():
            real = os.path.realpath(entry.path)
            if os.path.commonpath([package, real]) != package:
                raise _GiveUp  # discovery reports it (discover/path-outside-package)
            notes.append(f"link {relative} -> {Path(entry.path).readlink()}")
            if Path(real).is_dir():
                _read_folder(real, f"{relative}/", package, seen, files, notes)
                continue
        elif entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIPPED_DIRS:
                _read_folder(f"{folder}/{entry.name}", f"{relative}/", package, seen,
                             files, notes)
            continue
        if entry.name.endswith(".pyc"):
            continue
        files[relative] = _read_regular(entry.path, relative, notes)


def _read_regular(path: str, relative: str, notes: list[str]) -> bytes:
    """The bytes of a regular file, opened without blocking (a FIFO is never waited on)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise _GiveUp
        if info.st_nlink > 1:
            notes.append(f"links {relative} {info.st_nlink}")
        with os.fdopen(descriptor, "rb", closefd=False) as stream:
            return stream.read()
    finally:
        os.close(descriptor)
