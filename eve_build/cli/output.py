"""All terminal output: diagnostics to stderr, data (`--json`) to stdout."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

import typer

from eve_build.diagnostics import Diagnostic
from eve_build.errors import DiagnosticsError, EveBuildError

T = TypeVar("T")


def echo(text: str = "") -> None:
    typer.echo(text)


def echo_err(text: str = "") -> None:
    typer.echo(text, err=True)


_DATA: list[TextIO] = []  # where JSON data goes while user code's stdout is diverted


def emit_json(data: Any) -> None:
    """The command's one JSON document on stdout (NaN is refused, never printed)."""
    text = json.dumps(data, indent=2, sort_keys=False, allow_nan=False)
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


def render_diagnostics(diagnostics: Iterable[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        echo_err(diagnostic.render())


def run_core(action: Callable[[], T], *, json_output: bool = False) -> T:
    """Call into the core; an EveBuildError becomes output and an exit code, never a traceback."""
    try:
        return action()
    except DiagnosticsError as exc:
        if json_output:
            emit_json({"status": "failed", "diagnostics": [d.to_json() for d in exc.diagnostics]})
        render_diagnostics(exc.diagnostics)
        echo_err(f"error: {exc.message}")
        raise typer.Exit(exc.exit_code) from None
    except EveBuildError as exc:
        if json_output:
            emit_json({"status": "failed", "error": exc.message, "hint": exc.hint})
        echo_err(f"error: {exc.message}")
        if exc.hint:
            echo_err(f"\nhint: {exc.hint}")
        raise typer.Exit(exc.exit_code) from None
