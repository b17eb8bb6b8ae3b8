"""The output about to be packed is exactly what its build wrote: compared by content.

Sizes and modification times say nothing about an edit that keeps both, so where
an output is about to be shipped (the hatchling hook, `eve extension pack`) every
file under `<package>/extension/` is compared with the manifest's content hash, and
every other file (the generated modules, the manifest itself) with the hash its
build recorded (`BuildResult.digests`, the build stamp's record for a skipped build).
`build_extension(verify=True)` already rebuilt an output whose stamp no longer held;
what is still different here was changed during the build, and is refused.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from eve_build.capabilities import SOURCE_PACKAGE_DIR as SOURCE_PACKAGE
from eve_build.diagnostics import Diagnostic, error

if TYPE_CHECKING:
    from eve_build.extension.build import BuildResult


def find_output_unlike_build(result: BuildResult) -> list[Diagnostic]:
    """`pack/output-edited` for each output file whose bytes are not what was built.

    A build the stamp skipped under `verify=True` compared every file already (and
    imports nothing more here); a full build's output is read back once."""
    from eve_build.engine.stamp import find_changed_content

    if not result.checked:
        return []
    edited = find_changed_content(result.output_dir, result.digests)
    shown = result.project.output
    return [error(
        "pack/output-edited", f"{shown}/{relative}",
        f"`{shown}/{relative}` differs from what its build wrote (its content hash is not "
        "the manifest's), so it is not packed",
        "build again (`eve extension build`) and do not edit the generated output by hand",
    ) for relative in sorted(edited)]


def derive_digests(files: dict[str, bytes], hashes: dict[str, str], import_name: str
                   ) -> dict[str, str]:
    """sha256 of every output file: the manifest's hashes for the shipped sources (`hashes`), the
    rest (generated modules, the manifest) hashed here."""
    shipped = f"{import_name}/{SOURCE_PACKAGE}/"
    digests = {}
    for relative, data in files.items():
        recorded = hashes.get(relative.removeprefix(shipped), "")
        if relative.startswith(shipped) and recorded.startswith("sha256:"):
            digests[relative] = recorded.removeprefix("sha256:")
        else:
            digests[relative] = hashlib.sha256(data).hexdigest()
    return digests

