"""Files at the package root that the sdist ships (README, LICENSE, ...) must be the
package's own: a symlink leading outside the package would ship another project's file,
or a file that is not there on the machine that builds the wheel from the sdist.
"""

from __future__ import annotations

from pathlib import Path

from eve_build.diagnostics import Diagnostic, error


def find_root_links_outside(root: Path) -> list[Diagnostic]:
    """Package-root files that are symlinks to outside `root` (or to nothing)."""
    found: list[Diagnostic] = []
    package = root.resolve()
    for path in sorted(root.iterdir(), key=lambda p: p.name):
        if path.name.startswith(".") or not path.is_symlink() or path.is_dir():
            continue
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):
            target = None
        if target is not None and target.is_relative_to(package):
            continue
        found.append(error(
            "pack/file-outside-package", path.name,
            f"`{path.name}` is a symlink to `{path.readlink()}`, "
            + ("outside the package" if target is not None else "which does not exist")
            + ": the sdist would not carry the package's own file",
            f"replace the link with a copy of the file: `cp --remove-destination "
            f"\"$(readlink -f {path.name})\" {path.name}`",
        ))
    return found
