"""The `eve` build hook's full build: the same `build_extension()` as `eve extension build`.

Imported only when the hook cannot reuse its recorded build (`eve_build.hatch.reuse`):
importing the pipeline is most of the hook's cost. A failed build becomes one
readable `HookBuildError`; a successful one becomes the `BuildRecord` the hook ships
(`eve_build.hatch.inclusions`) and records.
"""

from __future__ import annotations

from pathlib import Path

from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.extension_build import BuildResult, build_extension
from eve_build.hatch.options import HookOptions, derive_isolation_note
from eve_build.hatch.reuse import BuildRecord, find_package_files
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


def derive_build_record(result: BuildResult) -> BuildRecord:
    """What a successful build hands hatchling, for the hook to ship and `reuse` to
    record (with no files when the output package cannot be read back: not recorded)."""
    files = find_package_files(result.package_dir) or {}
    manifest = result.package_dir / SOURCE_PACKAGE / MANIFEST_FILENAME
    return BuildRecord(
        import_name=str(result.project.import_name), output=result.project.output,
        manifest=manifest.relative_to(result.package_dir).as_posix(),
        metadata_name=DIST_INFO_MANIFEST, files=files,
        warnings=tuple(warning.render() for warning in result.warnings),
    )
