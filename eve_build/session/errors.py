"""One way to raise a session diagnostic: a DiagnosticsError with one error in it."""

from __future__ import annotations

from eve_build.diagnostics import error
from eve_build.errors import DiagnosticsError

SESSION_FILE = ""
"""Where a session problem is reported: there is no file to point at, only the command."""


def session_error(code: str, message: str, hint: str, *,
                  title: str = "the session cannot go on") -> DiagnosticsError:
    return DiagnosticsError(title, [error(code, SESSION_FILE, message, hint)])
