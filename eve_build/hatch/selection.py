"""What hatchling's sdist and wheel targets would pack, asked before `python -m build`.

`eve extension pack` checks the project before it starts a build frontend, so that
every file that must not ship is listed at once, as diagnostics, instead of the one
line of the hook's failure the frontend's output shows. hatchling's own builders
apply the project's `[tool.hatch.build]` options exactly as `python -m build` will;
their file lists go through the same rule as the hook's (`eve_build.hatch.shipped`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from hatchling.builders.plugin.interface import BuilderInterface, IncludedFile
from hatchling.builders.sdist import SdistBuilder
from hatchling.builders.wheel import WheelBuilder

from eve_build.diagnostics import Diagnostic
from eve_build.hatch.shipped import find_unsafe_inclusions


def list_shipped_files(builder: BuilderInterface) -> Iterable[IncludedFile]:  # type: ignore[type-arg]
    """The files `builder` packs besides what build hooks add."""
    try:
        return list(builder.recurse_included_files())
    except ValueError:  # a wheel with no file selection: the hook's output is all it ships
        return list(builder.recurse_forced_files(builder.config.get_force_include()))


def find_unsafe_artifact_files(root: Path) -> list[Diagnostic]:
    """Every file the sdist or the wheel of `root` would pack that must not ship."""
    found: dict[tuple[str, str], Diagnostic] = {}
    for builder in (SdistBuilder(str(root)), WheelBuilder(str(root))):
        try:
            files = [(f.path, f.distribution_path) for f in list_shipped_files(builder)]
        except (OSError, ValueError, TypeError):  # hatchling's own option errors: the build
            continue  # frontend reports them in hatchling's words
        for problem in find_unsafe_inclusions(root, files):
            found.setdefault((problem.file, problem.message), problem)
    return list(found.values())
