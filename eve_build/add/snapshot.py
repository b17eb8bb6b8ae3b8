"""What `eve add` may change, recorded before it changes it, and put back if it fails.

    with all_or_nothing([pyproject, mount_file], environment, "acme-crm", runner) as before:
        install(); write(); build()   # any exception: everything is as it was

Recorded: the bytes of each project file (or that it did not exist), and the one
distribution's installed state in the project's environment: its version, its origin
(`direct_url.json`: a wheel, a folder, editable or not; none for an index install) and
a copy of every file its RECORD lists. Putting it back is the environment's own
uninstall (pip or uv) of whatever is installed now, then those files copied back: the
exact previous installation, offline, whatever its origin was.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build.add.installer import ProjectEnvironment, Runner, derive_uninstall_command
from eve_build.consumer.build import replace_file
from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError

_PROBE = """\
import importlib.metadata as metadata, json, os, sys
try:
    found = metadata.distribution(sys.argv[1])
except metadata.PackageNotFoundError:
    print("null")
else:
    print(json.dumps({"version": found.version, "origin": found.read_text("direct_url.json"),
                      "files": [os.path.normpath(str(found.locate_file(f)))
                                for f in (found.files or ())]}))
"""


@dataclass(frozen=True)
class Installed:
    """One distribution as the project's environment has it."""

    name: str
    version: str
    origin: dict[str, Any] | None  # direct_url.json; None: installed from an index
    files: tuple[Path, ...]

    def describe(self) -> str:
        """`acme-crm 0.3.0 installed from the wheel /x/acme_crm-0.3.0-py3-none-any.whl`."""
        url = str((self.origin or {}).get("url", ""))
        where = url.removeprefix("file://") if url.startswith("file://") else url
        if self.origin is None:
            how = "installed from a package index"
        elif (self.origin.get("dir_info") or {}).get("editable"):
            how = f"installed editable from {where}"
        elif where.endswith(".whl"):
            how = f"installed from the wheel {where}"
        else:
            how = f"installed from {where}"
        return f"{self.name} {self.version} {how}"


@dataclass
class Snapshot:
    files: dict[Path, bytes | None]
    folders: tuple[Path, ...]  # folders of those files that did not exist yet
    installed: Installed | None
    stash: Path | None = None
    copies: dict[Path, Path] = field(default_factory=dict)  # installed file -> its copy


def read_installed(environment: ProjectEnvironment, name: str, runner: Runner
                   ) -> Installed | None:
    """`name` as installed in the project's environment, or None when it is not."""
    done = runner([str(environment.python), "-c", _PROBE, name], Path.cwd())
    line = done.stdout.strip().splitlines()[-1:] if done.returncode == 0 else []
    data = json.loads(line[0]) if line else None
    if not isinstance(data, dict):
        return None
    origin = json.loads(data["origin"]) if data.get("origin") else None
    return Installed(name, str(data["version"]), origin,
                     tuple(Path(f) for f in data.get("files", [])))


@contextlib.contextmanager
def all_or_nothing(files: Sequence[Path], environment: ProjectEnvironment, distribution: str,
                   runner: Runner) -> Iterator[Snapshot]:
    """Record `files` and `distribution`; on any exception put them back, then re-raise."""
    snapshot = Snapshot({p: p.read_bytes() if p.is_file() else None for p in files},
                        tuple(sorted({p.parent for p in files if not p.parent.exists()})),
                        read_installed(environment, distribution, runner))
    try:
        _stash(snapshot)
        yield snapshot
    except BaseException as exc:
        problem = _put_back(snapshot, environment, distribution, runner)
        if problem is not None and isinstance(exc, DiagnosticsError):
            exc.diagnostics.append(problem)
        raise
    finally:
        if snapshot.stash is not None:
            shutil.rmtree(snapshot.stash, ignore_errors=True)


def _stash(snapshot: Snapshot) -> None:
    if snapshot.installed is None:
        return
    snapshot.stash = Path(tempfile.mkdtemp(prefix="eve-add-undo-"))
    for number, path in enumerate(snapshot.installed.files):
        if path.is_file() or path.is_symlink():
            copy = snapshot.stash / str(number)
            shutil.copy2(path, copy, follow_symlinks=False)
            snapshot.copies[path] = copy


def _put_back(snapshot: Snapshot, environment: ProjectEnvironment, distribution: str,
              runner: Runner) -> Any:
    """Restore the files and the distribution; a Diagnostic when the environment could not be."""
    for path, data in snapshot.files.items():
        if data is None:
            path.unlink(missing_ok=True)
        elif not path.is_file() or path.read_bytes() != data:
            replace_file(path, data)
    for folder in reversed(snapshot.folders):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only if still empty
    now = read_installed(environment, distribution, runner)
    if now == snapshot.installed:
        return None  # the install did not run, or did not get far
    if now is not None:
        done = runner(derive_uninstall_command(environment, distribution), Path.cwd())
        if done.returncode != 0:
            return _restore_failed(snapshot, distribution, done.stdout)
    for path, copy in snapshot.copies.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        shutil.copy2(copy, path, follow_symlinks=False)
    if read_installed(environment, distribution, runner) != snapshot.installed:
        return _restore_failed(snapshot, distribution, "it reads differently after restoring")
    return None


def _restore_failed(snapshot: Snapshot, distribution: str, output: str) -> Any:
    before = snapshot.installed
    last = "; ".join(line.strip() for line in output.strip().splitlines()[-3:]) or "no output"
    was = before.describe() if before else "not installed"
    return error(
        "add/restore-failed", distribution,
        f"`eve add` failed and could not put `{distribution}` back as it was ({was}): {last}",
        (f"install it again as it was ({was})" if before else
         f"uninstall it (`pip uninstall {distribution}`)")
        + "; the project's files are as before")
