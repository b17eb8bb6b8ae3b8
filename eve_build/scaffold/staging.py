"""Write rendered scaffold files into a target folder, all or nothing.

Files are written into a temporary sibling of the target first, then moved into
place. Every conflict is found before anything moves, so a failure leaves the
target as it was (a crash between moves can at worst leave some of the files,
each one complete).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from eve_build.errors import EveBuildError

FORCE_HINT = "pass --force to write the scaffold's files over same-named ones"


def is_empty_dir(path: Path) -> bool:
    """True when `path` does not exist or is a folder with nothing in it."""
    if not path.exists():
        return True
    return path.is_dir() and next(path.iterdir(), None) is None


def find_conflicts(files: Mapping[str, str], target: Path) -> list[str]:
    """Scaffold paths that cannot be written because a folder or file is in the way."""
    conflicts: list[str] = []
    for name in sorted(files):
        relative = PurePosixPath(name)
        destination = target.joinpath(*relative.parts)
        if destination.is_dir():
            conflicts.append(f"`{name}` is a folder")
            continue
        for parent in relative.parents:
            if parent.parts and target.joinpath(*parent.parts).is_file():
                conflicts.append(f"`{parent.as_posix()}` is a file, not a folder")
                break
    return conflicts


def check_target(target: Path, *, force: bool) -> None:
    """Raise EveBuildError when the scaffold cannot go into `target` (checked again, and
    first, by `write_scaffold_files`; the CLI asks before it prints anything)."""
    target = target.resolve()
    if target.exists() and not target.is_dir():
        raise EveBuildError(
            f"`{target}` is a file, not a folder", hint="choose another target folder"
        )
    if not is_empty_dir(target) and not force:
        raise EveBuildError(f"`{target}` is not empty", hint=FORCE_HINT)


def write_scaffold_files(files: Mapping[str, str], target: Path, *, force: bool) -> list[str]:
    """Write `files` (relative POSIX path -> text) under `target`.

    Returns:
        The relative paths written, sorted.

    Raises:
        EveBuildError: `target` is a file, is a non-empty folder and `force` is
            False, or holds something in the way of a scaffold file.
    """
    target = target.resolve()
    check_target(target, force=force)
    conflicts = find_conflicts(files, target)
    if conflicts:
        raise EveBuildError(
            f"`{target}`: cannot write the scaffold: {'; '.join(conflicts)}",
            hint="move those out of the way and run the command again",
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}.eve-init-", dir=target.parent))
    # mkdtemp's folder is private (0o700); the tree inside it gets the user's umask.
    staging = scratch / "tree"
    try:
        for name, text in files.items():
            path = staging.joinpath(*PurePosixPath(name).parts)
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        if not target.exists():
            staging.replace(target)
        else:
            for name in sorted(files):
                parts = PurePosixPath(name).parts
                destination = target.joinpath(*parts)
                destination.parent.mkdir(parents=True, exist_ok=True)
                staging.joinpath(*parts).replace(destination)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return sorted(files)
