"""Where a definition is, for its diagnostics: the file, and the line only when needed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from eve_build.diagnostics import Diagnostic, error


class Where:
    """Where a definition is: its file, and its line, found only when a diagnostic needs
    it (`locate`, e.g. a parse of the module: most definitions have no problem)."""

    __slots__ = ("_line", "_locate", "file")

    def __init__(self, file: str, line: int | None = None,
                 locate: Callable[[], int | None] | None = None) -> None:
        self.file = file
        self._line = line
        self._locate = locate

    @property
    def line(self) -> int | None:
        if self._locate is not None:
            self._line, self._locate = self._locate(), None
        return self._line

    def error(self, code: str, message: str, hint: str) -> Diagnostic:
        return error(code, self.file, message, hint, line=self.line)

    def placed(self, found: list[Diagnostic]) -> list[Diagnostic]:
        """`found`, each without a line given this one's."""
        return [replace(d, line=self.line) if d.line is None else d for d in found]
