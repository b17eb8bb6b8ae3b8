"""The host's load-time upgrade check: is what is installed still what the agent was built
against? (`runtime/extension-changed`; the run side asks it, nothing of the build side.)

`compiled-agent.json` records each mount's package version and the hash of its
manifest (`sha256:` of the `_manifest.json` bytes, `formats.freshness.derive_manifest_hash`);
a source-backed package is also checked against its source by the freshness rule
(`formats.freshness`), the one every build command asks. Before the host imports any
extension code it locates each mounted package again (never importing it) and
compares; a package that was upgraded, downgraded, rebuilt or removed refuses the
load with one message per package:

    extension acme-crm changed since the agent was built (0.1.0 -> 0.2.0): run eve build
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from eve_build.diagnostics import Diagnostic, error
from eve_build.formats.compiled import COMPILED_PATH, CompiledMount
from eve_build.formats.freshness import derive_manifest_hash, explain_package_staleness
from eve_build.formats.manifest import (
    ManifestError,
    derive_manifest_path,
    read_manifest,
    try_locate_package,
)
from eve_build.install_hint import derive_install_hint


def find_changed_packages(mounts: Iterable[CompiledMount], paths: Sequence[str]
                          ) -> list[Diagnostic]:
    """One error per mounted package whose installed build differs from the recorded one.

    `paths` is where the host will import from (the compiled `sys_path` first). A
    package mounted twice is reported once.
    """
    found: list[Diagnostic] = []
    seen: set[str] = set()
    for mount in mounts:
        if mount.import_name in seen:
            continue
        seen.add(mount.import_name)
        problem = try_derive_change(mount, paths)
        if problem is not None:
            found.append(problem)
    return found


def try_derive_change(mount: CompiledMount, paths: Sequence[str]) -> Diagnostic | None:
    """The refusal for one mount's package, or None when it is the build recorded."""
    name, built = mount.package, mount.version
    package_dir = try_locate_package(mount.import_name, list(paths))
    if package_dir is None:
        return _changed(mount, f"extension {name} is no longer installed (the agent was built "
                               f"with {built}): install it again or run eve build", removed=True)
    try:
        manifest = read_manifest(derive_manifest_path(package_dir))
    except ManifestError:
        return _changed(mount, f"extension {name} changed since the agent was built ({built} -> "
                               "a package without a readable manifest): run eve build")
    installed = manifest.package.version
    if installed != built:
        return _changed(mount, f"extension {name} changed since the agent was built ({built} -> "
                               f"{installed}): run eve build")
    if mount.manifest_hash and derive_manifest_hash(package_dir) != mount.manifest_hash:
        return _changed(mount, f"extension {name} changed since the agent was built ({built}, "
                               "rebuilt with other contents): run eve build")
    if mount.source_backed and is_source_edited(package_dir):
        return _changed(mount, f"extension {name} changed since the agent was built ({built}, "
                               "its source was edited): run eve build")
    return None


def is_source_edited(package_dir: Path) -> bool:
    """A source-backed package (workspace member, path or editable install) whose output is
    no longer current for its source (the freshness rule, `formats.freshness`: `eve build`
    would rebuild it)."""
    return explain_package_staleness(package_dir) is not None


def _changed(mount: CompiledMount, message: str, *, removed: bool = False) -> Diagnostic:
    """The refusal, its hint saying what `eve build` does here (and what it does not)."""
    back = derive_install_hint(f"{mount.package}=={mount.version}")
    if mount.source_backed:  # built from its source by `eve build`: nothing to install
        hint = (f"run `eve build`: it rebuilds `{mount.package}` from its source and compiles "
                f"the agent against it (mounted by `{mount.file}`)")
    elif removed:  # `eve build` installs nothing: it would stop at the mount too
        hint = (f"install `{mount.package}` again (`{back}`, or the wheel or folder it came "
                f"from): `eve build` installs nothing; or delete its mount `{mount.file}`, "
                "then run `eve build`")
    else:
        hint = (f"run `eve build`: it reads the installed `{mount.package}`'s manifest "
                "(nothing is installed or rebuilt), checks it and the mount's config in "
                f"`{mount.file}`, compiles the agent against it and lists what changed; or put "
                f"back the version the agent was built with: `{back}`")
    return error("runtime/extension-changed", COMPILED_PATH, message, hint)
