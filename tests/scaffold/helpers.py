"""Test helpers for the scaffold: the expected files and a fake command runner."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from eve_build._version import __version__
from tests.conftest import GOLDEN
from tests.golden_files import read_files

GOLDEN_SCAFFOLD = GOLDEN / "scaffold" / "demo"
GOLDEN_EVE_VERSION = "0.1.0"
"""The eve-build version the golden files were rendered with."""


def expected_scaffold() -> dict[str, bytes]:
    """The golden `demo` scaffold, pinned to the running eve-build."""
    pin = f"eve-build=={GOLDEN_EVE_VERSION}".encode()
    running = f"eve-build=={__version__}".encode()
    return {name: data.replace(pin, running) for name, data in read_files(GOLDEN_SCAFFOLD).items()}


def read_scaffold(root: Path) -> dict[str, bytes]:
    """The files under `root`, without what init adds besides the scaffold."""
    generated = ("build", ".venv", ".git")
    return {
        name: data for name, data in read_files(root).items() if name.split("/")[0] not in generated
    }


@dataclass
class FakeRunner:
    """Records each command; answers from `answers` (exact argv), else success."""

    answers: dict[tuple[str, ...], tuple[int, str]] = field(default_factory=dict)
    calls: list[tuple[list[str], Path]] = field(default_factory=list)

    def __call__(self, argv: Sequence[str], cwd: Path) -> tuple[int, str]:
        self.calls.append((list(argv), cwd))
        return self.answers.get(tuple(argv), (0, ""))

    @property
    def argvs(self) -> list[list[str]]:
        return [argv for argv, _ in self.calls]


NOT_A_REPOSITORY = (128, "fatal: not a git repository (or any of the parent directories): .git")
NO_IDENTITY: dict[tuple[str, ...], tuple[int, str]] = {
    ("git", "rev-parse", "--is-inside-work-tree"): NOT_A_REPOSITORY,
    ("git", "config", "user.name"): (1, ""),
    ("git", "config", "user.email"): (1, ""),
}
"""Answers of a machine where git has no user configured and the folder is no repository."""
