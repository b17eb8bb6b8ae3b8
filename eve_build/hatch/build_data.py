"""The `eve` build hook's build: the same `build_extension()` as `eve extension build`.

When nothing changed since the last build, its build stamp (`eve_build.engine.stamp`)
skips the whole pipeline without importing it, which was most of the hook's cost. A
failed build becomes one readable `HookBuildError`; what a successful one ships is
`eve_build.hatch.inclusions`.
"""

from __future__ import annotations

from pathlib import Path

from eve_build.errors import DiagnosticsError, EveBuildError
from eve_build.extension.build import BuildResult, build_extension
from eve_build.hatch.options import HookOptions, derive_isolation_note


class HookBuildError(EveBuildError, RuntimeError):
    """The extension did not build, so neither does the wheel.

    Its text is exactly what `eve extension build` prints: every diagnostic as
    `path:line: error CODE: message` with its hint, then the summary line.
    """

    def __str__(self) -> str:
        # After a traceback's `HookBuildError:` prefix, the lines start as the CLI's do.
        return f"\n{self.message}"


def run_extension_build(root: Path, options: HookOptions) -> BuildResult:
    """`build_extension(root, verify=True)`, with failures turned into one readable
    HookBuildError; the output it hands to hatchling has the manifest's content hashes
    (`eve_build.extension.shipping`)."""
    from eve_build.extension.shipping import find_output_unlike_build

    try:
        result = build_extension(root, verify=True)
        edited = find_output_unlike_build(result)
        if edited:
            raise DiagnosticsError("the output changed while it was being packed", edited)
        return result
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
