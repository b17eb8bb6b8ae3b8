"""Write a whole output folder atomically: stage in a temporary sibling, then swap.

A failure while staging leaves the previous output exactly as it was. The swap
itself is two renames on one filesystem; if the second fails, the previous output
is renamed back.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Mapping
from pathlib import Path


def write_tree(target: Path, files: Mapping[str, bytes]) -> None:
    """Replace `target` with exactly `files` (relative POSIX paths to bytes)."""
    target.parent.mkdir(parents=True, exist_ok=True)
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
