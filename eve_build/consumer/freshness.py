"""Is a source-backed extension's output complete and current? Then its build is skipped.

Current means: built by this eve-build, for the same name and version, with
pyproject.toml not newer than the manifest, the same set of source files as
discovery finds now, each with the content hash the manifest records, and every
file of the output present with that same hash (a hand-edited output is rebuilt).
Hashes make this robust to checkouts that reset mtimes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from eve_build._version import __version__
from eve_build.formats.manifest import Manifest, ManifestError, derive_manifest_path, read_manifest
from eve_build.output.generate import SOURCE_PACKAGE
from eve_build.project.pyproject import PYPROJECT, ExtensionProject
from eve_build.source.discover import discover_source
from eve_build.userfile import read_user_bytes

GENERATED_FILES = ("__init__.py", "__init__.pyi", "tools/__init__.py", "tools/__init__.pyi",
                   "py.typed")


def locate_manifest(project: ExtensionProject) -> Path:
    return derive_manifest_path(project.output_dir / project.import_name)


def try_read_current_manifest(project: ExtensionProject) -> Manifest | None:
    """The output's manifest when the output is up to date with the source, else None."""
    manifest, _reason = explain_staleness(project)
    return manifest


def explain_staleness(project: ExtensionProject) -> tuple[Manifest | None, str | None]:
    """(the current output's manifest, None), or (None, why the output is stale)."""
    manifest_path = locate_manifest(project)
    try:
        manifest = read_manifest(manifest_path)
    except ManifestError:
        return None, "no complete output (its manifest is missing or unreadable)"
    if manifest.built_with_eve != __version__:
        return None, f"built with eve-build {manifest.built_with_eve}, this is {__version__}"
    if (manifest.package.name != project.name
            or manifest.package.version != project.version
            or list(manifest.build.external_dependencies) != list(project.external_dependencies)):
        return None, "the package name, version or external dependencies changed"
    try:
        if (project.root / PYPROJECT).stat().st_mtime > manifest_path.stat().st_mtime:
            return None, "pyproject.toml is newer than the output"
    except OSError:
        return None, "pyproject.toml or the manifest cannot be read"
    layout, found = discover_source(project.source_dir, display=f"{project.source}/",
                                    package_root=project.root)
    if any(d.is_error for d in found) or set(layout.files) != set(manifest.files):
        return None, "source files were added or removed"
    package_dir = project.output_dir / project.import_name
    unlike = find_files_unlike_manifest(manifest, project.source_dir,
                                        package_dir / SOURCE_PACKAGE)
    if unlike:
        relative = unlike[0]
        if _hash(project.source_dir / relative) != manifest.files[relative]:
            return None, f"`{project.source}/{relative}` changed"
        if not (package_dir / SOURCE_PACKAGE / relative).is_file():
            return None, f"the output lacks `{relative}`"
        return None, f"the output's `{relative}` differs from its manifest hash (edited by hand?)"
    if not all((package_dir / name).is_file() for name in GENERATED_FILES):
        return None, "a generated file of the output is missing"
    return manifest, None


def find_files_unlike_manifest(manifest: Manifest, source_dir: Path, output_dir: Path
                               ) -> list[str]:
    """The manifest's files whose source or output copy does not have the recorded hash.

    The one comparison with the manifest's hashes: an edited source and a hand-edited
    (or deleted) output file both make the output stale.
    """
    return sorted(relative for relative, digest in manifest.files.items()
                  if _hash(source_dir / relative) != digest
                  or _hash(output_dir / relative) != digest)


def find_edited_output(package_dir: Path, manifest: Manifest) -> list[str]:
    """The shipped copies under `<package>/extension/` whose bytes no longer match the
    hashes the manifest records (hand-edited or damaged output), sorted. For installed
    packages, which have no source beside them: the same one comparison, output only."""
    shipped = package_dir / SOURCE_PACKAGE
    return find_files_unlike_manifest(manifest, shipped, shipped)


def is_up_to_date(project: ExtensionProject) -> bool:
    return try_read_current_manifest(project) is not None


def _hash(path: Path) -> str:
    try:
        return f"sha256:{hashlib.sha256(read_user_bytes(path).data).hexdigest()}"
    except OSError:
        return ""
