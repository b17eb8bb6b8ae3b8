"""Find local extensions: `-e` paths, then the project's folder, then the global one.

    $EVE_HOME/extensions/notes.py              # a script: name `notes`
    <project>/.eve/extensions/notes/extension.py   # a folder: name `notes`, siblings kept

Each folder is read through the `SourceTree` seam (eve_build.source.tree), in sorted
order, so tests can walk a `MemoryTree`. Dotfiles, `__pycache__` and names starting
with `_` (private helpers) are skipped; other non-`.py` files are not extensions.
A bad name or a folder without `extension.py` is a diagnostic naming the path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from eve_build.diagnostics import Diagnostic, error
from eve_build.home import locate_eve_home as locate_eve_home
from eve_build.naming import find_segment_problems, suggest_segment
from eve_build.source.tree import DiskTree, SourceTree
from eve_build.source.walk import describe_special_entry

ENTRY_MODULE = "extension.py"
PROJECT_FOLDER = Path(".eve") / "extensions"
GLOBAL_FOLDER = "extensions"


@dataclass(frozen=True)
class Candidate:
    """A local extension found on disk, not imported yet."""

    name: str
    origin: str  # explicit | project | global
    file: Path  # the module to import
    folder: Path  # ctx.extension_dir: the folder holding the module
    shown: str  # how diagnostics and the listing name it
    package: bool = False  # a folder extension (siblings importable relatively)
    problems: tuple[Diagnostic, ...] = field(default=())


def locate_project_folder(project_root: Path) -> Path:
    return project_root / PROJECT_FOLDER


def discover_folder(folder: Path, origin: str, shown_base: str,
                    tree: SourceTree | None = None) -> list[Candidate]:
    """The extensions of one folder, sorted by name (none when it does not exist).

    `tree` reads the folder (default: the disk); the candidates' paths are under `folder`.
    """
    tree = tree or DiskTree(folder, folder)
    if not tree.is_dir(""):
        return []
    found: list[Candidate] = []
    for entry in tree.entries(""):
        name, path = entry.name, folder / entry.name
        if name.startswith((".", "_")):
            continue
        shown = f"{shown_base}/{name}"
        if entry.kind == "dir":
            found.append(_folder_candidate(path, origin, shown,
                                           tree.is_file(f"{name}/{ENTRY_MODULE}")))
        elif name.endswith(".py") and entry.special is not None:  # `zero.py -> /dev/zero`
            found.append(Candidate(name.removesuffix(".py"), origin, path, folder, shown,
                                   problems=(describe_special_entry(shown, entry),)))
        elif name.endswith(".py"):
            found.append(_named(name.removesuffix(".py"), origin, path, folder, shown,
                                package=False))
    return found


def discover_explicit(paths: Sequence[Path], cwd: Path) -> list[Candidate]:
    """`-e PATH` extensions, sorted by name: a `.py` file, or a folder with extension.py."""
    found: list[Candidate] = []
    for given in paths:
        path = given if given.is_absolute() else cwd / given
        shown = str(given)
        if path.is_dir():
            found.append(_folder_candidate(path, "explicit", shown,
                                           (path / ENTRY_MODULE).is_file()))
        elif path.is_file() and path.suffix == ".py":
            name = path.parent.name if path.name == ENTRY_MODULE else path.stem
            found.append(_named(name, "explicit", path, path.parent, shown,
                                package=path.name == ENTRY_MODULE))
        else:
            problem = error("local/path-missing", shown,
                            f"`{shown}` is not a `.py` file nor a folder with `{ENTRY_MODULE}`",
                            "pass `-e notes.py` or `-e notes/` (holding extension.py)")
            found.append(Candidate(path.stem or shown, "explicit", path, path.parent, shown,
                                   problems=(problem,)))
    return sorted(found, key=lambda c: c.name)


def _folder_candidate(path: Path, origin: str, shown: str, has_entry: bool) -> Candidate:
    entry = path / ENTRY_MODULE
    if has_entry:
        return _named(path.name, origin, entry, path, f"{shown}/{ENTRY_MODULE}", package=True)
    problem = error("local/extension-module-missing", shown,
                    f"the folder `{shown}` has no `{ENTRY_MODULE}`",
                    f"put `def setup(ctx): ...` in `{shown}/{ENTRY_MODULE}`, or make it a "
                    f"single file `{path.name}.py`")
    return Candidate(path.name, origin, entry, path, shown, package=True, problems=(problem,))


def _named(name: str, origin: str, file: Path, folder: Path, shown: str, *,
           package: bool) -> Candidate:
    problems = find_segment_problems(name)
    if not problems:
        return Candidate(name, origin, file, folder, shown, package)
    problem = error("local/name-invalid", shown, "; ".join(problems),
                    f"rename it to `{suggest_segment(name)}`: the name scopes its state and "
                    "appears in messages")
    return Candidate(name, origin, file, folder, shown, package, problems=(problem,))
