"""The one error hierarchy. The CLI turns these into output and exit codes."""

from __future__ import annotations

from collections.abc import Iterable

from eve_build.diagnostics import Diagnostic, Diagnostics


class EveBuildError(Exception):
    """Base of every error eve-build raises on purpose. Exit code 1."""

    exit_code = 1

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class DiagnosticsError(EveBuildError):
    """Raised once at a pipeline boundary, carrying every diagnostic found."""

    def __init__(self, title: str, diagnostics: Iterable[Diagnostic]) -> None:
        collected = Diagnostics()
        collected.extend(diagnostics)
        self.diagnostics = collected.sorted()
        count = len(collected.errors)
        noun = "error" if count == 1 else "errors"
        super().__init__(f"{title}: {count} {noun}")


class UsageError(EveBuildError, ValueError):
    """The command was called wrongly (exit code 2)."""

    exit_code = 2
