"""Locate the package behind each mount, without importing it, and check it.

The mount file's imported module is looked up with `PathFinder.find_spec` over the
workspace extension outputs first, then `sys.path`; its folder's manifest is checked
(`compatibility.check_package`). Mounts inside the extension's subagents are found
from the manifest and located the same way, parents first.
"""

from __future__ import annotations

import sys
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from eve_build.consumer.compatibility import check_package
from eve_build.consumer.freshness import find_edited_output
from eve_build.consumer.mounts import MountSite, derive_nested_sites, parse_mount_file
from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.formats.manifest import Manifest, derive_manifest_path, try_locate_package
from eve_build.project.app import derive_shown


@dataclass(frozen=True)
class LocatedMount:
    """A mount whose package was found and passed the compatibility check."""

    site: MountSite
    import_name: str
    package_dir: Path  # `.../build/eve/acme_crm`
    manifest: Manifest
    source_backed: bool
    line: int | None  # the line binding `mount`


def locate_mounts(
    sites: list[MountSite], source_outputs: list[Path], app_root: Path
) -> tuple[list[LocatedMount], list[Diagnostic]]:
    """Every mount (nested ones after their parent) with its checked package.

    Packages are looked up in `source_outputs` (the workspace extensions' output
    folders) first, then on `sys.path`."""
    paths = [str(p) for p in source_outputs] + [p for p in sys.path if isinstance(p, str)]
    located: list[LocatedMount] = []
    found: list[Diagnostic] = []
    queue = deque(sites)
    while queue:
        site = queue.popleft()
        mount, problems = _locate(site, paths, source_outputs, app_root)
        found.extend(problems)
        if mount is None or any(d.is_error for d in problems):
            continue
        located.append(mount)
        if not mount.source_backed:
            found.extend(find_edited_installed(mount, app_root))
        nested, problems = derive_nested_sites(site, mount.import_name, mount.package_dir,
                                               mount.manifest.contributions)
        found.extend(problems)
        queue.extend(nested)
    return located, found


def _locate(
    site: MountSite, paths: list[str], source_outputs: list[Path], app_root: Path
) -> tuple[LocatedMount | None, list[Diagnostic]]:
    source, found = parse_mount_file(site)
    if source is None:
        return None, found
    candidates = [(m, d) for m in source.modules if (d := try_locate_package(m, paths))]
    with_manifest = [(m, d) for m, d in candidates if derive_manifest_path(d).is_file()]
    for module, package_dir in (with_manifest or candidates)[:1]:
        shown = derive_shown(package_dir, app_root)
        manifest, found = check_package(site, module, package_dir, shown, source.line)
        if manifest is None:
            return None, found
        backed = any(package_dir.is_relative_to(out.resolve()) for out in source_outputs)
        return LocatedMount(site, module, package_dir, manifest, backed, source.line), found
    first = source.modules[0]
    return None, [error(
        "mount/package-not-found", site.shown,
        f"`{site.shown}` mounts `{first}`, which is neither an extension of this workspace "
        "nor installed",
        f"install the extension that provides `{first}` (`uv add <package>`), or add its "
        "source folder to `[tool.uv.workspace].members`", line=source.line,
    )]


def find_edited_installed(mount: LocatedMount, app_root: Path) -> list[Diagnostic]:
    """An installed extension whose files differ from its manifest's hashes: reported
    (eve-build does not rebuild what pip installed)."""
    edited = find_edited_output(mount.package_dir, mount.manifest)
    if not edited:
        return []
    shown = derive_shown(mount.package_dir, app_root)
    listed = ", ".join(f"`{name}`" for name in edited[:5]) + (" ..." if len(edited) > 5 else "")
    return [warning(
        "compat/output-edited", mount.site.shown,
        f"the installed `{mount.manifest.package.name}` at `{shown}` was changed after it "
        f"was built: {listed} no longer match its manifest",
        f"reinstall it (`pip install --force-reinstall {mount.manifest.package.name}`), or "
        "change the extension's sources and rebuild it", line=mount.line)]
