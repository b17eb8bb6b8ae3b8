"""The hook's record of its last build: reuse the output when nothing it depends on changed.

A wheel build's hook ran the whole pipeline, and importing it (pydantic, the checks,
the SDK) cost more than the rest of the hook together, even when the build cache
made the build itself a no-op. So after each successful build the hook records, in
the build cache (`engine.cache.BuildCache`), what it handed hatchling: the import
package, the manifest's place, the warnings it showed, and the hash of every file of
the output package. The record's key hashes what the build's result depends on, a
superset of the build cache's keys: every file under the source folder (bytecode
aside), pyproject.toml, the versions of Python, eve-build, pydantic and the declared
dependencies, and the size and mtime of every module of eve-build (so that an
eve-build edited in place, same version, builds again).

The next wheel build reads the record first, without importing the pipeline. It is
reused only when found under the same key and the output package holds exactly the
recorded files with the recorded hashes (a hand-edited or half-deleted output is
rebuilt); anything else, including a failed or missing record, runs the full build.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import eve_build
from eve_build.engine.cache import BuildCache, derive_environment_digest, locate_cache_dir
from eve_build.project.pyproject import (
    PYPROJECT,
    ExtensionProject,
    parse_extension_project,
    read_pyproject,
)

RECORD_FORMAT = "eve-build-hook-record-1"
SKIPPED_PARTS = frozenset({"__pycache__"})


@dataclass(frozen=True)
class BuildRecord:
    """What a successful build handed hatchling, as plain data."""

    import_name: str
    output: str
    """The output folder as configured, `build/eve`."""
    manifest: str
    """The manifest, relative to the output package folder."""
    metadata_name: str
    """The manifest copy's name under the wheel's `.dist-info/extra_metadata/`."""
    files: dict[str, str]
    """Every file of the output package (relative POSIX path) -> its sha256."""
    warnings: tuple[str, ...] = ()
    """The build's warnings, rendered."""

    def to_json(self) -> dict[str, Any]:
        return {"import_name": self.import_name, "output": self.output,
                "manifest": self.manifest, "metadata_name": self.metadata_name,
                "files": self.files,
                "warnings": list(self.warnings)}

    @classmethod
    def from_json(cls, value: Any) -> BuildRecord | None:
        """The record in `value`, or None when it is not one (never trusted blindly)."""
        try:
            files = dict(value["files"])
            record = cls(import_name=str(value["import_name"]), output=str(value["output"]),
                         manifest=str(value["manifest"]),
                         metadata_name=str(value["metadata_name"]), files=files,
                         warnings=tuple(str(w) for w in value["warnings"]))
        except (KeyError, TypeError, ValueError):
            return None
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
            return None
        return record


def try_locate_project(root: Path) -> ExtensionProject | None:
    """The extension project at `root`, or None when its pyproject has any problem
    (the full build then reports it)."""
    data, found = read_pyproject(root)
    if data is None or found:
        return None
    project, found = parse_extension_project(root, data)
    return None if project is None or found else project


def derive_record_key(project: ExtensionProject) -> str | None:
    """The key of `project`'s record: its inputs hashed; None when one cannot be read."""
    hasher = hashlib.sha256(RECORD_FORMAT.encode())
    hasher.update(derive_environment_digest(project.dependencies).encode())
    try:
        hasher.update(derive_toolchain_stamp().encode())
        hasher.update((project.root / PYPROJECT).read_bytes())
        sources = sorted(path for path in project.source_dir.rglob("*")
                         if path.is_file() and path.suffix != ".pyc"
                         and not SKIPPED_PARTS & set(path.parts))
        for path in sources:
            relative = path.relative_to(project.source_dir).as_posix().encode()
            data = path.read_bytes()
            hasher.update(len(relative).to_bytes(8, "big") + relative)
            hasher.update(len(data).to_bytes(8, "big") + data)
    except OSError:
        return None
    return hasher.hexdigest()


def derive_toolchain_stamp() -> str:
    """Every module of the running eve-build by path, size and mtime: an eve-build edited
    in place (a checkout, same version) still invalidates the record."""
    package = Path(eve_build.__file__).parent
    hasher = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        hasher.update(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return hasher.hexdigest()


def find_package_files(package_dir: Path) -> dict[str, str] | None:
    """Every file under `package_dir` -> its sha256; None when it cannot be read."""
    try:
        return {path.relative_to(package_dir).as_posix():
                hashlib.sha256(path.read_bytes()).hexdigest()
                for path in sorted(package_dir.rglob("*")) if path.is_file()}
    except OSError:
        return None


@dataclass(frozen=True)
class BuildInputs:
    """A project and the key of its inputs, read before the build."""

    project: ExtensionProject
    key: str


def read_build_inputs(root: Path) -> BuildInputs | None:
    """The project at `root` and its record key; None when either cannot be read.

    Read before a build, so that a source edited while it runs leaves a record under
    the old key, which the next build does not find.
    """
    project = try_locate_project(root)
    key = derive_record_key(project) if project is not None else None
    return BuildInputs(project, key) if project is not None and key is not None else None


def try_read_current_record(inputs: BuildInputs) -> BuildRecord | None:
    """The record of the inputs when the output package is exactly the one recorded;
    None means: run the full build."""
    project = inputs.project
    cache = BuildCache(locate_cache_dir(project.output_dir))
    record = BuildRecord.from_json(cache.read(inputs.key))
    if (record is None or record.import_name != str(project.import_name)
            or record.output != project.output):
        return None
    if find_package_files(project.output_dir / project.import_name) != record.files:
        return None
    return record


def write_build_record(inputs: BuildInputs, record: BuildRecord) -> None:
    """Record a successful build (a cache that cannot be written is skipped)."""
    BuildCache(locate_cache_dir(inputs.project.output_dir)).write({inputs.key: record.to_json()})
