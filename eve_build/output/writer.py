"""Write a whole output folder atomically: stage in a temporary sibling, then swap.

A failure while staging leaves the previous output exactly as it was. The swap
itself is two renames on one filesystem; if the second fails, the previous output
is renamed back. Writers of one target take turns (an exclusive lock on the
parent folder), and each first repairs what a killed writer left: a missing output is
restored from its `previous` folder, and stale `staging`/`previous` folders are
removed. So the output is always the old one or the new one, whole.
"""

from __future__ import annotations

import contextlib
import os
import shutil
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
            for relative in sorted(files):
                path = staging / relative
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(files[relative])
            swap_into_place(staging, target)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)


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
