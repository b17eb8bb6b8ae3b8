"""Fixtures for the scaffold tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from eve_build.extension import build as extension_build


@pytest.fixture
def build_calls(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The folders `init` built, in order.

    A spy around the real `build_extension`: every call still builds. Imported at the top,
    so a build module that fails to import fails these tests instead of being stood in for.
    """
    calls: list[Path] = []
    real = extension_build.build_extension

    def build_extension(root: Path) -> object:
        calls.append(root)
        return real(root)

    monkeypatch.setattr(extension_build, "build_extension", build_extension)
    return calls
