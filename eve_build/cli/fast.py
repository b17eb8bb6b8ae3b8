"""The fast path of the hot commands: the builds, without typer or rich.

    eve [-q|--quiet] extension build [--no-cache]
    eve [-q|--quiet] build [--no-cache]

Exactly these command lines are run here; any other (`--path`, `--json`, `-v`,
`--help`, a typo) goes to the typer application unchanged. Each build is the same core
call as `cli.extension.build` / `cli.agent.build`, and what it prints is the same: on
a clean success its lines on stdout, written here (with `-q`: none); when there
are warnings or the build fails, the diagnostics are rendered by `cli.output` and
`cli.guard` (which import typer and rich then, off the hot path). Ctrl-C prints
`Aborted!` and exits 1, as click does.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeVar

if TYPE_CHECKING:
    from eve_build.diagnostics import Diagnostic

T = TypeVar("T")

_QUIET = ("-q", "--quiet")


def run_fast(argv: list[str]) -> bool:
    """Run `argv` here when it is a plain build; False: let typer run it."""
    quiet = bool(argv) and argv[0] in _QUIET
    rest = argv[1:] if quiet else argv
    command = rest[:2] if rest[:2] == ["extension", "build"] else rest[:1]
    if command not in (["extension", "build"], ["build"]) \
            or rest[len(command):] not in ([], ["--no-cache"]):
        return False
    use_cache = rest[len(command):] == []
    if command == ["build"]:
        _build_agent(use_cache, quiet)
    else:
        _build_extension(use_cache, quiet)
    return True


def _build_extension(use_cache: bool, quiet: bool) -> None:
    import os
    from contextlib import nullcontext

    from eve_build.engine.zygote import warm_workers

    early = _likely_to_run(Path(os.environ.get("EVE_CACHE_DIR") or "build/.eve-cache"))
    with warm_workers() if early else nullcontext() as zygote:  # so the zygote imports
        from eve_build.extension.build import build_extension  # while we do

        result = _run(lambda: build_extension(Path(), use_cache=use_cache, zygote=zygote),
                      quiet)
    _warn(result.warnings, quiet)
    if quiet:  # the summary is for people: `-q` prints nothing on success
        return
    from eve_build.cli.summaries import describe_extension_built

    print(describe_extension_built(result), flush=True)


def _likely_to_run(cache: Path) -> bool:
    """A guess, for when to start the zygote: no stamp of an earlier build, or a source
    file (or pyproject.toml) changed after it. Wrong either way costs only time: a
    zygote stopped unused, or one started after the stamp check (engine.stamp)."""
    import os
    import tomllib

    from eve_build.userfile import read_user_text

    try:
        stamped = (cache / "build-stamp.json").stat().st_mtime_ns
    except OSError:
        return True
    try:
        pyproject = Path("pyproject.toml")
        if pyproject.stat().st_mtime_ns > stamped:
            return True
        data = tomllib.loads(read_user_text(pyproject, what="pyproject"))  # never a FIFO
        source = data["tool"]["eve"]["extension"].get("source", "extension")
        pending = [str(source)]
        while pending:  # (links are not followed: the stamp itself decides about them)
            with os.scandir(pending.pop()) as listing:
                for entry in listing:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name != "__pycache__":
                            pending.append(entry.path)
                    elif entry.stat(follow_symlinks=False).st_mtime_ns > stamped:
                        return True
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return False
    return False


def _build_agent(use_cache: bool, quiet: bool) -> None:
    from eve_build.cli.summaries import describe_agent_built, describe_member
    from eve_build.consumer.build import build_agent

    result = _run(lambda: build_agent(Path(), None, use_cache=use_cache), quiet)
    _warn(result.warnings, quiet)
    if quiet:  # the summary is for people: `-q` prints nothing on success
        return
    lines = [f"  changed: {change}" for change in result.changes]
    lines += [describe_member(member) for member in result.extensions]
    lines.append(describe_agent_built(result))
    print("\n".join(lines), flush=True)


def _run(action: Callable[[], T], quiet: bool) -> T:
    """`action()`; its errors rendered and exited with as the typer commands do."""
    from eve_build.engine.waits import WAIT_LISTENERS
    from eve_build.errors import EveBuildError

    if not quiet:  # the progress line of `cli.output.note`, without rich
        WAIT_LISTENERS[:] = [lambda text: print(text, file=sys.stderr, flush=True)]
    try:
        return action()
    except EveBuildError as exc:
        _fail_like_typer(exc, quiet)
    except KeyboardInterrupt:
        print("\nAborted!", file=sys.stderr)
        sys.exit(1)
    except Exception as exc:  # the last resort, as `cli.guard` does for every command
        from eve_build.cli.guard import report_unexpected

        report_unexpected(exc, json_output=False)
        sys.exit(1)
    raise AssertionError("unreachable")


def _warn(warnings: Sequence[Diagnostic], quiet: bool) -> None:
    if warnings:
        from eve_build.cli.output import configure, render_diagnostics

        configure(quiet=quiet)
        render_diagnostics(warnings)


def _fail_like_typer(exc: Exception, quiet: bool) -> NoReturn:
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
    sys.exit(1)
