"""Is a source-backed extension's output current? Then `eve build` skips its build.

The rule and its record are `eve_build.formats.freshness` (content hashes of every
input the build reads and of every file it wrote, the eve-build version); this module
only names the project's folders for it. Installed packages, which have no source
beside them, are compared with their manifest's hashes (`find_edited_output`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from eve_build.capabilities import SOURCE_PACKAGE_DIR as SOURCE_PACKAGE
from eve_build.formats import freshness
from eve_build.formats.manifest import Manifest
from eve_build.project.pyproject import ExtensionProject
from eve_build.userfile import read_user_bytes


def explain_staleness(project: ExtensionProject) -> str | None:
    """None when the project's output is current for its inputs, else why it is not."""
    return freshness.explain_staleness(project.output_dir, project.root, project.import_name)


def is_up_to_date(project: ExtensionProject) -> bool:
    return explain_staleness(project) is None


def find_edited_output(package_dir: Path, manifest: Manifest) -> list[str]:
    """The shipped copies under `<package>/extension/` of an installed package whose bytes
    no longer match the hashes its manifest records (hand-edited or damaged), sorted."""
    shipped = package_dir / SOURCE_PACKAGE
    return sorted(relative for relative, digest in manifest.files.items()
                  if _hash(shipped / relative) != digest)


def _hash(path: Path) -> str:
    try:
        return f"sha256:{hashlib.sha256(read_user_bytes(path).data).hexdigest()}"
    except OSError:
        return ""
