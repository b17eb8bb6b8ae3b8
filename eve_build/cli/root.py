"""The `eve` command line: a thin typer layer over the core (every command but the
fast path's, eve_build.cli.fast).

Only this package imports typer or prints. Each command imports its core module
inside the function, so `eve --help` stays fast. Conventions every command shares
(`-h`, `--json`, schemas, exit codes) live in `conventions.py` and `output.py`.
"""

from __future__ import annotations

import os
import sys

import typer

from eve_build._version import __version__
from eve_build.cli import add, agent, dev, ext, extension, local, runtime, serve, session, trust
from eve_build.cli import init as init_cli
from eve_build.cli import mcp as mcp_cli
from eve_build.cli import sessions as sessions_cli
from eve_build.cli.conventions import CONTEXT_SETTINGS, EveGroup
from eve_build.cli.guard import guard_commands
from eve_build.cli.output import configure, divert_process_stdout


def _new_app() -> typer.Typer:
    return typer.Typer(
        name="eve",
        cls=EveGroup,
        help="Build, package, mount and run eve extensions and agents.",
        no_args_is_help=True,
        context_settings=CONTEXT_SETTINGS,
        pretty_exceptions_enable=False,
    )


app = _new_app()
app.add_typer(extension.app, name="extension")
app.add_typer(ext.app, name="node")
# `eve ext` was the name before `eve node` (kept, hidden: same commands, same output)
app.add_typer(ext.app, name="ext", hidden=True)
init_cli.register(app)
agent.register(app)
runtime.register(app)
dev.register(app)
serve.register(app)
local.register(app, extension.app)
trust.register(app)
mcp_cli.register(app)
add.register(app)
session.register(app)
sessions_cli.register(app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"eve-build {__version__}")
        raise typer.Exit()


def _root(
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only errors and data: no "
                               "progress, notes or warnings."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show extra detail on "
                                 "stderr."),
    version: bool = typer.Option(  # noqa: ARG001 (handled by its eager callback)
        False, "--version", "-V", callback=_version, is_eager=True,
        help="Print the version and exit."),
) -> None:
    """Build, package, mount and run eve extensions and agents."""
    if quiet and verbose:
        raise typer.BadParameter("use one of --quiet and --verbose", param_hint="--quiet")
    configure(quiet=quiet, verbose=verbose)


app.callback()(_root)
guard_commands(app)  # last: every command registered above gets the last-resort handler


def _run_app() -> typer.Typer:
    """The root app with `run` alone, registered as `app` has it: `eve run ...` parses
    the same, without typer building every other command (about 85) for one turn."""
    only = _new_app()
    only.command("run")(session.run)
    only.callback()(_root)
    guard_commands(only)
    return only


def main() -> None:
    if "--json" in sys.argv[1:]:
        divert_process_stdout()
    if sys.argv[1:2] == ["run"] and not any(name.endswith("_COMPLETE") for name in os.environ):
        _run_app()()  # shell completion still walks the whole app
        return
    app()
