"""The counter agent, compiled once per test session (building it is the slow part)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.session.apps import make_counter_app


@pytest.fixture(scope="session")
def counter_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_counter_app(tmp_path_factory.mktemp("counter") / "app")
