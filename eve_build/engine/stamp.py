"""The stamp of a whole extension build: when nothing changed, nothing is done.

The per-module cache (engine.cache) spares re-importing unchanged modules, but a
build that finds every module cached still discovers the tree, assembles and
serialises the manifest and compares the output: half a second at 1000 tools.
The stamp skips all of it. It records, beside the cache:

- the build's fingerprint: the inputs' digest of the freshness rule
  (`eve_build.formats.freshness`: pyproject.toml and every file under the source
  folder by content hash, links and link counts, the eve-build version), the
  environment digest of the cache keys (Python, eve-build and its checking code,
  pydantic, the declared dependencies) and the size and modification time of every
  module of the running eve-build (an eve-build edited in place, same version, builds
  again: the whole output depends on its generator, not only on its checking code;
  this only ever makes a build run, never skips one);
- what the output folder held when the build ended: each file's size, modification
  time, change time and inode, so an output edited or removed by hand is noticed
  (an edit that keeps the size and puts the mtime back still moves the change time,
  which no user can set), and each file's content hash, which `verify` compares
  where an output is about to be packed (the hook, `eve extension pack`);
- what the command reports: the files, the tool count, `requires`, warnings.

`find_current_build` returns that record when the fingerprint is the same and
the output is exactly as the build left it; the build then imports, checks and
writes nothing. A stamp that is missing, unreadable or of another format is no
stamp: the build runs in full and writes a new one. The stamp is written after
the output, so a build killed in between leaves an old stamp whose fingerprint
or output no longer matches. A check elsewhere that finds the output stale
(`eve build`'s freshness) discards the stamp (`discard_stamp`) before it rebuilds,
so no later build trusts it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eve_build.diagnostics import Diagnostic
from eve_build.formats.freshness import Inputs
from eve_build.formats.writer import read_file_states

STAMP_FILE = "build-stamp.json"
FORMAT = "eve-build-stamp-3"
_SKIPPED_DIRS = frozenset({"__pycache__"})


@dataclass(frozen=True)
class Stamp:
    """What a finished build left and reported."""

    fingerprint: str
    output: dict[str, OutputState]  # relative path -> (size, mtime, ctime in ns, inode)
    files: tuple[str, ...]
    tools: int
    requires: dict[str, str]
    warnings: tuple[Diagnostic, ...]
    digests: dict[str, str] = field(default_factory=dict)  # relative path -> sha256 hex


OutputState = tuple[int, int, int, int]


def derive_build_fingerprint(inputs: Inputs, environment: str) -> str:
    """The digest of everything a build of these inputs depends on: the freshness
    rule's inputs (`formats.freshness.read_inputs`), `environment` (engine.cache's
    environment digest) and the running eve-build's modules."""
    return hashlib.sha256(f"{FORMAT}\0{environment}\0{derive_toolchain_stamp()}\0"
                          f"{inputs.digest}".encode()).hexdigest()


def derive_toolchain_stamp() -> str:
    """Every module of the running eve-build by path, size and modification time."""
    package = Path(__file__).resolve().parent.parent
    hasher = hashlib.sha256()
    for relative in _walk_files(package):
        if relative.endswith(".py"):
            info = (package / relative).stat()
            hasher.update(f"{relative}:{info.st_size}:{info.st_mtime_ns}\n".encode())
    return hasher.hexdigest()


def _walk_files(folder: Path, links: list[str] | None = None) -> list[str]:
    """Every file under `folder` (POSIX paths, sorted), without bytecode caches. Folder
    links are not followed; with `links`, each is listed there as `path -> target`, so
    adding, removing or re-pointing one changes the fingerprint. Iterative: a tree
    thousands of folders deep is walked, not a RecursionError."""
    found: list[str] = []
    pending = [""]
    while pending:
        base = pending.pop()
        with os.scandir(folder / base if base else folder) as listing:
            for item in listing:
                relative = f"{base}/{item.name}" if base else item.name
                if not item.is_dir():  # a file, a link to one, a broken link, a FIFO
                    if not item.name.endswith(".pyc"):
                        found.append(relative)
                elif item.is_symlink():
                    if links is not None:
                        links.append(f"{relative} -> {Path(item.path).readlink()}")
                elif item.name not in _SKIPPED_DIRS:
                    pending.append(relative)
    return sorted(found)


def read_output_state(output: Path) -> dict[str, OutputState]:
    """Size, modification and change time and inode of every file under `output`
    (empty: none)."""
    return {relative: (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
            for relative, info in read_file_states(output).items()}


def find_current_build(cache_dir: Path, fingerprint: str, output: Path, *,
                       verify: bool = False) -> Stamp | None:
    """The stamp of the last build when it is still true: same fingerprint, and the
    output exactly as that build left it (with `verify`, byte for byte: every file's
    content hash too). None: build in full."""
    stamp = read_stamp(cache_dir / STAMP_FILE)
    if stamp is None or stamp.fingerprint != fingerprint:
        return None
    if read_output_state(output) != stamp.output:
        return None
    if verify and (stamp.digests.keys() != stamp.output.keys()
                   or find_changed_content(output, stamp.digests)):
        return None
    return stamp


def find_changed_content(output: Path, digests: dict[str, str]) -> list[str]:
    """The files under `output` whose bytes no longer have the recorded sha256, sorted."""
    changed = []
    for relative, digest in sorted(digests.items()):
        try:
            data = (output / relative).read_bytes()
        except OSError:
            data = None
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            changed.append(relative)
    return changed


def discard_stamp(cache_dir: Path) -> None:
    """Forget the last build's stamp: a check found its output or sources not as it
    recorded, so the next build runs in full."""
    from eve_build.engine.cache_folder import is_cache_folder

    if not is_cache_folder(cache_dir):  # a folder of the user's: nothing there is ours
        return
    with contextlib.suppress(OSError):
        (cache_dir / STAMP_FILE).unlink()


def read_stamp(path: Path) -> Stamp | None:
    try:
        data = json.loads(path.read_bytes())
        if data.get("format") != FORMAT:
            return None
        return Stamp(
            fingerprint=str(data["fingerprint"]),
            output={str(k): (int(v[0]), int(v[1]), int(v[2]), int(v[3]))
                    for k, v in data["output"].items()},
            digests={str(k): str(v) for k, v in data["digests"].items()},
            files=tuple(str(f) for f in data["files"]), tools=int(data["tools"]),
            requires={str(k): str(v) for k, v in data["requires"].items()},
            warnings=tuple(Diagnostic.from_json(w) for w in data["warnings"]))
    except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError):
        return None


def write_stamp(cache_dir: Path, stamp: Stamp) -> None:
    """Record `stamp` atomically; a folder that cannot be written is skipped."""
    data: dict[str, Any] = {
        "format": FORMAT, "fingerprint": stamp.fingerprint,
        "output": {k: list(v) for k, v in sorted(stamp.output.items())},
        "files": list(stamp.files), "tools": stamp.tools, "requires": stamp.requires,
        "warnings": [w.to_json() for w in stamp.warnings],
        "digests": dict(sorted(stamp.digests.items())),
    }
    with contextlib.suppress(OSError):
        cache_dir.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=".stamp-", suffix=".tmp", dir=cache_dir)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(data, stream)
            Path(name).replace(cache_dir / STAMP_FILE)
        except BaseException:
            with contextlib.suppress(OSError):
                Path(name).unlink()
            raise

