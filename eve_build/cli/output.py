"""All terminal output, and the one place output and exit codes are decided.

Data goes to stdout (plain text, or one JSON object with `--json`); diagnostics,
progress and notes go to stderr, coloured through rich only when stderr is a
terminal and `NO_COLOR` is unset. Every `--json` payload is one envelope:
`{"status": ..., <command fields>, "diagnostics": {"errors", "warnings", "items"}}`,
the same shape on success and on failure (failure adds `"error": {"message", "hint"}`).
Every line of text printed here has its control characters escaped
(`eve_build.controls`): notices, replies and errors of extension code reach the
terminal as text, never as escape sequences. JSON escapes them itself.
The shapes are JSON Schema files in `eve_build/schemas/`, documented in
docs/reference/json.md.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import typer

from eve_build.controls import escape_controls
from eve_build.diagnostics import Diagnostic
from eve_build.errors import DiagnosticsError, EveBuildError

if TYPE_CHECKING:
    from rich.console import Console

T = TypeVar("T")


@dataclass
class Settings:
    """How chatty this invocation is; set by the root callback (`-q` / `-v`)."""

    quiet: bool = False
    verbose: bool = False


SETTINGS = Settings()


def configure(*, quiet: bool = False, verbose: bool = False) -> None:
    SETTINGS.quiet, SETTINGS.verbose = quiet, verbose


def echo(text: str = "", *, nl: bool = True) -> None:
    """Data, on stdout: never coloured, never hidden."""
    typer.echo(escape_controls(text), nl=nl)


def summary(text: str = "") -> None:
    """A line of what a command did, on stdout after its success: for people, so
    `--quiet` hides it (`eve build -q` prints nothing on success). Data uses `echo`."""
    if not SETTINGS.quiet:
        echo(text)


def echo_err(text: str = "") -> None:
    """An error line on stderr: shown even with `--quiet`."""
    if _plain_stderr():
        _write_err(escape_controls(text))
        return
    _console().print(_styled(escape_controls(text)), soft_wrap=True)


def note(text: str) -> None:
    """Progress and next steps on stderr; hidden by `--quiet`."""
    if not SETTINGS.quiet:
        _console().print(escape_controls(text), style="dim", soft_wrap=True)


def detail(text: str) -> None:
    """Extra detail on stderr, shown only with `--verbose`."""
    if SETTINGS.verbose:
        _console().print(escape_controls(text), style="dim", soft_wrap=True)


_DATA: list[TextIO] = []  # where JSON data goes while user code's stdout is diverted


def emit_json(data: Any) -> None:
    """The command's one JSON document on stdout (NaN is refused, never printed)."""
    _write_data(json.dumps(data, indent=2, sort_keys=False, allow_nan=False))


def _write_data(text: str) -> None:
    """Data on stdout, even while user code's prints are diverted to stderr."""
    if _DATA:
        _DATA[-1].write(text + "\n")
        _DATA[-1].flush()
    else:
        typer.echo(text)


@contextlib.contextmanager
def data_stdout(active: bool) -> Iterator[None]:
    """While `active`, prints (of user code too) go to stderr; emit_json keeps stdout."""
    if not active or _DATA:
        yield
        return
    _DATA.append(sys.stdout)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _DATA.pop()


def divert_process_stdout() -> None:
    """For `--json` in a real process: file descriptor 1 goes to stderr too (subprocesses,
    C extensions), and only emit_json writes to the original stdout."""
    import os

    sys.stdout.flush()
    data_fd = os.dup(1)
    os.dup2(2, 1)
    _DATA.append(open(data_fd, "w", encoding="utf-8", closefd=True))  # noqa: SIM115


PIPE_CLOSED_EXIT = 141
"""The exit code of a command whose reader went away (`eve info | head -1`): 128 + SIGPIPE,
what the shell reports for `cat` or `seq` cut off the same way (docs/cli.md)."""


def silence_closed_pipe() -> None:
    """The reader of stdout is gone: point stdout (and the `--json` data stream) at
    /dev/null, so neither a later write nor the flush at exit raises again."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.__stdout__, *_DATA):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            if stream is not None:
                os.dup2(devnull, stream.fileno())
    os.close(devnull)


def emit_json_line(data: Any) -> None:
    """One compact JSON object per line (`eve dev --json`)."""
    _write_data(json.dumps(data, sort_keys=False, allow_nan=False))


def envelope(status: str, diagnostics: Iterable[Diagnostic] = (), **fields: Any) -> dict[str, Any]:
    """The one `--json` shape: status, the command's fields, then the diagnostics summary."""
    from eve_build.diagnostics import summarize

    return {"status": status, **fields, "diagnostics": summarize(diagnostics)}


