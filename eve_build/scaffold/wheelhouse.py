"""eve-build's dependencies, re-packed as wheels from the running environment.

`init` installs eve-build into the new package's venv. Letting pip find its
dependencies on the index took 10-11 s of resolving alone (pydantic-core's index page
lists thousands of files), although every one of them is installed right here, in the
versions this eve-build runs with. So each distribution eve-build requires (its
closure, markers evaluated) is re-packed from its installed files, exactly as
installed, and pip installs them `--no-index`. Whatever cannot be re-packed faithfully
(no RECORD, no `WHEEL` tags, an editable install, files outside site-packages other
than the console scripts pip regenerates) makes the whole re-pack give up, and `init`
resolves on the index as before.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path, PurePosixPath

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from eve_build.toolchain import INSTALL_ONLY_METADATA, write_wheel_archive

SCRIPT_DIRS = frozenset({"bin", "Scripts"})
REGENERATED_METADATA = INSTALL_ONLY_METADATA - {"WHEEL"}
"""Installer-written dist-info files; the original `WHEEL` (its tags) is kept."""


def find_requirement_closure(name: str) -> list[metadata.Distribution] | None:
    """The installed distributions `name` requires, transitively (without `name`), or
    None when one is missing or a requirement does not parse."""
    found: dict[str, metadata.Distribution] = {}
    pending = [name]
    root = canonicalize_name(name)
    while pending:
        current = canonicalize_name(pending.pop())
        if current in found:
            continue
        try:
            dist = metadata.distribution(current)
            requirements = [Requirement(text) for text in dist.requires or []]
        except (metadata.PackageNotFoundError, InvalidRequirement):
            return None
        found[current] = dist
        pending += [r.name for r in requirements
                    if r.marker is None or r.marker.evaluate({"extra": ""})]
    return [dist for key, dist in sorted(found.items()) if key != root]


def derive_wheel_name(dist_info: str, wheel_metadata: str) -> str | None:
    """`pydantic_core-2.50.5-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl`
    from the dist-info folder name and the `Tag:` lines of its `WHEEL` file."""
    tags = [line.partition(":")[2].strip() for line in wheel_metadata.splitlines()
            if line.startswith("Tag:")]
    parts = [tag.split("-") for tag in tags]
    if not parts or any(len(p) != 3 for p in parts):
        return None
    fields = [".".join(sorted({p[index] for p in parts})) for index in range(3)]
    return f"{dist_info.removesuffix('.dist-info')}-{'-'.join(fields)}.whl"


def _iter_members(dist: metadata.Distribution) -> Iterator[tuple[str, Path] | None]:
    """(archive name, installed path) of each file to ship; None for one that cannot be."""
    scripts = {entry.name for entry in dist.entry_points
               if entry.group in ("console_scripts", "gui_scripts")}
    for entry in dist.files or []:
        parts = PurePosixPath(entry.as_posix()).parts
        if "__pycache__" in parts or entry.suffix == ".pyc":
            continue
        if parts and (parts[0] == ".." or PurePosixPath(entry.as_posix()).is_absolute()):
            # console scripts: pip writes them afresh from entry_points.txt
            script = PurePosixPath(*parts).name.removesuffix(".exe")
            if len(parts) > 1 and parts[-2] in SCRIPT_DIRS and script in scripts:
                continue
            yield None
            continue
        if (len(parts) == 2 and parts[0].endswith(".dist-info")
                and parts[1] in REGENERATED_METADATA):
            continue
        yield "/".join(parts), Path(str(dist.locate_file(entry)))


def write_distribution_wheel(directory: Path, dist: metadata.Distribution) -> Path | None:
    """Re-pack the installed `dist` into a wheel in `directory`; None when it cannot be
    re-packed faithfully (see the module docstring)."""
    if dist.files is None or dist.read_text("direct_url.json"):
        return None  # installed without a RECORD, or from a folder / editable
    members: dict[str, bytes] = {}
    for member in _iter_members(dist):
        if member is None:
            return None
        name, path = member
        try:
            members[name] = path.read_bytes()
        except OSError:
            return None
    dist_infos = {name.split("/")[0] for name in members if name.split("/")[0]
                  .endswith(".dist-info")}
    if len(dist_infos) != 1:
        return None
    dist_info = dist_infos.pop()
    wheel_metadata = members.get(f"{dist_info}/WHEEL", b"").decode("utf-8", "replace")
    wheel_name = derive_wheel_name(dist_info, wheel_metadata)
    if wheel_name is None:
        return None
    # Stored, not deflated: the wheel lives for one install on the same disk.
    return write_wheel_archive(directory / wheel_name, members, dist_info, zipfile.ZIP_STORED)


def write_dependency_wheels(directory: Path, name: str = "eve-build") -> list[Path] | None:
    """Every distribution `name` requires, re-packed into `directory`; None when any one
    cannot be (the installer then resolves on the index)."""
    closure = find_requirement_closure(name)
    if closure is None:
        return None
    wheels = []
    for dist in closure:
        wheel = write_distribution_wheel(directory, dist)
        if wheel is None:
            return None
        wheels.append(wheel)
    return wheels
