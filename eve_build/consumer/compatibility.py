"""The compatibility check of one mounted package, from its manifest alone.

Missing or malformed manifest, wrong kind, unknown formatVersion, a required
capability version that was dropped (with reason and migration) or is newer than this
eve-build, an unknown capability, a missing external dependency: each is an error
that names the mount file and the package. Nothing of the extension is imported.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path

from packaging.version import InvalidVersion, Version

from eve_build._version import __version__
from eve_build.capabilities import find_incompatibilities
from eve_build.consumer.mounts import MountSite
from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.formats.manifest import Manifest, ManifestError, derive_manifest_path, read_manifest

_CODES = {
    "dropped": "compat/capability-dropped",
    "newer": "compat/capability-newer",
    "unknown": "compat/capability-unknown",
    "invalid": "compat/capability-unknown",
}


def check_package(
    site: MountSite, import_name: str, package_dir: Path, shown_dir: str, line: int | None
) -> tuple[Manifest | None, list[Diagnostic]]:
    """Read the package's manifest and find everything that keeps it from being mounted."""
    where = f"`{site.shown}` mounts `{import_name}` (`{shown_dir}`)"
    path = derive_manifest_path(package_dir)
    if not path.is_file():
        return None, [error(
            "compat/manifest-missing", site.shown,
            f"{where}, which has no compatibility manifest "
            f"`{path.relative_to(package_dir).as_posix()}`"
            ": it is not a built eve extension",
            f"build the extension (`eve extension build`) or reinstall it; if `{import_name}` "
            "is not an eve extension, mount the right package", line=line,
        )]
    try:
        manifest = read_manifest(path)
    except ManifestError as exc:
        return None, [error("compat/manifest-invalid", site.shown, f"{where}: {exc.message}",
                            exc.hint, line=line)]
    package = f"`{site.shown}` mounts `{manifest.package.name}` {manifest.package.version} " \
              f"(`{shown_dir}`, built with eve-build {manifest.built_with_eve})"
    found = [
        error(_CODES[problem.problem], site.shown, f"{package}, which {problem.message}",
              problem.hint, line=line)
        for problem in find_incompatibilities(manifest.requires)
    ]
    found.extend(
        error("compat/external-dependency-missing", site.shown,
              f"{package}, which needs the external dependency `{dependency}`; it is not "
              "installed", f"install it into this environment (`uv add {dependency}` or "
              f"`pip install {dependency}`)", line=line)
        for dependency in manifest.build.external_dependencies if not is_installed(dependency)
    )
    found.extend(find_newer_toolchain(manifest, site.shown, package, line))
    return manifest, found


def find_newer_toolchain(manifest: Manifest, shown: str, package: str, line: int | None
                         ) -> list[Diagnostic]:
    """A warning when the package was built by a newer eve-build than this one.

    Its format and capabilities passed the checks above (unknown ones are errors), so it
    may work; but it may use behaviour this eve-build lacks.
    """
    try:
        newer = Version(manifest.built_with_eve) > Version(__version__)
    except InvalidVersion:
        return []
    if not newer:
        return []
    return [warning(
        "compat/built-with-newer-eve", shown,
        f"{package}, newer than this eve-build {__version__}",
        f"upgrade eve-build to {manifest.built_with_eve} or later in this environment, or "
        "install an extension release built for this one", line=line,
    )]


def is_installed(distribution: str) -> bool:
    """Is the distribution installed, or importable under its name? (Nothing is imported.)"""
    try:
        importlib.metadata.distribution(distribution)
        return True
    except importlib.metadata.PackageNotFoundError:
        pass
    module = distribution.replace("-", "_").replace(".", "_")
    try:
        return module.isidentifier() and importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
