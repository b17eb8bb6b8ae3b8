"""Write a whole output folder atomically: stage in a temporary sibling, then swap.

A failure while staging leaves the previous output exactly as it was. The swap
itself is two renames on one filesystem; if the second fails, the previous output
is renamed back. Writers of one target take turns (an exclusive lock on the
parent folder), and each first repairs what a killed writer left: a missing output is
restored from its `previous` folder, and stale `staging`/`previous` folders are
removed. So the output is always the old one or the new one, whole.

Staging a file whose bytes equal the same path's file in the current output is a hard
link to that file instead of a write (creating a file costs tens of times a link), so
a rebuild that changed one file of a thousand writes one, and removing the previous
output afterwards only drops link counts. This is safe because eve-build never modifies
a file of an output in place: the staging folder only gains new names (a written file
is always a new inode, created exclusively, never opened through an existing name) and
the output changes only by the swap's renames. So an inode shared by the old and the new
output keeps its bytes for as long as either exists, and a reader holding a file of the
old output keeps reading the old bytes. A link is only made to a regular file inside
the output (no symlink followed), checked after linking (regular, same size, same bytes),
and linking falls back to writing when it fails (another filesystem, no hard links, a
link limit), so the result never depends on it. A linked file keeps its mtime and mode.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import tempfile
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path


def write_tree(target: Path, files: Mapping[str, bytes]) -> None:
    """Replace `target` with exactly `files` (relative POSIX paths to bytes)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with lock_target(target):
        recover_target(target)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.staging-", dir=target.parent))
        try:
            write_staging(staging, files, target)
            swap_into_place(staging, target)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)


def write_staging(staging: Path, files: Mapping[str, bytes], current: Path) -> int:
    """Fill the new, empty folder `staging` with `files`: a file equal to the one at its
    path in `current` (the output in place) is hard-linked from there, any other is
    written. Returns how many were linked."""
    sizes = find_regular_files(current)
    staged, old = f"{staging}/", f"{current}/"  # plain strings: pathlib costs ~40 us a file
    folders = {str(staging)}
    linked = 0
    for relative in sorted(files):
        data = files[relative]
        path = staged + relative
        folder = path.rpartition("/")[0]
        if folder not in folders:
            Path(folder).mkdir(parents=True, exist_ok=True)
            folders.add(folder)
        if sizes.get(relative) == len(data) and link_if_equal(old + relative, path, data):
            linked += 1
        else:
            write_new_file(path, data)
    return linked


def find_regular_files(folder: Path) -> dict[str, int]:
    """The regular files under `folder` (relative POSIX path -> size), no symlink
    followed: only these may be linked into a new output."""
    if folder.is_symlink() or not folder.is_dir():
        return {}
    return {relative: info.st_size for relative, info in read_file_states(folder).items()
            if stat.S_ISREG(info.st_mode)}


def read_file_states(folder: Path) -> dict[str, os.stat_result]:
    """Every entry under `folder` that is not a folder (relative POSIX path -> its lstat),
    no symlink followed; empty when `folder` cannot be listed."""
    states: dict[str, os.stat_result] = {}
    pending = [("", str(folder))]
    while pending:
        prefix, path = pending.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append((f"{prefix}{entry.name}/", entry.path))
                else:
                    states[prefix + entry.name] = entry.stat(follow_symlinks=False)
            except OSError:
                continue
    return states


_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation


def link_if_equal(source: str, path: str, data: bytes) -> bool:
    """Hard-link `source` to the new name `path` if it holds exactly `data`; False (and
    nothing at `path`) when it does not or linking fails."""
    try:
        os.link(source, path, follow_symlinks=False)
    except (OSError, NotImplementedError):  # EXDEV, EPERM, EMLINK, no hard links here
        return False
    try:
        with open(os.open(path, os.O_RDONLY | _NO_FOLLOW | _BINARY), "rb") as stream:
            found = os.fstat(stream.fileno())
            if (stat.S_ISREG(found.st_mode) and found.st_size == len(data)
                    and stream.read() == data):
                return True
    except OSError:
        pass
    Path(path).unlink()
    return False


def write_new_file(path: str, data: bytes) -> None:
    """Write `data` to a new inode at `path`: created exclusively, so a name that already
    exists (two spellings of one name on a case-insensitive filesystem) is unlinked
    first and a linked file of the old output is never written through."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW | _BINARY
    try:
        handle = os.open(path, flags, 0o666)
    except FileExistsError:
        Path(path).unlink()
        handle = os.open(path, flags, 0o666)
    try:  # os.write, not a file object: a 1000-tool build writes 1000 of these
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view):]
    finally:
        os.close(handle)


@contextlib.contextmanager
def lock_target(target: Path) -> Iterator[None]:
    """Hold an exclusive lock on `target`'s parent folder, so no lock file is left
    behind (the OS releases it if the process dies)."""
    if sys.platform == "win32":  # pragma: no cover - no flock: each swap stays atomic
        yield
        return
    import fcntl

    descriptor = os.open(target.parent, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def repair_output(target: Path) -> list[str]:
    """`recover_target` under the lock: what a build does first, even one that fails."""
    if not target.parent.is_dir():
        return []
    with lock_target(target):
        return recover_target(target)


def recover_target(target: Path) -> list[str]:
    """Repair what a killed writer left beside `target` (call with the lock held).

    Returns what was done, for logs and tests: `restored <name>`, `removed <name>`.
    """
    done: list[str] = []
    previous = sorted(target.parent.glob(f".{target.name}.previous-*"),
                      key=lambda path: path.stat().st_mtime)
    if previous and not target.exists() and not target.is_symlink():
        newest = previous.pop()  # killed inside the swap: the old output is still whole here
        newest.replace(target)
        done.append(f"restored {target.name} from {newest.name}")
    for leftover in [*previous, *target.parent.glob(f".{target.name}.staging-*")]:
        shutil.rmtree(leftover, ignore_errors=True)
        done.append(f"removed {leftover.name}")
    return done


def swap_into_place(staging: Path, target: Path) -> None:
    """Rename `staging` to `target`, keeping the previous `target` until it succeeded."""
    previous: Path | None = None
    if target.exists():
        previous = target.with_name(f".{target.name}.previous-{uuid.uuid4().hex[:8]}")
        target.replace(previous)
    try:
        staging.replace(target)
    except BaseException:
        if previous is not None:
            previous.replace(target)
        raise
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)


def write_file(path: Path, text: str) -> None:
    """Replace one file atomically: a temporary sibling, flushed, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
