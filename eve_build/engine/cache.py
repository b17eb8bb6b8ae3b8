"""The content-addressed cache of per-module check results (DESIGN section 11): its
keys and where it lives; `engine.cache_store` keeps the entries.

An entry's key hashes everything its result may depend on: the module's own bytes
and path, the bytes of every shared (non-contribution) source file, pyproject.toml,
and the versions of Python, eve-build (plus its own checking code), pydantic and the
declared dependencies. So a rebuild re-imports only the modules whose key changed.

It lives in `EVE_CACHE_DIR` when set, else beside the output (`build/.eve-cache/` for
`output = "build/eve"`). FORMAT is part of every key: a new layout of the entries or
their values bumps it, so entries of an older one are never read.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

from packaging.utils import canonicalize_name

from eve_build._version import __version__
from eve_build.engine.cache_store import BuildCache as BuildCache
from eve_build.userfile import read_user_bytes

ENV_CACHE_DIR = "EVE_CACHE_DIR"
CACHE_FOLDER = ".eve-cache"
FORMAT = "eve-build-cache-3"
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
    installed = read_installed_versions()  # one listing of site-packages for every name
    parts = [FORMAT, sys.version, sys.prefix, __version__, _version_of("pydantic", installed)]
    for requirement in sorted(dependencies):
        match = _NAME.match(requirement)
        if match:
            parts.append(f"{match.group(0)}=={_version_of(match.group(0), installed)}")
    own = Path(__file__).resolve().parent.parent
    code = [_read(own / relative) for relative in _OWN_CODE]
    return _digest(*(p.encode() for p in parts), *code)


def _version_of(name: str, installed: dict[str, str] | None = None) -> str:
    """The installed version of distribution `name`, or "missing"; `installed` is a
    `read_installed_versions()` already read.

    Read from the names of the `.dist-info` (and legacy `.egg-info`) folders in this
    environment's site-packages, as pip and uv name them: `<name>-<version>.dist-info`.
    Not `importlib.metadata`, whose import and lookups (parsing METADATA with the
    email package) cost 30 ms, an eighth of a build with nothing to do.
    """
    versions = installed if installed is not None else read_installed_versions()
    return versions.get(canonicalize_name(name), "missing")


def read_installed_versions() -> dict[str, str]:
    """Normalized distribution name -> version, for every distribution installed in
    the environment's site-packages folders (the first one found wins, as on sys.path)."""
    found: dict[str, str] = {}
    for folder in _site_folders():
        try:
            with os.scandir(folder) as listing:
                names = sorted(entry.name for entry in listing)
        except OSError:
            continue
        for entry in names:
            stem, dot, kind = entry.rpartition(".")
            if not dot or kind not in ("dist-info", "egg-info"):
                continue
            name, _, rest = stem.partition("-")
            version = rest.split("-", 1)[0]
            if name and version:
                found.setdefault(canonicalize_name(name), version)
    return found


def _site_folders() -> list[str]:
    """The folders distributions are installed in, in sys.path order."""
    paths = sysconfig.get_paths()
    candidates = {paths.get("purelib"), paths.get("platlib")}
    ordered = [p for p in sys.path if p in candidates]
    return ordered + sorted(p for p in candidates if p and p not in ordered)


def _read(path: Path) -> bytes:
    try:
        return read_user_bytes(path).data
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