def emit_result(status: str, diagnostics: Iterable[Diagnostic] = (), **fields: Any) -> None:
    emit_json(envelope(status, diagnostics, **fields))


def render_diagnostics(diagnostics: Iterable[Diagnostic]) -> None:
    """`file:line: error CODE: message` lines on stderr (warnings hidden by `--quiet`)."""
    console = None
    for diagnostic in diagnostics:
        if SETTINGS.quiet and not diagnostic.is_error:
            continue
        if _plain_stderr():
            _write_err(str(_diagnostic_text(diagnostic, plain=True)))
            continue
        console = console or _console()
        console.print(_diagnostic_text(diagnostic), soft_wrap=True)


def run_core(action: Callable[[], T], *, json_output: bool = False) -> T:
    """Call into the core; an EveBuildError becomes output and an exit code, never a traceback.

    Exit 1 for a user's mistake in the project, 2 for a usage error (`UsageError`).
    A wait for another build's lock is shown as progress while it lasts.
    """
    from eve_build.engine.waits import WAIT_LISTENERS

    WAIT_LISTENERS[:] = [note]
    try:
        return action()
    except DiagnosticsError as exc:
        if json_output:
            emit_result("failed", exc.diagnostics, error={"message": exc.message, "hint": exc.hint})
        render_diagnostics(exc.diagnostics)
        echo_err(f"error: {exc.message}")
        raise typer.Exit(exc.exit_code) from None
    except EveBuildError as exc:
        if json_output:
            emit_result("failed", error={"message": exc.message, "hint": exc.hint})
        echo_err(f"error: {exc.message}")
        if exc.hint:
            echo_err(f"\nhint: {exc.hint}")
        raise typer.Exit(exc.exit_code) from None


def _plain_stderr() -> bool:
    """stderr is no terminal and nothing forces colour: rich would write the text as it
    is, so it is written without importing rich (a first error stays fast)."""
    import os

    return not (sys.stderr.isatty() or os.environ.get("FORCE_COLOR")
                or os.environ.get("TTY_COMPATIBLE") or os.environ.get("TTY_INTERACTIVE"))


def _write_err(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _console() -> Console:
    import os

    from rich.console import Console

    # rich styles only a terminal; NO_COLOR (any value but "") turns bold off too
    plain = bool(os.environ.get("NO_COLOR"))
    return Console(stderr=True, highlight=False, markup=False, emoji=False,
                   color_system=None if plain else "auto")


_STYLES = {"error": "bold red", "warning": "bold yellow", "hint": "cyan"}


def _styled(text: str) -> Any:
    """Colour a leading `error:`, `warning:` or `hint:` on each line."""
    from rich.text import Text

    styled = Text(text)
    offset = 0
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        word = stripped.split(":", 1)[0]
        if word in _STYLES and stripped.startswith(f"{word}:"):
            start = offset + len(line) - len(stripped)
            styled.stylize(_STYLES[word], start, start + len(word))
        offset += len(line) + 1
    return styled


def _diagnostic_text(diagnostic: Diagnostic, *, plain: bool = False) -> Any:
    if plain:  # the same text, unstyled
        where = diagnostic.location()
        hint = f"\n  hint: {escape_controls(diagnostic.hint)}" if diagnostic.hint else ""
        return (f"{escape_controls(where) + ': ' if where else ''}{diagnostic.severity.value} "
                f"{diagnostic.code}: {escape_controls(diagnostic.message)}{hint}")
    from rich.text import Text

    text = Text()
    where = diagnostic.location()
    if where:
        text.append(f"{escape_controls(where)}: ", style="bold")
    text.append(diagnostic.severity.value, style=_STYLES[diagnostic.severity.value])
    text.append(f" {diagnostic.code}: {escape_controls(diagnostic.message)}")
    if diagnostic.hint:
        text.append("\n  ")
        text.append("hint", style=_STYLES["hint"])
        text.append(f": {escape_controls(diagnostic.hint)}")
    return text
