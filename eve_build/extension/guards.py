"""What a build may replace: the output folder's guards, checked before it is written.

- `find_output_escape`: the output, symlinks followed, must not hold the package or
  its sources (each build replaces it whole);
- `find_foreign_output`: entries of the output folder no eve build wrote are never
  deleted: the build refuses instead (the build's freshness record is its own);
- `find_unsafe_output`: before anything is written (the cache beside the output
  included), the output must be a folder, or nothing, and not inside an earlier
  build's output: `build/eve` as a file or a dangling symlink, or `output` moved into
  the old output, is refused naming pyproject's key;
- `is_output_current`: an output that already holds exactly the files is not rewritten.
"""

from __future__ import annotations

from pathlib import Path

from eve_build.capabilities import MANIFEST_FILENAME
from eve_build.capabilities import SOURCE_PACKAGE_DIR as SOURCE_PACKAGE
from eve_build.diagnostics import Diagnostic, error
from eve_build.engine.stamp import read_output_state
from eve_build.formats.freshness import RECORD_FILE
from eve_build.project.pyproject import DEFAULT_OUTPUT, PYPROJECT, ExtensionProject


def is_output_current(output: Path, files: dict[str, bytes], *, ignored: str = "") -> bool:
    """True when `output` holds exactly `files`, byte for byte (nothing to write); the file
    `ignored` (the freshness record) is left out on both sides when given."""
    present = read_output_state(output)
    if ignored:
        present.pop(ignored, None)
        files = {relative: data for relative, data in files.items() if relative != ignored}
    if present.keys() != files.keys() or any(
            present[relative][0] != len(data) for relative, data in files.items()):
        return False
    try:
        return all((output / relative).read_bytes() == data for relative, data in files.items())
    except OSError:
        return False


def find_output_escape(project: ExtensionProject) -> list[Diagnostic]:
    """The output folder with every symlink followed must not hold the package or its
    sources (a `build` link into `extension/` would make a build replace its sources)."""
    try:
        output = project.output_dir.resolve()
        source = project.source_dir.resolve(strict=True)
        root = project.root.resolve(strict=True)
    except (OSError, RuntimeError):
        output = None
    if output is not None and not (output == root or root.is_relative_to(output)
                                   or output.is_relative_to(source)
                                   or source.is_relative_to(output)):
        return []
    return [error(
        "project/option-invalid", project.output,
        f"`tool.eve.extension.output` `{project.output}` leads through a symlink to "
        f"`{output or 'a link loop'}`, which holds the package or its sources; each build "
        "replaces the output folder whole",
        f"remove the symlink, or point `output` at a folder of its own such as "
        f"`{DEFAULT_OUTPUT}`",
    )]


def find_foreign_output(project: ExtensionProject) -> list[Diagnostic]:
    """Entries of the output folder that no eve build wrote: a build must not delete them."""
    output = project.output_dir
    if not output.exists():
        return []
    entries = [output] if not output.is_dir() else sorted(output.iterdir())
    foreign = [
        entry for entry in entries if not (entry / SOURCE_PACKAGE / MANIFEST_FILENAME).is_file()
        and not (entry.name == RECORD_FILE and entry.is_file() and not entry.is_symlink())
    ]
    return [error(
        "output/foreign-files", project.output,
        f"`{entry.relative_to(project.root).as_posix()}` was not written by eve-build, and each "
        f"build replaces `{project.output}` whole",
        f"move it out of `{project.output}`, or set `tool.eve.extension.output` to a folder "
        "of its own",
    ) for entry in foreign]


def find_unsafe_output(project: ExtensionProject) -> list[Diagnostic]:
    """The output is a folder or absent, and not inside the output of an earlier build
    (whose cache and staging would land in it); checked before anything is written."""
    output, shown = project.output_dir, project.output
    if output.is_symlink() and not output.exists():
        problem = (f"`{shown}` is a symlink to `{output.readlink()}`, which does not exist",
                   f"remove the link (`rm {shown}`), or create the folder it points to")
    elif output.exists() and not output.is_dir():
        problem = (f"`{shown}` is a file, not an output folder",
                   f"move `{shown}` away, or set `tool.eve.extension.output` to a folder "
                   "of its own")
    else:
        holder = _enclosing_output(project)
        if holder is None:  # a folder of user files: find_foreign_output, before writing
            return []
        problem = (f"`{shown}` is inside `{holder}`, the output of an earlier build, which "
                   "a build replaces whole",
                   f"set `tool.eve.extension.output` back to `{holder}`, or to a folder "
                   "outside it")
    return [error("project/output-unsafe", PYPROJECT,
                  f"`tool.eve.extension.output`: {problem[0]}; nothing was built or changed",
                  problem[1])]


def _enclosing_output(project: ExtensionProject) -> str | None:
    """The outermost folder above the output (inside the package) that is an eve output:
    one holding `<import>/extension/_manifest.json`, or such an import package itself."""
    relative = Path(project.output)
    for depth in range(1, len(relative.parts)):
        folder = project.root.joinpath(*relative.parts[:depth])
        if not folder.is_dir():
            continue
        if (folder / SOURCE_PACKAGE / MANIFEST_FILENAME).is_file() or any(
                (child / SOURCE_PACKAGE / MANIFEST_FILENAME).is_file()
                for child in folder.iterdir() if child.is_dir()):
            return Path(*relative.parts[:depth]).as_posix()
    return None
