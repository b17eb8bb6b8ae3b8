"""The one error hierarchy. The CLI turns these into output and exit codes."""

from __future__ import annotations

import traceback
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


def describe_exception(error: BaseException, limit: int = 500) -> str:
    """`Type: message` for an exception from user code, even when its `__str__` raises.

    The message is cut at `limit` characters, so a huge one cannot flood a report.
    """
    name = type(error).__name__
    try:
        text = str(error)
    except BaseException:  # a broken __str__ must not break the report about it
        return f"{name} (its message cannot be shown: its __str__ raised)"
    if len(text) > limit:
        text = text[:limit] + "..."
    return f"{name}: {text}" if text else name


def describe_message(error: BaseException, limit: int = 500) -> str:
    """What a user exception says (its message, else its type), never raising."""
    described = describe_exception(error, limit)
    name = type(error).__name__
    return described.removeprefix(f"{name}: ") if described.startswith(f"{name}: ") else described


def describe_syntax_error(error: SyntaxError) -> str:
    """`invalid syntax: '(' was never closed`; Python's bare `invalid syntax` said once."""
    text = error.msg or "invalid syntax"
    return text if text.startswith("invalid syntax") else f"invalid syntax: {text}"


def describe_error(error: BaseException) -> str:
    """`Type: message (at file:line)`, the line where it was raised: a log line that
    points at the user's code without a traceback."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{describe_exception(error)}{where}"  # never raises, even when __str__ does
