"""Terminal conventions every `eve` command gets without asking.

The root group (`EveGroup`) tidies the whole command tree when typer builds it, so a
command registered by any module gets the same treatment: `-h` beside `--help`
(inherited through click's context), help without `<bool>` / `<str>` type noise and
without `{name}` braces in the usage line, and rich's boxed help and usage errors only
on a colour terminal (plain click text when piped). The shared options below (`--path`,
`--json`, `--agent`) check what they can before the command runs, so a usage error
exits 2 before anything is printed or created.

A new command needs: `--json` (use `JSON_OPTION`), its JSON Schema in
`eve_build/schemas/<command path joined by ->.json`, and one line registering it.
tests/cli/test_conventions.py checks every registered command for all of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

HELP_OPTIONS = ["-h", "--help"]
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": HELP_OPTIONS}

JSON_OPTION = typer.Option(False, "--json", help="Print the result as JSON on stdout "
                           "(see docs/reference/json.md).")
AGENT_OPTION = typer.Option(None, "--agent", help="In a workspace root: the agent under "
                            "`agents/NAME/` to use.")
# the scaffolds' own (`eve init`, `eve extension init`)
DIR_OPTION = typer.Option(None, "--dir", help="Where to create it (default: ./NAME).",
                          file_okay=False)
NO_INSTALL_OPTION = typer.Option(False, "--no-install", help="Skip the venv and install.")
NO_GIT_OPTION = typer.Option(False, "--no-git", help="Skip git init and the first commit.")
FORCE_OPTION = typer.Option(False, "--force", help="Write into a non-empty directory.")


NO_JSON: dict[tuple[str, ...], str] = {
    ("mcp",): "stdout carries the MCP protocol (JSON-RPC) itself",
    ("chat",): "an interactive terminal session: `eve run --json` is its scriptable form",
}
"""Commands without `--json`, and why: the conventions test exempts exactly these."""


def path_option(help: str) -> Any:
    """`--path DIR`: an existing folder, checked before the command runs (exit 2)."""
    return typer.Option(Path(), "--path", help=help, exists=True, file_okay=False,
                        dir_okay=True)


class _CleanArgument(TyperArgument):
    """An argument shown as `NAME` (required) or `[NAME]` in the usage line."""

    def make_metavar(self, ctx: Any, *, usage: bool = False) -> str:  # noqa: ARG002
        name = self.metavar or (self.name or "").upper()
        if self.nargs != 1:
            name += "..."
        return f"[{name}]" if usage and not self.required else name

    def display_type_rich(self, ctx: Any) -> str | None:  # noqa: ARG002
        return None


class EveGroup(TyperGroup):
    """The root `eve` group: tidies every command below it once it is built."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tidy_command(self)
        for _, command in walk_commands(self, groups=True):
            tidy_command(command)
        for _, command in walk_commands(self):
            add_verbosity_options(command)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        import sys

        given = args[0] if args else kwargs.get("args")
        if any("\x00" in str(word) for word in (sys.argv[1:] if given is None else given)):
            # only a test runner can pass one (an OS argv cannot); click would raise on it
            print("Error: an argument holds a NUL byte, which no path or name may contain.",
                  file=sys.stderr)
            raise SystemExit(2)
        if not is_styled_terminal():  # piped, NO_COLOR or TERM=dumb: click's plain help
            for command in (self, *(c for _, c in walk_commands(self, groups=True))):
                command.rich_markup_mode = None
        return super().main(*args, **kwargs)

    def get_params(self, ctx: Any) -> list[Any]:
        tidy_command(self)  # typer adds the completion options after __init__
        return list(super().get_params(ctx))


def is_styled_terminal() -> bool:
    """Help and usage errors in rich's boxes only for a person at a colour terminal."""
    import os
    import sys

    return (sys.stdout.isatty() and sys.stderr.isatty() and not os.environ.get("NO_COLOR")
            and os.environ.get("TERM") != "dumb")


def tidy_command(command: Any) -> None:
    """Type labels out of the help, `NAME` metavars in, for one click command."""
    import importlib

    try:  # typer >= 0.2x vendors click; with an older typer the help option stays as is
        help_option: Any = importlib.import_module("typer._click.decorators").help_option
    except ImportError:  # pragma: no cover - depends on the installed typer
        help_option = None
    if help_option is not None and command.add_help_option and \
            getattr(command, "_help_option", False) is None:
        help_option(HELP_OPTIONS)(command)  # created now, so it can be tidied too
        command._help_option = command.params.pop()
        command._help_option.metavar = ""
    for param in command.params:
        if isinstance(param, TyperArgument):
            if param.metavar is None:
                param.metavar = (param.name or "").upper()
            if type(param) is TyperArgument:
                param.__class__ = _CleanArgument
        elif getattr(param, "is_flag", False) or getattr(param, "count", False):
            param.metavar = ""
        elif param.metavar is None:
            param.metavar = (param.name or "").upper()


VERBOSITY = (("--quiet", "-q", "Only errors and data: no progress, notes or warnings."),
             ("--verbose", "-v", "Show extra detail on stderr."))


def add_verbosity_options(command: Any) -> None:
    """`-q` / `-v` after the command too (`eve build -q`), as before it (`eve -q build`)."""
    taken = {name for param in command.params for name in getattr(param, "opts", ())}
    for long, short, text in VERBOSITY:
        if long not in taken and short not in taken:
            command.params.append(TyperOption(
                param_decls=[long, short], is_flag=True, default=False, expose_value=False,
                callback=_set_verbosity, help=text))
            command.params[-1].metavar = ""


def _set_verbosity(ctx: Any, param: Any, value: bool) -> None:
    """Add a late `-q` / `-v` to what the root callback set; both together is exit 2."""
    del ctx
    from eve_build.cli.output import SETTINGS

    if not value:
        return
    if param.name == "quiet":
        SETTINGS.quiet = True
    else:
        SETTINGS.verbose = True
    if SETTINGS.quiet and SETTINGS.verbose:
        raise typer.BadParameter("use one of --quiet and --verbose", param_hint="--quiet")


def walk_commands(group: Any, prefix: tuple[str, ...] = (), *,
                  groups: bool = False) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every leaf command under `group` with its path (`("extension", "build")`), sorted;
    with `groups`, the sub-groups too."""
    for name in sorted(getattr(group, "commands", {})):
        command = group.commands[name]
        path = (*prefix, name)
        if getattr(command, "commands", None) is not None:
            if groups:
                yield path, command
            yield from walk_commands(command, path, groups=groups)
        else:
            yield path, command


SCHEMA_GROUPS = {"node": "ext"}
"""Groups whose schemas keep an earlier name: `eve node` was `eve ext` (same shapes)."""


def schema_name(path: tuple[str, ...]) -> str:
    """The schema file of a command: `("extension", "build")` -> `extension-build.json`."""
    return "-".join((SCHEMA_GROUPS.get(path[0], path[0]), *path[1:])) + ".json"
