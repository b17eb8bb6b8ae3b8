"""The fast path of the hot command: `eve extension build` without typer or rich.

    eve [-q|--quiet] extension build [--no-cache]

Exactly these command lines are run here; any other (`--path`, `--json`, `-v`,
`--help`, a typo) goes to the typer application unchanged. The build is the same core
call as `cli.extension.build`, and what it prints is the same: on a clean success one
line on stdout, written here; when there are warnings or the build fails, the
diagnostics are rendered by `cli.output` and `cli.guard` (which import typer and rich
then, off the hot path). Ctrl-C prints `Aborted!` and exits 1, as click does.
"""

from __future__ import annotations

import sys
from pathlib import Path

_QUIET = ("-q", "--quiet")


def run_fast(argv: list[str]) -> bool:
    """Run `argv` here when it is a plain extension build; False: let typer run it."""
    quiet = bool(argv) and argv[0] in _QUIET
    rest = argv[1:] if quiet else argv
    if rest[:2] != ["extension", "build"] or rest[2:] not in ([], ["--no-cache"]):
        return False
    use_cache = rest[2:] == []
    from eve_build.errors import EveBuildError
    from eve_build.extension_build import build_extension

    try:
        result = build_extension(Path(), use_cache=use_cache)
    except EveBuildError as exc:
        _fail_like_typer(exc, quiet)
    except KeyboardInterrupt:
        print("\nAborted!", file=sys.stderr)
        sys.exit(1)
    except Exception as exc:  # the last resort, as `cli.guard` does for every command
        from eve_build.cli.guard import report_unexpected

        report_unexpected(exc, json_output=False)
        sys.exit(1)
    if result.warnings:
        from eve_build.cli.output import configure, render_diagnostics

        configure(quiet=quiet)
        render_diagnostics(result.warnings)
    tools = result.tools
    print(f"Built {result.project.name} {result.project.version} into "
          f"{shown_path(result.package_dir)} ({len(result.files)} files, {tools} "
          f"tool{'' if tools == 1 else 's'})", flush=True)
    return True


def _fail_like_typer(exc: Exception, quiet: bool) -> None:
    """Render the error as `cli.output.run_core` does, and exit with its code."""
    import typer

    from eve_build.cli.output import configure, run_core

    configure(quiet=quiet)

    def fail() -> None:
        raise exc

    try:
        run_core(fail)
    except typer.Exit as done:
        sys.exit(done.exit_code)


def shown_path(path: Path) -> str:
    """`path` relative to the working folder when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
