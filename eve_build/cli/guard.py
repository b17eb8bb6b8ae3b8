"""The last-resort handler of every `eve` command, in one place.

`guard_commands(app)` wraps each registered command so that:
- an exception nobody expected becomes one `internal/unexpected` diagnostic with a
  short report (eve-build and Python versions, the exception type and message, where
  in eve-build it was raised), exit code 1, never a raw traceback. `EVE_DEBUG=1`
  adds the full traceback for a bug report;
- with `--json`, whatever user code prints goes to stderr, so stdout carries exactly
  the one JSON document the command emits.
- a closed stdout (`eve info | head -1`) ends the command quietly with exit 141, as
  a command killed by SIGPIPE would;
Exits and usage errors of typer pass through unchanged.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from typer.exceptions import TyperException

from eve_build._version import __version__
from eve_build.cli.output import (
    PIPE_CLOSED_EXIT,
    data_stdout,
    echo_err,
    emit_result,
    silence_closed_pipe,
)
from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import describe_exception

DEBUG_VARIABLE = "EVE_DEBUG"
PASSED_THROUGH = (typer.Exit, typer.Abort, TyperException)


def guard_commands(app: typer.Typer) -> None:
    """Wrap every command of `app` and of its sub-apps with the last-resort handler."""
    for command in app.registered_commands:
        if command.callback is not None and not hasattr(command.callback, "__eve_guarded__"):
            command.callback = guard(command.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            guard_commands(group.typer_instance)


def guard(callback: Callable[..., Any]) -> Callable[..., Any]:
    """`callback` behind the last-resort handler (typer still reads its signature)."""

    @functools.wraps(callback)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        json_output = bool(kwargs.get("json_output", False))
        with data_stdout(json_output):
            try:
                return callback(*args, **kwargs)
            except PASSED_THROUGH:
                raise
            except BrokenPipeError:  # `eve info | head -1`: the reader has all it wanted
                silence_closed_pipe()
                raise typer.Exit(PIPE_CLOSED_EXIT) from None
            except Exception as exc:  # the last resort: every other exception is a bug
                report_unexpected(exc, json_output=json_output)
                raise typer.Exit(1) from None

    guarded.__eve_guarded__ = True  # type: ignore[attr-defined]
    return guarded


def report_unexpected(exc: BaseException, *, json_output: bool) -> None:
    """Show `exc` as an `internal/unexpected` diagnostic (and JSON with `--json`)."""
    from eve_build.runtime.redaction import redact_known

    found = derive_unexpected(exc)
    diagnostic = dataclasses.replace(found, message=redact_known(found.message))
    if json_output:
        emit_result("failed", [diagnostic],
                    error={"message": diagnostic.message, "hint": diagnostic.hint})
    echo_err(diagnostic.render())
    if os.environ.get(DEBUG_VARIABLE):
        echo_err(redact_known("".join(traceback.format_exception(exc)).rstrip()))


def derive_unexpected(exc: BaseException) -> Diagnostic:
    """The short report: versions, what was raised and where in eve-build."""
    where = _innermost_frame(exc)
    return error(
        "internal/unexpected", "",
        f"eve-build stopped on an unexpected error: {_describe(exc)}{where} "
        f"(eve-build {__version__}, Python {sys.version.split()[0]})",
        "this is a bug in eve-build, not in your project: please report it with this "
        f"message; set {DEBUG_VARIABLE}=1 to add the full traceback",
    )


def _describe(exc: BaseException) -> str:
    errors = getattr(exc, "error_count", None)
    if callable(errors) and hasattr(exc, "title"):  # a pydantic ValidationError: no input
        return f"{type(exc).__name__}: {errors()} validation error(s) for {exc.title}"
    return describe_exception(exc, limit=300)


def _innermost_frame(exc: BaseException) -> str:
    """` at module.py:LINE in function` of the deepest eve-build frame, if any."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f"{os.sep}eve_build{os.sep}" in f.filename] or frames
    if not ours:
        return ""
    frame = ours[-1]
    marker = f"{os.sep}eve_build{os.sep}"
    name = ("eve_build/" + frame.filename.rpartition(marker)[2].replace(os.sep, "/")
            if marker in frame.filename else Path(frame.filename).name)
    return f" at {name}:{frame.lineno} in {frame.name}()"
