"""Diagnostics: every user-facing problem, collected and reported together.

A Diagnostic has a stable code (see `eve_build.codes`), a severity, the file it is
about (relative to the project root, POSIX separators), an optional line, the
message and a hint that tells the user what to do.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem found in a project, in a form both people and tools can read."""

    file: str
    line: int | None
    code: str
    message: str
    hint: str = ""
    severity: Severity = Severity.ERROR

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def location(self) -> str:
        if not self.file:
            return ""
        return f"{self.file}:{self.line}" if self.line else self.file

    def render(self) -> str:
        """`path:line: error CODE: message` followed by a `hint:` line."""
        where = self.location()
        head = f"{where}: " if where else ""
        text = f"{head}{self.severity.value} {self.code}: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity.value,
            "code": self.code,
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "hint": self.hint,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Diagnostic:
        """A diagnostic back from its `to_json()` form (raises KeyError/ValueError)."""
        return cls(file=data["file"], line=data["line"], code=data["code"],
                   message=data["message"], hint=data["hint"],
                   severity=Severity(data["severity"]))


def error(
    code: str, file: str, message: str, hint: str = "", line: int | None = None
) -> Diagnostic:
    return Diagnostic(file=file, line=line, code=code, message=message, hint=hint)


def warning(
    code: str, file: str, message: str, hint: str = "", line: int | None = None
) -> Diagnostic:
    return Diagnostic(
        file=file, line=line, code=code, message=message, hint=hint, severity=Severity.WARNING
    )


@dataclass
class Diagnostics:
    """An ordered collection that steps of a pipeline append to."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(self, diagnostic: Diagnostic) -> None:
        if diagnostic not in self.items:
            self.items.append(diagnostic)

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        for item in diagnostics:
            self.add(item)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.is_error]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if not d.is_error]

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        """Errors first, then by file and line, so output is stable."""
        return sorted(self.items, key=lambda d: (not d.is_error, d.file, d.line or 0, d.code))


def summarize(diagnostics: Iterable[Diagnostic]) -> dict[str, Any]:
    items = list(diagnostics)
    return {
        "errors": sum(1 for d in items if d.is_error),
        "warnings": sum(1 for d in items if not d.is_error),
        "items": [d.to_json() for d in items],
    }


def locate_toml_error(exc: BaseException, text: str | None = None) -> int | None:
    """The line (1-based) a TOML parser's error points at: tomllib's `(at line N, column
    M)` (or its `lineno` from Python 3.14), tomlkit's `line`; `at end of document` is the
    last line of `text`. None when the error says no line."""
    for attribute in ("lineno", "line"):
        value = getattr(exc, attribute, None)
        if isinstance(value, int) and value > 0:
            return value
    message = str(exc)
    found = re.search(r"\bat line (\d+)\b", message)
    if found:
        return int(found[1])
    if "at end of document" in message and text is not None:
        return max(1, len(text.splitlines()))
    return None
