"""All terminal output: diagnostics to stderr, data (`--json`) to stdout."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import typer

from eve_build.diagnostics import Diagnostic
from eve_build.errors import DiagnosticsError, EveBuildError

T = TypeVar("T")


def echo(text: str = "") -> None:
    typer.echo(text)


def echo_err(text: str = "") -> None:
    typer.echo(text, err=True)


def emit_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, sort_keys=False))


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
