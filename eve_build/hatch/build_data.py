"""What the `eve` build hook hands to hatchling: the built package, the manifest, a .pth.

The hook runs the same `build_extension()` as `eve extension build` and passes its
output to hatchling only through `build_data`:

- `force_include`: `build/eve/<import>/` shipped as `<import>/` at the wheel root;
- `extra_metadata`: the manifest, as `<name>.dist-info/extra_metadata/eve-manifest.json`;
- `force_include_editable`: for `pip install -e .`, a `.pth` file that puts the
  output folder (`build/eve/`) on `sys.path` instead of a copy of the package, so
  each later `eve extension build` is what the author's venv imports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.extension_build import BuildResult, build_extension
from eve_build.hatch.options import HookOptions, derive_isolation_note
from eve_build.manifest import DIST_INFO_MANIFEST, MANIFEST_FILENAME
from eve_build.output.generate import SOURCE_PACKAGE


class HookBuildError(EveBuildError, RuntimeError):
    """The extension did not build, so neither does the wheel.

    Its text is exactly what `eve extension build` prints: every diagnostic as
    `path:line: error CODE: message` with its hint, then the summary line.
    """

    def __str__(self) -> str:
        # After a traceback's `HookBuildError:` prefix, the lines start as the CLI's do.
        return f"\n{self.message}"


@dataclass(frozen=True)
class WheelInclusions:
    """The `build_data` entries for one wheel build (source path -> wheel path)."""

    force_include: dict[str, str] = field(default_factory=dict)
    extra_metadata: dict[str, str] = field(default_factory=dict)
    force_include_editable: dict[str, str] = field(default_factory=dict)


def run_extension_build(root: Path, options: HookOptions) -> BuildResult:
    """`build_extension(root)`, with failures turned into one readable HookBuildError."""
    try:
        return build_extension(root)
    except DiagnosticsError as exc:
        lines = [diagnostic.render() for diagnostic in exc.diagnostics]
        lines.append(f"error: {exc.message}")
        note = derive_isolation_note(options, {d.code for d in exc.diagnostics})
        if note:
            lines.append(note)
        raise HookBuildError("\n".join(lines)) from None
    except EveBuildError as exc:
        text = f"error: {exc.message}" + (f"\n  hint: {exc.hint}" if exc.hint else "")
        raise HookBuildError(text) from None


def derive_manifest_path(result: BuildResult) -> Path:
    """`build/eve/<import>/extension/_manifest.json`."""
    return result.package_dir / SOURCE_PACKAGE / MANIFEST_FILENAME


def derive_path_file_name(result: BuildResult) -> str:
    """The editable wheel's `.pth` file; hatchling's own would be `_<import>.pth`."""
    return f"_{result.project.import_name}_eve.pth"


def write_path_file(result: BuildResult, directory: Path) -> Path:
    """Write the editable install's `.pth` (one line: the output folder) into `directory`."""
    path = directory / derive_path_file_name(result)
    path.write_text(f"{result.output_dir.resolve()}\n", encoding="utf-8")
    return path


def derive_wheel_inclusions(
    result: BuildResult, *, editable_path_file: Path | None = None
) -> WheelInclusions:
    """The wheel's share of a build: the package and the manifest copy, or the `.pth`.

    An editable wheel ships no copy of the package and no manifest copy: the
    `.pth` makes the output folder importable, and a manifest copy in the
    dist-info would go stale at the next `eve extension build`. hatchling still
    gets `force_include` for it, which also tells its file selection that the
    wheel's contents are given (no `packages` setting needed).
    """
    package = {str(result.package_dir): str(result.project.import_name)}
    if editable_path_file is not None:
        return WheelInclusions(
            force_include=package,
            force_include_editable={str(editable_path_file): editable_path_file.name},
        )
    return WheelInclusions(
        force_include=package,
        extra_metadata={str(derive_manifest_path(result)): DIST_INFO_MANIFEST},
    )
