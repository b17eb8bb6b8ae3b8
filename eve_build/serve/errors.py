"""The serve host's own user mistakes, each a Diagnostic with a `serve/` code."""

from __future__ import annotations

from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError


def serve_error(code: str, message: str, hint: str, *, title: str = "cannot serve",
                file: str = "") -> DiagnosticsError:
    """One diagnostic, raised as the DiagnosticsError the CLI renders (exit 1)."""
    return DiagnosticsError(title, [error(code, file, message, hint)])
