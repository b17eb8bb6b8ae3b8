"""The content-addressed cache of per-module check results (DESIGN section 11).

An entry's key hashes everything its result may depend on: the module's own bytes
and path, the bytes of every shared (non-contribution) source file, pyproject.toml,
and the versions of Python, eve-build (plus its own checking code), pydantic and the
declared dependencies. So a rebuild re-imports only the modules whose key changed.

It lives in `EVE_CACHE_DIR` when set, else beside the output (`build/.eve-cache/` for
`output = "build/eve"`). Each entry is one JSON file written to a temporary name and
renamed into place (concurrent builds never see half an entry) and carries a digest
of its value: an entry that does not parse or match is ignored and replaced, never
trusted. The folder is kept under a size limit by dropping the oldest entries.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from eve_build._version import __version__

ENV_CACHE_DIR = "EVE_CACHE_DIR"
CACHE_FOLDER = ".eve-cache"
FORMAT = "eve-build-cache-2"
MAX_BYTES = 200 * 1024 * 1024
"""Beyond this the oldest entries are removed until the folder holds 3/4 of it."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")  # a requirement's distribution name (PEP 508)
_OWN_CODE = ("load/checks.py", "load/contributions.py", "load/importer.py",
             "engine/batch.py", "sdk/definitions.py", "cron.py")


def locate_cache_dir(output_dir: Path) -> Path:
    """`EVE_CACHE_DIR`, else `.eve-cache/` beside the output folder."""
    configured = os.environ.get(ENV_CACHE_DIR)
    return Path(configured) if configured else output_dir.parent / CACHE_FOLDER


def _digest(*parts: bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(len(part).to_bytes(8, "big"))
        hasher.update(part)
    return hasher.hexdigest()


def derive_environment_digest(dependencies: Iterable[str]) -> str:
    """Python, eve-build (version and checking code), pydantic, declared dependencies."""
    parts = [FORMAT, sys.version, sys.prefix, __version__, _version_of("pydantic")]
    for requirement in sorted(dependencies):
        match = _NAME.match(requirement)
        if match:
            parts.append(f"{match.group(0)}=={_version_of(match.group(0))}")
    own = Path(__file__).resolve().parent.parent
    code = [_read(own / relative) for relative in _OWN_CODE]
    return _digest(*(p.encode() for p in parts), *code)


def _version_of(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def derive_shared_digest(environment: str, pyproject: bytes,
                         shared: dict[str, bytes]) -> str:
    """The part of every key that is not the module itself."""
    parts = [environment.encode(), pyproject]
    for path in sorted(shared):
        parts += [path.encode(), shared[path]]
    return _digest(*parts)


def derive_module_key(shared_digest: str, path: str, role: str, data: bytes) -> str:
    return _digest(shared_digest.encode(), path.encode(), role.encode(), data)


class BuildCache:
    """Entries under `folder`, one JSON file per key."""

    def __init__(self, folder: Path, max_bytes: int = MAX_BYTES) -> None:
        self.folder = folder
        self.max_bytes = max_bytes

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def read(self, key: str) -> Any:
        """The value stored under `key`, or None (missing, unreadable or corrupt).

        An entry is `<key> <sha256 of the value text>\n<value as JSON>`."""
        try:
            head, _, body = self._path(key).read_bytes().partition(b"\n")
            stored_key, _, digest = head.decode("ascii").partition(" ")
            if stored_key != key or digest != hashlib.sha256(body).hexdigest():
                return None
            return json.loads(body)
        except (OSError, ValueError):
            return None

    def write(self, entries: dict[str, Any]) -> None:
        """Store each value; a cache that cannot be written is skipped, never an error."""
        for key, value in entries.items():
            body = json.dumps(value).encode()  # key order kept: it reaches the manifest
            head = f"{key} {hashlib.sha256(body).hexdigest()}\n".encode()
            with contextlib.suppress(OSError):
                self._write_one(self._path(key), head + body)
        if entries:
            with contextlib.suppress(OSError):
                self.prune()

    @staticmethod
    def _write_one(path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=".entry-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            Path(name).replace(path)
        except BaseException:
            with contextlib.suppress(OSError):
                Path(name).unlink()
            raise

    def prune(self) -> None:
        """Drop the oldest entries while the folder holds more than `max_bytes`."""
        entries: list[tuple[float, int, Path]] = []
        for path in self.folder.glob("*/*.json"):
            with contextlib.suppress(OSError):
                stat = path.stat()
                entries.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in entries)
        if total <= self.max_bytes:
            return
        for _, size, path in sorted(entries):
            with contextlib.suppress(OSError):
                path.unlink()
                total -= size
            if total <= self.max_bytes * 3 // 4:
                return
