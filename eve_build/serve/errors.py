"""The serve host's own user mistakes, each a Diagnostic with a `serve/` code."""

from __future__ import annotations

from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError


class ServeUsageError(DiagnosticsError):
    """An option of `eve serve` out of its range: exit 2, like every usage error."""

    exit_code = 2


def serve_error(code: str, message: str, hint: str, *, title: str = "cannot serve",
                file: str = "", usage: bool = False) -> DiagnosticsError:
    """One diagnostic, raised as the DiagnosticsError the CLI renders (exit 1; 2 for
    `usage`, an option given wrongly)."""
    kind = ServeUsageError if usage else DiagnosticsError
    return kind(title, [error(code, file, message, hint)])
