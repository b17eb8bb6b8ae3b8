"""Fixtures for the scaffold tests."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def build_calls(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The folders `init` built, in order.

    The real `build_extension` still runs; only while it does not exist yet does a
    stub that just records the call stand in for it.
    """
    calls: list[Path] = []
    real: Callable[[Path], object] | None
    try:
        module = importlib.import_module("eve_build.extension.build")
    except ImportError:
        module = types.ModuleType("eve_build.extension.build")
        monkeypatch.setitem(sys.modules, "eve_build.extension.build", module)
        real = None
    else:
        real = module.build_extension

    def build_extension(root: Path) -> object:
        calls.append(root)
        return real(root) if real is not None else None

    monkeypatch.setattr(module, "build_extension", build_extension, raising=False)
    return calls
