"""The state of one walk over a source tree: where it is, how it is shown, what it found."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from eve_build import slots
from eve_build.diagnostics import Diagnostic, error
from eve_build.naming import find_segment_problems, suggest_segment


@dataclass
class Walk:
    source: Path
    display: str  # how the source root is shown in diagnostics ("extension/")
    package_root: Path
    found: list[Diagnostic] = field(default_factory=list)
    qualified: bool = False  # agent trees: `<ns>__<name>` modules are overrides, not errors

    def rel(self, path: Path) -> str:
        return path.relative_to(self.source).as_posix()

    def shown(self, path: Path) -> str:
        return f"{self.display}{self.rel(path)}"

    def children(self, directory: Path) -> list[Path]:
        """Sorted entries that discovery looks at; symlinks leaving the package are skipped."""
        entries: list[Path] = []
        for entry in sorted(directory.iterdir(), key=lambda p: p.name):
            if slots.is_ignored(entry.name, is_dir=entry.is_dir()):
                continue
            if entry.is_symlink() and not self.inside_package(entry):
                continue
            entries.append(entry)
        return entries

    def inside_package(self, entry: Path) -> bool:
        root = self.package_root.resolve()
        return entry.resolve().is_relative_to(root)

    def check_segment(self, entry: Path, segment: str) -> bool:
        problems = find_segment_problems(segment)
        for problem in problems:
            self.found.append(error(
                "discover/name-invalid", self.shown(entry), problem,
                f"rename it to `{suggest_segment(segment)}"
                f"{entry.suffix if entry.is_file() else ''}`",
            ))
        return not problems


def discover_files(walk: Walk) -> list[str]:
    """Every file the output ships, sorted; reports symlinks that leave the package."""
    files: list[str] = []

    def visit(directory: Path) -> None:
        for entry in sorted(directory.iterdir(), key=lambda p: p.name):
            if slots.is_ignored(entry.name, is_dir=entry.is_dir()):
                continue
            if entry.is_symlink() and not walk.inside_package(entry):
                walk.found.append(error(
                    "discover/path-outside-package", walk.shown(entry),
                    f"`{walk.shown(entry)}` is a symlink to `{entry.readlink()}`, outside the "
                    "package, so the build and the wheel cannot ship it",
                    "copy the file into the package, or make the link point inside it",
                ))
                continue
            if entry.is_dir():
                visit(entry)
            elif entry.is_file():
                files.append(walk.rel(entry))

    visit(walk.source)
    return files
